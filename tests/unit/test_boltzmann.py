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
    assert decide(1.0, 1e-10, lambda: 99.0, 50) == (1.0, "float64")
    assert decide(1e-12, 1e-10, lambda: 2e-12, 50) == (2e-12, "mpmath-50")


def test_signed_float_keeps_the_sign_of_tiny_negatives():
    import mpmath

    assert signed_float(mpmath.mpf("-1e-400")) < 0
    assert signed_float(mpmath.mpf("1e-400")) == 0.0


def test_rounding_slack_grows_with_size_and_scale():
    assert rounding_slack(np.ones(64)) > rounding_slack(np.ones(2))
    assert rounding_slack(1e3 * np.ones(4)) > rounding_slack(np.ones(4))
