"""Vectorised slopes, the TOST equivalence verdict and the Cochran-Armitage trend test."""

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from expressivity.fit import line_fit
from expressivity.slope_tests import BEYOND, EQUIVALENT, UNDECIDED, equivalence, lines
from expressivity.trend_test import cochran_armitage


@settings(deadline=None)
@given(st.lists(st.floats(-100, 100), min_size=4, max_size=12))
def test_lines_is_line_fit_row_by_row(ys):
    assume(np.ptp(ys) > 1e-6)  # linregress gives no standard error for a constant (lines: 0)
    x = np.arange(len(ys), dtype=float)
    fit = line_fit(x, ys)
    a, b, se = lines(x, np.array([ys, ys]))
    assert np.allclose(b, fit.slope, atol=1e-9) and np.allclose(a, fit.intercept, atol=1e-7)
    assert np.allclose(se, fit.slope_se, atol=1e-9, equal_nan=True)


def test_equivalence_has_three_verdicts_and_more_data_decide():
    # slope 0 with a small error: equivalent; far beyond the margin: beyond; wide: undecided
    v = equivalence([0.0, 0.5, 0.0], [0.01, 0.01, 0.2], 20, 0.1)
    assert list(v) == [EQUIVALENT, BEYOND, UNDECIDED]
    # the same slope at the margin's edge is never equivalent, however precise
    assert equivalence(0.1, 1e-6, 1000, 0.1) != EQUIVALENT
    # a Bonferroni family widens the interval for 'beyond' only
    assert equivalence(0.2, 0.04, 10, 0.1, family=1) == BEYOND
    assert equivalence(0.2, 0.04, 10, 0.1, family=1000) == UNDECIDED
    with pytest.raises(ValueError, match="margin"):
        equivalence(0.0, 0.1, 10, 0.0)


def test_cochran_armitage_sees_a_falling_proportion():
    trials = np.array([100, 100, 100, 100])
    z, p = cochran_armitage([95, 90, 70, 40], trials, [0, 1, 2, 3])
    assert z < -5 and p < 1e-6
    z, p = cochran_armitage([50, 52, 49, 51], trials, [0, 1, 2, 3])
    assert abs(z) < 1 and p > 0.1
    z, p = cochran_armitage([100, 100, 100, 100], trials, [0, 1, 2, 3])  # no variation: no test
    assert np.isnan(z) and np.isnan(p)
    z, _ = cochran_armitage(np.array([[95, 90, 70, 40], [40, 70, 90, 95]]), trials, [0, 1, 2, 3])
    assert z[0] < 0 < z[1] and z[0] == pytest.approx(-z[1])


def test_cochran_armitage_refuses_bad_counts():
    with pytest.raises(ValueError, match="successes"):
        cochran_armitage([5, 20], [10, 10], [0, 1])
