"""The one-layer memorizer (Kajitsuka & Sato Cor. 1) and the parameter-count table."""

import math

import numpy as np
import pandas as pd
import pytest

from expressivity.datasets import token_separated_dataset
from expressivity.experiments.memorization import loglog_slope, parameter_table
from expressivity.rank1.contexts import contexts
from expressivity.rank1.layer import FLOAT64_DIGITS, lam_theory, output_scale
from expressivity.rank1.memorizer import memorize
from expressivity.rank1.projection import draw_projection
from expressivity.rank1.separation import separation_certified


def small(seed=0, V=4, d=2, n=2):  # noqa: N803
    rng = np.random.default_rng(seed)
    ds = token_separated_dataset(rng, V, d, n, math.comb(V, n), 3, eps=1.0)
    v, _, _ = draw_projection(rng, ds.vocab)
    return ds, v


def test_memorizer_at_lam_theory_reproduces_every_label():
    ds, v = small()
    lt = lam_theory(ds.n, ds.d, ds.vocab_size, ds.eps, ds.r_min)
    cx = contexts(ds, v)
    need = separation_certified(ds, cx, v, lt, output_scale(ds.eps, ds.r_max), v)["digits_needed"]
    res = memorize(ds, v, lt, int(need))
    assert res.n_correct == res.n_points == ds.N * ds.n
    assert res.n_parameters == 5 * ds.d + 2 * ds.N * ds.n
    assert res.log10_min_feature_gap < -FLOAT64_DIGITS  # needs far more than float64


def test_memorizer_at_float64_precision_fails():
    """Built to fail: at lam_theory the features are closer than 16 digits resolve."""
    ds, v = small()
    lt = lam_theory(ds.n, ds.d, ds.vocab_size, ds.eps, ds.r_min)
    with pytest.raises(ValueError, match="not certified distinct"):
        memorize(ds, v, lt, digits_needed=16 - 40 + 1, guard=40)


def test_parameter_table_slopes():
    N = np.array([100, 300, 1000])  # noqa: N806
    df = pd.DataFrame({"d": 4, "V": 16, "n": 3, "N": N, "n_parameters": 5 * 4 + 2 * 3 * N})
    out = parameter_table(df)
    assert 0.9 < out["series_slope"].iloc[0] <= 1.0
    assert math.isclose(loglog_slope(N, np.sqrt(3 * N)), 0.5)
    assert np.allclose(out["optimal_order"], np.sqrt(3 * N))
