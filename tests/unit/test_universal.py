"""End-to-end approximation routes (Yun et al. 2020a; Kajitsuka & Sato 2024 Prop. 1)."""

import numpy as np
import pytest
from cases import UA_APPROXIMATION
from hypothesis import given, settings
from hypothesis import strategies as st

from expressivity.experiments.universal_approximation import approximation_table
from expressivity.universal import (
    TARGETS,
    ks_route,
    lp_errors,
    sample,
    target,
    yun_route,
)


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(["sin_mean", "softmax_average"]), st.integers(0, 2**31))
def test_equivariant_targets_are_equivariant(name, seed):
    rng = np.random.default_rng(seed)
    X = rng.random((3, 4, 2))
    perm = rng.permutation(4)
    assert np.allclose(target(name, X[:, perm]), target(name, X)[:, perm], atol=1e-14)


def test_positional_target_is_not_equivariant():
    X = np.random.default_rng(0).random((1, 3, 1))
    perm = np.array([1, 2, 0])
    assert not np.allclose(target("weighted_shift", X[:, perm]), target("weighted_shift", X)[:, perm])


def test_yun_route_exact_on_distinct_grid_points():
    """At cube centres with distinct tokens the constructed network returns f_bar exactly."""
    m, d = 6, 1
    digits = np.array([[[0], [3], [5]], [[5], [0], [2]]])
    X = (digits + 0.5) / m
    r = yun_route("sin_mean", X, m, budget=10**4)
    assert np.allclose(r["G"], target("sin_mean", X), rtol=0, atol=1e-15)
    assert r["property4_violations"] == 0
    assert r["layers_attention"] == m**d + 1


def test_error_falls_and_routes_compare():
    rows = approximation_table(target="softmax_average", **UA_APPROXIMATION)
    for route in ("yun", "kajitsuka_sato"):
        e = [r["L1"] for r in rows if r["route"] == route]
        assert e[0] > e[1] > e[2]
    ks = [r for r in rows if r["route"] == "kajitsuka_sato"]
    assert all(r["layers_total"] == 3 for r in ks)
    assert all(r["memorization_residual"] <= r["residual_bound"] for r in ks)


def test_ks_route_interpolates_grid():
    m = 4
    digits = np.array([[[0], [1], [3]], [[2], [2], [1]]])       # repeated tokens included
    X = (digits + 0.5) / m
    r = ks_route("sin_mean", X, m, 1.0, 10**4, np.random.default_rng(0))
    assert np.allclose(r["G"], target("sin_mean", X), atol=1e-6)
    assert not r["collapsed"] and r["label_conflicts"] == 0


def test_lp_errors():
    F = np.zeros((2, 1, 1))
    G = np.array([[[1.0]], [[3.0]]])
    e = lp_errors(F, G)
    assert e["L1"] == 2.0 and e["L2"] == pytest.approx(np.sqrt(5.0))


def test_bad_input():
    X = sample(np.random.default_rng(0), 5, 3, 1)
    with pytest.raises(ValueError, match="known targets"):
        target("cubic", X)
    with pytest.raises(ValueError, match="integer m >= 2"):
        yun_route("sin_mean", X, 1, 100)
    with pytest.raises(ValueError, match="over the budget of 100"):
        yun_route("sin_mean", X, 16, 100)
    assert set(TARGETS) >= {"sin_mean", "softmax_average", "weighted_shift"}
