"""The Lemma 6 job (expressivity.experiments.universal_approximation.lemma6): the selective-shift
contextual mapping on every input of a grid, integers where float64 is not exact, softmax at the
derived beta and along its curve."""

import math

import pytest
from cases import UA_LEMMA6

from expressivity.experiments.universal_approximation.lemma6 import lemma6_check
from expressivity.selective_shift import (
    dense_network,
    float64_exact_by_formula,
)


def test_beyond_float64_uses_integers():
    """(2n+1) d log2(1/delta) >= 53: the values exceed 2^52 and the check says so."""
    assert not float64_exact_by_formula(16, 2, 3)
    net = dense_network(16, 2, 3)
    assert not net.float64_exact
    settings = {"beta_min": 4.0, "beta_max": 4.0, "softmax_subset": 64}
    row, curve = lemma6_check(m=2, d=3, n=4, grid_budget=5000, **settings)   # 2^12 = 4096 inputs
    assert row["float64_exact"] and row["matrix_mismatches"] == 0
    # three equal tokens tie: float64 weights 1/3 round, the exact recheck agrees.
    assert row["matrix_mismatches_float64"] > 0 and row["matrix_rechecked_exact"] > 0
    with pytest.raises(ValueError, match="over the budget"):
        lemma6_check(m=16, d=2, n=3, grid_budget=5000, **settings)


def test_lemma6_softmax_row_and_curve():
    row, curve = lemma6_check(m=3, d=1, n=3, grid_budget=1000, beta_min=4.0, beta_max=2048,
                              softmax_subset=27)
    assert row["margin"] == 0.5 and row["error_at_derived"] < row["margin"]
    assert row["collided_inputs_at_derived"] == 0
    # the empirical beta separates the codes on the subset (here every input); the derived one
    # is larger (sufficient) and within a factor of a few
    assert 1 <= row["beta_tightness"] < 4
    assert curve[0]["collided_inputs"] > 0 and curve[0]["error_over_margin"] > 1
    assert curve[-1]["error_over_margin"] <= 1e-9 or curve[-1]["beta"] * 2 > 2048


def test_lemma6_job_settings_are_refused_naming_them():
    with pytest.raises(ValueError, match="beta_min = 8 must be at most beta_max = 4"):
        lemma6_check(m=2, d=1, n=2, grid_budget=10, beta_min=8, beta_max=4, softmax_subset=4)
    with pytest.raises(ValueError, match="softmax_subset must be"):
        lemma6_check(m=2, d=1, n=2, grid_budget=10, beta_min=4, beta_max=8, softmax_subset=0)



@pytest.mark.parametrize("change, named", [({"grid_budget": math.nan}, "budget"),
                                           ({"softmax_subset": True}, "softmax_subset")])
def test_bad_settings_are_refused_naming_them(change, named):
    """Before any work, a ``ValueError`` (or ``TypeError``) whose message names the setting."""
    with pytest.raises((ValueError, TypeError)) as err:
        lemma6_check(m=2, d=1, n=2, **{**UA_LEMMA6, **change})
    assert named in str(err.value), str(err.value)
