"""End-to-end approximation routes (Yun et al. 2020a; Kajitsuka & Sato 2024 Prop. 1)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from expressivity.quantization import quantize, quantizer_parameters
from expressivity.selective_shift import dense_network, positional_network, run_integer
from expressivity.sparse_patterns import pattern_masks
from expressivity.universal import (
    TARGETS,
    grid_target,
    ks_route,
    lp_errors,
    repeated_tokens,
    sample,
    table_size,
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
    r = yun_route("sin_mean", X, m)
    assert np.allclose(r["G"], target("sin_mean", X), rtol=0, atol=1e-15)
    assert r["property4_violations"] == 0
    assert r["layers_attention"] == m**d + 1


def _table_lookup(name, net, table_digits, digits, m):
    """The value mapping as a table built over ``table_digits`` and looked up (what the route
    computed before it became lazy): the sample's outputs, the table's entries and the property-4
    violations (sample values inside ``[t_l, t_r]`` that are not in it)."""
    S, n, d = digits.shape
    keys = run_integer(net, table_digits).ravel()
    vals = (grid_target(name, table_digits, m) if len(table_digits)
            else np.zeros((0, n, d))).reshape(-1, d)
    order = np.argsort(keys, kind="stable")
    keys, vals = keys[order], vals[order]
    assert not np.any(keys[1:] == keys[:-1])        # a contextual mapping on the whole grid
    flat = run_integer(net, digits).ravel()
    pos = np.clip(np.searchsorted(keys, flat), 0, len(keys) - 1)
    hit = keys[pos] == flat
    G = np.where(hit[:, None], vals[pos], 0.0).reshape(S, n, d)
    inside = (flat >= keys[0]) & (flat <= keys[-1])
    return G, len(keys), int(np.sum(~hit & inside))


@pytest.mark.parametrize(("m", "d", "n"), [(6, 1, 3), (3, 2, 3), (5, 1, 4)])
def test_yun_route_without_a_table_equals_the_table_lookup(m, d, n):
    """The value map evaluated at the sampled cells (distinct tokens: f_bar at the cell; repeated:
    0 after the per-sample property-4 check) gives the table route's outputs and counts."""
    from expressivity.universal import _class_digits

    X = sample(np.random.default_rng(1), 400, n, d)
    r = yun_route("softmax_average", X, m)
    digits = quantize(X, m).astype(np.int64)
    G, entries, violations = _table_lookup(
        "softmax_average", dense_network(m, d, n), _class_digits(m, d, n, 10**6, False), digits, m)
    # equal up to the order of the softmax sums (the table holds each class's tokens sorted)
    assert np.array_equal(r["G"] == 0, G == 0) and np.allclose(r["G"], G, rtol=0, atol=1e-15)
    assert r["layers_ff_value"] == entries
    assert r["property4_violations"] == violations == 0
    assert repeated_tokens(digits, m).any() and (~repeated_tokens(digits, m)).any()


@pytest.mark.parametrize(("m", "d", "n", "pattern"),
                         [(4, 1, 3, None), (3, 2, 2, None), (3, 1, 4, "strided"),
                          (2, 2, 3, "star")])
def test_positional_and_sparse_routes_without_a_table_equal_the_table_lookup(m, d, n, pattern):
    """With positional encoding every grid input is in the table: the route's outputs at the
    sampled cells, its value-map layers (the table's entries) and parameters are the looked-up
    table's, with no property-4 violation."""
    masks = None if pattern is None else pattern_masks(pattern, n)
    X = sample(np.random.default_rng(3), 500, n, d)
    r = yun_route("weighted_shift", X, m, positional=True, masks=masks)
    grid = np.stack(np.unravel_index(np.arange(m ** (n * d)), (m,) * (n * d)), -1)
    digits = quantize(X, m).astype(np.int64)
    net = positional_network(m, d, n, masks)
    G, entries, violations = _table_lookup("weighted_shift", net, grid.reshape(-1, n, d), digits, m)
    assert np.array_equal(r["G"], G)
    assert r["layers_ff_value"] == entries == n * m ** (n * d)
    assert r["property4_violations"] == violations == 0
    assert r["parameters"] == (quantizer_parameters(m, d) + net.parameters()
                               + entries * (3 * d + 1))
    assert r["layers_total"] == d * m + net.attention_layers + entries


@pytest.mark.parametrize("positional", [True, False])
def test_a_code_repeated_on_the_sample_is_refused(monkeypatch, positional):
    """Two different (input, token) pairs with one code, or one pair with two codes, leave the
    value map undefined: the route refuses the sample."""
    import expressivity.universal as universal

    X = sample(np.random.default_rng(4), 200, 3, 1)
    name = "weighted_shift" if positional else "sin_mean"
    monkeypatch.setattr(universal, "run_integer",
                        lambda net, digits: np.zeros(digits.shape[:2], dtype=np.int64))
    with pytest.raises(ValueError, match="repeats a value on the sample"):
        yun_route(name, X, 8, positional=positional)
    # a new code at every draw: the cells drawn twice (4^3 grid inputs, 200 draws) get two
    monkeypatch.setattr(universal, "run_integer",
                        lambda net, digits: np.arange(digits.shape[0] * 3).reshape(-1, 3))
    with pytest.raises(ValueError, match=r"0 code\(s\) shared .*, [1-9]\d* token\(s\) given another"):
        yun_route(name, X, 4, positional=positional)


def test_fewer_grid_tokens_than_n_maps_everything_to_zero():
    """m^d < n: no grid input has distinct tokens; the value table is empty, the output 0."""
    X = sample(np.random.default_rng(0), 50, 3, 1)
    for name in ("sin_mean", "softmax_average"):
        r = yun_route(name, X, 2)
        assert r["layers_ff_value"] == 0 and not r["G"].any()
    assert repeated_tokens(np.array([[[0], [1], [0]], [[0], [1], [2]]]), 3).tolist() == \
        [True, False]
    assert table_size("yun", 2, 3, 1) == 0 and table_size("kajitsuka_sato", 2, 3, 1) == 4
    assert table_size("yun_positional", 2, 3, 1) == 8


def test_ks_route_interpolates_grid():
    m = 4
    digits = np.array([[[0], [1], [3]], [[2], [2], [1]]])       # repeated tokens included
    X = (digits + 0.5) / m
    r = ks_route("sin_mean", X, m, 1.0, 10**4, np.random.default_rng(0))
    assert np.allclose(r["G"], target("sin_mean", X), atol=1e-6)
    assert not r["collapsed"] and r["undecided_gaps"] == 0


def test_lp_errors():
    F = np.zeros((2, 1, 1))
    G = np.array([[[1.0]], [[3.0]]])
    e = lp_errors(F, G)
    assert e["L1"] == 2.0 and e["L2"] == pytest.approx(np.sqrt(5.0))
    # se(mu) = std(e)/sqrt(S); delta method: se(L^p) = L^p se(mu) / (p mu)
    assert e["L1_se"] == pytest.approx(np.std([1.0, 3.0], ddof=1) / np.sqrt(2))
    assert e["L2_se"] == pytest.approx(np.sqrt(5.0) * np.std([1.0, 9.0], ddof=1)
                                       / np.sqrt(2) / (2 * 5.0))
    assert lp_errors(F, F)["L1_se"] == 0.0


def test_bad_input():
    X = sample(np.random.default_rng(0), 5, 3, 1)
    with pytest.raises(ValueError, match="known targets"):
        target("cubic", X)
    with pytest.raises(ValueError, match=r"1/delta .*must be an integer >= 2"):
        yun_route("sin_mean", X, 1)
    with pytest.raises(ValueError, match=r"X must hold finite inputs in \[0, 1\)"):
        yun_route("sin_mean", X + 1.0, 4)
    with pytest.raises(ValueError, match="X must be a non-empty sample of shape"):
        yun_route("sin_mean", X[0], 4)
    with pytest.raises(ValueError, match="lam must be a finite number > 0"):
        ks_route("sin_mean", X, 4, float("nan"), 100, np.random.default_rng(0))
    with pytest.raises(ValueError, match="dps must be an integer >= 16"):
        ks_route("sin_mean", X, 4, 1.0, 100, np.random.default_rng(0), dps=5)
    with pytest.raises(ValueError, match="F and G must have one shape"):
        lp_errors(np.zeros((2, 3, 1)), np.zeros((2, 1, 3)))
    with pytest.raises(ValueError, match="size must be an integer >= 1"):
        sample(np.random.default_rng(0), 0, 3, 1)
    with pytest.raises(ValueError, match="unknown route"):
        table_size("deep", 4, 3, 1)
    assert set(TARGETS) >= {"sin_mean", "softmax_average", "weighted_shift"}


def test_ks_certificate_decides_sub_rounding_gaps_in_ball_arithmetic():
    """At lam = 80 the softmax saturates and context values of different labels lie closer than
    float64's rounding bound (down to 1e-35): they are decided in ball arithmetic, all separated,
    and the FFN (which float64 could not evaluate) is not built."""
    X = sample(np.random.default_rng(0), 20, 3, 1)
    r = ks_route("sin_mean", X, 4, 80.0, 10**4, np.random.default_rng(0))
    assert r["gaps_in_arb"] > 0 and r["undecided_gaps"] == 0 and r["collapsed"]
    assert 0 < r["min_separation"] < 1e-30
    assert np.isnan(r["memorization_residual"]) and "ball arithmetic" in r["precision"]
    assert "float64 cannot resolve" in r["precision"] and r["bits_per_parameter"] > 100
    # the exact network's outputs: f_bar at every cell, repeated tokens included
    assert np.array_equal(r["G"], target("sin_mean", (np.floor(X * 4) + 0.5) / 4))


def test_ks_certificate_leaves_unresolvable_gaps_undecided():
    """At lam = 2000 the gaps fall below 2^-2048: no ball up to ARB_BITS decides them."""
    X = sample(np.random.default_rng(0), 5, 3, 1)
    r = ks_route("sin_mean", X, 4, 2000.0, 10**4, np.random.default_rng(0))
    assert r["undecided_gaps"] > 0 and np.isnan(r["memorization_residual"])


def test_ball_gap_of_a_point_with_itself_is_undecided():
    """The same (token, multiset) twice: no precision separates it (a conflict, were the labels
    different)."""
    from expressivity.universal import _ball_gap

    cls = np.array([[[0, 1], [2, 3], [4, 5]], [[0, 1], [2, 3], [4, 5]]])
    v = np.array([0.6, 0.8])
    assert _ball_gap(cls, 1, 4, 8, v, 1.0, 0.01 * v, np.array([1.0, -0.5])) is None
    log2_gap = _ball_gap(cls, 0, 1, 8, v, 1.0, 0.01 * v, np.array([1.0, -0.5]))
    assert log2_gap is not None and -60 < log2_gap < 10


def test_sparse_routes_give_the_dense_positional_outputs_with_fewer_connections():
    """Yun et al. 2020b: under STRIDED attention the positional route's contextual mapping still
    separates every grid input, so its outputs are the dense route's; each layer sees fewer keys,
    and the pattern's cycle adds layers."""
    X = sample(np.random.default_rng(2), 300, 4, 1)
    dense = yun_route("weighted_shift", X, 4, positional=True)
    sparse = yun_route("weighted_shift", X, 4, positional=True, masks=pattern_masks("strided", 4))
    assert np.array_equal(dense["G"], sparse["G"])
    assert dense["property4_violations"] == sparse["property4_violations"] == 0
    assert dense["connections_per_layer"] == 16 > sparse["connections_per_layer"]
    assert sparse["layers_attention"] >= dense["layers_attention"]
    with pytest.raises(ValueError, match="positional"):
        yun_route("weighted_shift", X, 4, masks=pattern_masks("strided", 4))
