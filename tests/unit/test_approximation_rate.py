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
    model_slope,
    repeated_measure,
    slope_verdict,
    two_term_error,
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


def _slope(delta, values) -> float:
    return float(np.mean(model_slope(delta, values, 0.95)))


def test_the_two_term_model_mixes_its_terms_by_the_repeated_measure():
    """((1 - P) A^p + P B^p)^(1/p): its p-th power is the sum of the terms' p-th powers, so its
    slope lies between the two terms' slopes and nearer the one with the larger share (here the
    repeated-token term for L^2 at d = 1, the distinct-token term for L^1 with a small B); a term
    missing (NaN) leaves the value undefined."""
    delta = 1 / np.array([12.0, 16, 24, 32, 48, 64])
    P = np.array([repeated_measure(x, 3, 1) for x in delta])
    for p, B, dominant in ((2, 0.6, "repeated"), (1, 0.01, "distinct")):
        model = two_term_error(delta, 0.5 * delta, np.full(6, B), 3, 1, p)
        terms = {"distinct": ((1 - P) * (0.5 * delta) ** p) ** (1 / p),
                 "repeated": (P * B**p) ** (1 / p)}
        assert model**p == pytest.approx(terms["distinct"]**p + terms["repeated"]**p)
        assert (terms[dominant] ** p > model**p / 2).all()
        slope = _slope(delta, model)
        s = {name: _slope(delta, term) for name, term in terms.items()}
        other = ({"distinct", "repeated"} - {dominant}).pop()
        assert min(s.values()) < slope < max(s.values())
        assert abs(slope - s[dominant]) < abs(slope - s[other])
    B = np.full(6, 0.6)
    B[0] = np.nan
    assert np.isnan(two_term_error(delta, 0.5 * delta, B, 3, 1, 2)[0])
    assert np.isnan(model_slope(delta[:3], [1.0, np.nan, 2.0], 0.95)).all()


def _noisy(delta, slope, seed, noise=0.02):
    rng = np.random.default_rng(seed)
    return 0.7 * delta**slope * np.exp(noise * rng.standard_normal(len(delta)))


def test_verdicts():
    delta = 1 / np.array([2, 4, 8, 12, 16, 24, 32, 48, 64])
    model = two_term_error(delta, 0.5 * delta, np.full(9, 0.6), 3, 1, 2)
    v = slope_verdict(delta, _noisy(delta, 0.5, 0), model, route="yun", n=3, d=1, p=2)
    assert v.verdict == "consistent" and v.decisive is True and v.points == 6
    # a rate of 1 for Yun's L^2 at d = 1 is the alternative: neither the derived slope nor the
    # model's
    v = slope_verdict(delta, _noisy(delta, 1.0, 1, noise=0.001), model, route="yun", n=3, d=1,
                      p=2)
    assert v.verdict == "inconsistent" and v.decisive is False
    # d = 2, L^1: a slope above 1 that the model predicts at these deltas is pre-asymptotic, a
    # steeper one is not
    delta2 = 1 / np.array([4, 5, 6, 7, 8])
    model2 = two_term_error(delta2, 0.5 * delta2, np.full(5, 0.6), 3, 2, 1)
    lo, hi = model_slope(delta2, model2, 0.95)
    v = slope_verdict(delta2, _noisy(delta2, (lo + hi) / 2, 2, noise=0.001), model2,
                      route="yun", n=3, d=2, p=1)
    assert 1 < lo and v.verdict == "pre-asymptotic"
    v = slope_verdict(delta2, _noisy(delta2, 2.5, 3, noise=0.001), model2, route="yun", n=3, d=2,
                      p=1)
    assert v.verdict == "inconsistent"
    assert slope_verdict(delta[:5], _noisy(delta[:5], 1, 4), model[:5], route="yun", n=3, d=1,
                         p=1) is None


def test_bad_input():
    with pytest.raises(ValueError, match="unknown route"):
        derived_slope("deep", 1, 1)
    with pytest.raises(ValueError, match="delta must lie in"):
        repeated_measure(0.0, 3, 1)
    with pytest.raises(ValueError, match="n must be an integer >= 1"):
        repeated_measure(0.5, 0, 1)
    with pytest.raises(ValueError, match="one length"):
        slope_verdict([0.1, 0.2], [1.0], [1.0, 2.0], route="yun", n=3, d=1, p=1)
    with pytest.raises(ValueError, match="one length"):
        slope_verdict([0.1, 0.2], [1.0, 2.0], [1.0], route="yun", n=3, d=1, p=1)
    with pytest.raises(ValueError, match="level must lie"):
        slope_verdict([0.1, 0.2], [1.0, 2.0], [1.0, 2.0], route="yun", n=3, d=1, p=1, level=1.0)
