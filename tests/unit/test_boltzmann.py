"""Vector-by-vector checks of the Boltzmann operator properties, including float64 collapse."""

import numpy as np

from expressivity.boltzmann import check_vector, check_vectors, decide, rounding_slack, signed_float

SPREADS = np.array([0.1, 1, 10, 100])


def test_all_properties_hold_on_random_vectors():
    rows = check_vectors(3, 0, 300, 2, 64, 1e3, 0.1, list(SPREADS), 80)
    for r in rows:
        assert r["upper_margin"] >= 0 and r["lower_margin"] >= 0 and r["limit_margin"] >= 0
        assert r["append_ok"]
        assert r["rank1_abs_error"] <= r["rank1_tolerance"]


def test_rows_do_not_depend_on_chunking():
    whole = check_vectors(5, 0, 20, 2, 16, 10.0, 0.1, list(SPREADS), 80)
    parts = check_vectors(5, 0, 7, 2, 16, 10.0, 0.1, list(SPREADS), 80) + \
        check_vectors(5, 7, 20, 2, 16, 10.0, 0.1, list(SPREADS), 80)
    assert whole == parts


def test_equal_entries_are_the_equality_case_decided_in_mpmath():
    row = check_vector(np.random.default_rng(0), np.full(5, 7.0), SPREADS, 80)
    assert row["upper_margin"] == 0.0
    assert row["precision"] == "mpmath-80"


def test_decide_uses_float64_only_outside_the_slack():
    assert decide(1.0, 1e-10, lambda digits: 99.0, 50) == (1.0, "float64")
    assert decide(1e-12, 1e-10, lambda digits: 2e-12, 50) == (2e-12, "mpmath-50")


def test_decide_raises_the_precision_until_the_margin_clears_its_slack():
    """A margin below the slack of 80 digits (as for a vector of scale 1e3 whose other entries
    weigh e^-180) is recomputed at 160 digits; one that no precision resolves is undecided."""
    import mpmath

    def margin(digits):  # the true margin is 1e-100; below ~digits its computation is noise
        with mpmath.workdps(digits):
            return mpmath.mpf(10) ** -100 if digits > 110 else mpmath.mpf(10) ** -(digits + 5)

    value, precision = decide(1e-20, 1e-10, margin, 80)
    assert precision == "mpmath-160" and value == float(mpmath.mpf(10) ** -100)
    value, precision = decide(1e-20, 1e-10, lambda digits: mpmath.mpf(10) ** -(digits + 5), 30)
    assert precision == "undecided" and np.isnan(value)
    # the vector that exposed it: its upper margin (about 1e-79 against a scale of 1e3) is positive
    row = check_vectors(20240726, 2633, 2634, 2, 64, 1e3, 0.1, list(SPREADS), 80)[0]
    assert 0 < row["upper_margin"] < 1e-70 and row["precision"] == "mpmath-160"


def test_signed_float_keeps_the_sign_of_tiny_negatives():
    import mpmath

    assert signed_float(mpmath.mpf("-1e-400")) < 0
    assert signed_float(mpmath.mpf("1e-400")) == 0.0


def test_rounding_slack_grows_with_size_and_scale():
    assert rounding_slack(np.ones(64)) > rounding_slack(np.ones(2))
    assert rounding_slack(1e3 * np.ones(4)) > rounding_slack(np.ones(4))
