"""Vector-by-vector checks of the Boltzmann operator properties, decided by float64 or arb balls."""

import math

import numpy as np
import pytest
from cases import HVS_BOLTZMANN
from flint import arb

from expressivity.boltzmann import (
    ball_value,
    boltz_ball,
    check_vector,
    decide,
    precision_ladder,
    rounding_slack,
)
from expressivity.experiments.hardmax_vs_softmax.boltzmann import (
    check_vectors,
)

SPREADS = np.array(HVS_BOLTZMANN["spreads"])


def test_equal_entries_are_the_equality_case_decided_exactly_in_arb():
    row = check_vector(np.random.default_rng(0), np.full(5, 7.0), SPREADS, 80)
    assert row["upper_margin"] == 0.0 and row["limit_margin"] == 0.0
    assert row["precision"] == "arb-80"


def test_boltz_ball_encloses_the_float64_value():
    a = np.array([0.5, -1.0, 2.0, 2.0])
    direct = float(np.sum(a * np.exp(a)) / np.sum(np.exp(a)))
    assert abs(float(boltz_ball(a).mid()) - direct) <= 1e-14
    assert boltz_ball(np.full(3, 2.5)).is_exact()


def test_decide_uses_float64_only_outside_the_slack():
    assert decide(1.0, 1e-10, lambda: arb(99), 50, 0.0) == (1.0, "float64")
    value, precision = decide(1e-12, 1e-10, lambda: arb(2e-12), 50, 0.0)
    assert value == 2e-12 and precision == "arb-50"


def test_decide_raises_the_precision_until_the_ball_excludes_zero():
    """``1 + 10^-150 - 1`` is 0 within the ball at 50 and 100 digits, decided at 200."""
    def margin():
        return (arb(1) + arb(10) ** -150) - arb(1)

    value, precision = decide(0.0, 1e-10, margin, 50, 0.0)
    assert precision == "arb-200" and value == pytest.approx(1e-150, rel=1e-12)
    value, precision = decide(0.0, 1e-10, lambda: arb(0, 1e-300), 50, 0.0)  # never decided
    assert precision == "undecided" and math.isnan(value)


def test_a_margin_mpmath_declared_zero_is_certified_positive():
    """Vector 2633 of the default run: its upper margin (about 1e-79 against a scale of 1e3) was
    read as the equality case by the former mpmath check; the ball certifies it positive."""
    row = check_vectors(seed=20240726, first=2633, last=2634, size_min=2, size_max=64,
                        scale_max=1e3, tie_fraction=0.1, spreads=list(SPREADS), arb_dps=80)[0]
    assert 0 < row["upper_margin"] < 1e-70 and row["precision"] == "arb-160"


def test_precision_ladder_reaches_the_digits_the_spread_needs():
    assert precision_ladder(80, 0.0) == [80, 160, 320, 640]
    ladder = precision_ladder(80, 6000.0)  # e^-6000 needs about 2,600 digits
    assert ladder[-1] >= 2 * (80 + 6000 / math.log(10)) and ladder[-2] < ladder[-1]


def test_ball_value_keeps_the_sign_of_tiny_values():
    assert ball_value(arb(10) ** -400) > 0
    assert ball_value(-(arb(10) ** -400)) < 0
    assert ball_value(arb(0)) == 0.0


def test_rounding_slack_grows_with_size_and_scale():
    assert rounding_slack(np.ones(64)) > rounding_slack(np.ones(2))
    assert rounding_slack(1e3 * np.ones(4)) > rounding_slack(np.ones(4))
    rows = np.array([[1.0, 2.0], [30.0, -1.0]])
    assert rounding_slack(rows) == max(rounding_slack(r) for r in rows)


@pytest.mark.parametrize("a, spreads, dps, match", [
    (np.array([1.0, np.nan]), SPREADS, 80, "finite"),
    (np.array([]), SPREADS, 80, "non-empty"),
    (np.ones(3), np.array([1.0, 0.5]), 80, "increasing"),
    (np.ones(3), np.array([-1.0, 1.0]), 80, "positive"),
    (np.ones(3), SPREADS, 0, "dps"),
])
def test_check_vector_refuses_bad_arguments(a, spreads, dps, match):
    with pytest.raises(ValueError, match=match):
        check_vector(np.random.default_rng(0), a, spreads, dps)
