"""The L^p rate of the constructed approximations (Yun et al. 2020a Prop. 4, derived)."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from expressivity.approximation_rate import (
    alternative_slopes,
    derived_slope,
    in_asymptotic_range,
    model_band,
    repeated_measure,
    slope_verdict,
)


@settings(max_examples=30, deadline=None)
@given(st.integers(2, 8), st.integers(1, 2), st.integers(2, 4), st.integers(0, 2**31))
def test_repeated_measure_is_the_probability_of_a_shared_cell(m, d, n, seed):
    """Exact count: m^(d n) grid cells, of which m^d (m^d - 1) ... (m^d - n + 1) have distinct
    tokens; the formula equals that fraction."""
    cells = m**d
    distinct = math.prod(cells - i for i in range(n)) if cells >= n else 0
    assert repeated_measure(1 / m, n, d) == pytest.approx(1 - distinct / cells**n, abs=1e-12)


def test_derived_and_alternative_slopes():
    assert derived_slope("yun", 1, 1) == 1 and derived_slope("yun", 1, 2) == 0.5
    assert derived_slope("yun", 2, 2) == 1 and derived_slope("kajitsuka_sato", 1, 2) == 1
    assert alternative_slopes("yun", 1, 2) == [1.0]        # no exceptional set
    assert alternative_slopes("yun", 2, 2) == [0.5]        # exceptional measure delta, not delta^d
    assert alternative_slopes("yun", 1, 1) == []
    assert alternative_slopes("kajitsuka_sato", 1, 2) == [0.5]
    assert alternative_slopes("yun_positional", 2, 1) == []
    assert in_asymptotic_range(1 / 12, 3, 1) and not in_asymptotic_range(1 / 8, 3, 1)
    lo, hi = model_band(1 / np.array([12, 16, 32]), "yun", 3, 1, 2)
    assert 0.45 < lo < 0.5 and 0.9 < hi < 1.0
    assert model_band([0.1], "kajitsuka_sato", 3, 1, 2) == (1.0, 1.0)


def _noisy(delta, slope, seed, noise=0.02):
    rng = np.random.default_rng(seed)
    return 0.7 * delta**slope * np.exp(noise * rng.standard_normal(len(delta)))


def test_verdicts():
    delta = 1 / np.array([2, 4, 8, 12, 16, 24, 32, 48, 64])
    v = slope_verdict(delta, _noisy(delta, 0.5, 0), route="yun", n=3, d=1, p=2)
    assert v.verdict == "consistent" and v.decisive is True and v.points == 6
    # a rate of 1 for Yun's L^2 at d = 1 is the alternative: not the derived slope
    v = slope_verdict(delta, _noisy(delta, 1.0, 1, noise=0.001), route="yun", n=3, d=1, p=2)
    assert v.verdict == "inconsistent" and v.decisive is False
    # d = 2, L^1: a slope above 1 within the two-term band is pre-asymptotic, beyond it is not
    delta2 = 1 / np.array([4, 5, 6, 7, 8])
    v = slope_verdict(delta2, _noisy(delta2, 1.5, 2, noise=0.001), route="yun", n=3, d=2, p=1)
    assert v.verdict == "pre-asymptotic"
    v = slope_verdict(delta2, _noisy(delta2, 2.5, 3, noise=0.001), route="yun", n=3, d=2, p=1)
    assert v.verdict == "inconsistent"
    assert slope_verdict(delta[:5], _noisy(delta[:5], 1, 4), route="yun", n=3, d=1, p=1) is None


def test_bad_input():
    with pytest.raises(ValueError, match="unknown route"):
        derived_slope("deep", 1, 1)
    with pytest.raises(ValueError, match="delta must lie in"):
        repeated_measure(0.0, 3, 1)
    with pytest.raises(ValueError, match="n must be an integer >= 1"):
        repeated_measure(0.5, 0, 1)
    with pytest.raises(ValueError, match="one length"):
        slope_verdict([0.1, 0.2], [1.0], route="yun", n=3, d=1, p=1)
    with pytest.raises(ValueError, match="level must lie"):
        slope_verdict([0.1, 0.2], [1.0, 2.0], route="yun", n=3, d=1, p=1, level=1.0)
