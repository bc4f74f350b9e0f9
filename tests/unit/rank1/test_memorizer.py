"""The one-layer memorizer of Kajitsuka & Sato 2024, Cor. 1 (expressivity.rank1.memorizer): every
label reproduced at the digits the certified separation asks for, never in float64."""

import math

import pytest
from cases import rank1_case

from expressivity.parameter_count import construction_parameters
from expressivity.rank1.contexts import contexts
from expressivity.rank1.layer import FLOAT64_DIGITS, Rank1Layer, lam_theory
from expressivity.rank1.memorizer import memorize
from expressivity.rank1.separation import separation_certified


def test_memorizer_at_lam_theory_reproduces_every_label():
    ds, v, _, _ = rank1_case(0, V=4)
    lt = lam_theory(ds.n, ds.d, ds.vocab_size, ds.eps, ds.r_min)
    cx = contexts(ds, v)
    need = separation_certified(ds, cx, Rank1Layer.for_dataset(ds, v, lt)).digits_needed
    res = memorize(ds, v, lt, int(need))
    assert res.n_correct == res.n_points == ds.N * ds.n
    assert res.lam == lt and res.digits_needed == int(need)
    assert res.n_parameters == 5 * ds.d + 2 * ds.N * ds.n
    assert res.n_parameters == construction_parameters(ds.N, ds.n, ds.d)["total"]
    assert res.log10_min_feature_gap < -FLOAT64_DIGITS  # needs far more than float64
    # the error is kept as its log10 (far below float64's smallest double), never rounded to 0
    assert res.log10_max_abs_error < -400 or res.log10_max_abs_error == -math.inf


def test_memorizer_at_float64_precision_fails():
    """Built to fail: at lam_theory the features are closer than 16 digits resolve."""
    ds, v, _, _ = rank1_case(0, V=4)
    lt = lam_theory(ds.n, ds.d, ds.vocab_size, ds.eps, ds.r_min)
    with pytest.raises(ValueError, match="not certified distinct"):
        memorize(ds, v, lt, digits_needed=16 - 40 + 1, guard=40)
    with pytest.raises(ValueError, match="lam must be a finite number >= 0"):
        memorize(ds, v, -1.0, 10)
