"""Zhang et al. 2017's ReLU interpolant and the one-layer memorizer (Kajitsuka & Sato Cor. 1)."""

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from expressivity import contextual_mapping as cm
from expressivity.datasets import token_separated_dataset
from expressivity.memorization import (
    fit_relu_interpolant,
    loglog_slope,
    memorize,
    parameter_table,
)


@settings(max_examples=40, deadline=None)
@given(pts=st.lists(st.tuples(st.integers(-10**6, 10**6), st.integers(-5, 5)), min_size=1,
                    max_size=30, unique_by=lambda p: p[0]))
def test_interpolant_is_exact_in_rationals(pts):
    z = [Fraction(a, 1000) for a, _ in pts]
    y = [Fraction(b) for _, b in pts]
    net = fit_relu_interpolant(z, y)
    assert [net(x) for x in z] == y
    assert net.evaluate_many(z) == y
    assert net.n_weights == 2 * len(z)


def test_coinciding_points_are_refused():
    with pytest.raises(ValueError, match="coincide"):
        fit_relu_interpolant([1.0, 2.0, 1.0], [0, 1, 2])


def small(seed=0, V=4, d=2, n=2):  # noqa: N803
    rng = np.random.default_rng(seed)
    ds = token_separated_dataset(rng, V, d, n, math.comb(V, n), 3, eps=1.0)
    v, _, _ = cm.draw_projection(rng, ds.vocab)
    return ds, v


def test_memorizer_at_lam_theory_reproduces_every_label():
    ds, v = small()
    lt = cm.lam_theory(ds.n, ds.d, ds.vocab_size, ds.eps, ds.r_min)
    cx = cm.contexts(ds, v)
    need = cm.separation_certified(ds, cx, v, lt, ds.eps / (4 * ds.r_max), v)["digits_needed"]
    res = memorize(ds, v, lt, int(need))
    assert res.n_correct == res.n_points == ds.N * ds.n
    assert res.n_parameters == 5 * ds.d + 2 * ds.N * ds.n
    assert res.log10_min_feature_gap < -cm.FLOAT64_DIGITS  # needs far more than float64


def test_memorizer_at_float64_precision_fails():
    """Built to fail: at lam_theory the features are closer than 16 digits resolve."""
    ds, v = small()
    lt = cm.lam_theory(ds.n, ds.d, ds.vocab_size, ds.eps, ds.r_min)
    with pytest.raises(ValueError, match="not certified distinct"):
        memorize(ds, v, lt, digits_needed=16 - 40 + 1, guard=40)


def test_parameter_table_slopes():
    import pandas as pd

    N = np.array([100, 300, 1000])  # noqa: N806
    df = pd.DataFrame({"d": 4, "V": 16, "n": 3, "N": N, "n_parameters": 5 * 4 + 2 * 3 * N})
    out = parameter_table(df)
    assert 0.9 < out["series_slope"].iloc[0] <= 1.0
    assert math.isclose(loglog_slope(N, np.sqrt(3 * N)), 0.5)
    assert np.allclose(out["optimal_order"], np.sqrt(3 * N))
