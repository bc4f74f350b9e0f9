"""Vector-by-vector checks of the Boltzmann operator properties, including float64 collapse."""

import numpy as np
from cases import HVS_BOLTZMANN, HVS_CURVES

from expressivity.boltzmann import check_vector, decide, rounding_slack, signed_float
from expressivity.experiments.hardmax_vs_softmax.boltzmann import (
    check_chunk,
    check_vectors,
    limit_curves,
)

SPREADS = np.array(HVS_BOLTZMANN["spreads"])


def test_all_properties_hold_on_random_vectors():
    rows = check_vectors(**HVS_BOLTZMANN)
    for r in rows:
        assert r["upper_margin"] >= 0 and r["lower_margin"] >= 0 and r["limit_margin"] >= 0
        assert r["append_ok"]
        assert r["rank1_abs_error"] <= r["rank1_tolerance"]


def test_rows_do_not_depend_on_chunking():
    keys = {k: v for k, v in HVS_BOLTZMANN.items() if k not in ("first", "last")}
    whole = check_vectors(**{**HVS_BOLTZMANN, "last": 20})
    parts = [row for chunk in range(3)
             for row in check_chunk(chunk=chunk, n_chunks=3, n_vectors=20, **keys)]
    assert whole == parts


def test_limit_curves_stay_between_the_bounds():
    for row in limit_curves(**HVS_CURVES):
        assert row["lower_bound"] - 1e-9 <= row["boltz_over_beta"] <= row["max"] + 1e-9


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
    row = check_vectors(seed=20240726, first=2633, last=2634, size_min=2, size_max=64,
                        scale_max=1e3, tie_fraction=0.1, spreads=list(SPREADS), mp_dps=80)[0]
    assert 0 < row["upper_margin"] < 1e-70 and row["precision"] == "mpmath-160"


def test_signed_float_keeps_the_sign_of_tiny_negatives():
    import mpmath

    assert signed_float(mpmath.mpf("-1e-400")) < 0
    assert signed_float(mpmath.mpf("1e-400")) == 0.0


def test_rounding_slack_grows_with_size_and_scale():
    assert rounding_slack(np.ones(64)) > rounding_slack(np.ones(2))
    assert rounding_slack(1e3 * np.ones(4)) > rounding_slack(np.ones(4))
