"""Grid quantization by feed-forward layers (Yun et al. 2020a, Lemma 5 as reconstructed)."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from expressivity.quantization import (
    check_budget,
    grid_digits,
    inverse_delta,
    quantize,
    quantizer_parameters,
)
from expressivity.reference.universal_approximation import quantize_reference


@settings(max_examples=50, deadline=None)
@given(st.integers(2, 40), st.integers(1, 4), st.integers(1, 3), st.integers(0, 2**31))
def test_quantize_is_floor(m, n, d, seed):
    X = np.random.default_rng(seed).random((7, n, d))
    Z = quantize(X, m)
    assert np.array_equal(Z, quantize_reference(X, m))  # exact integers, no rounding drift
    assert Z.min() >= 0 and Z.max() <= m - 1


@pytest.mark.parametrize("x,m,digit", [(0.6, 5, 2), (1 / 3, 3, 0), (2 / 3, 3, 1), (0.7, 10, 6),
                                       (0.5, 2, 1), (0.25, 4, 1), (0.0, 7, 0)])
def test_quantize_at_cell_boundaries(x, m, digit):
    """The double ``x`` next to ``k/m`` lies in cell ``floor(m x)`` of its exact value, although
    ``m x`` can round onto ``k`` in float64 (``0.6 * 5 == 3.0``, the double 0.6 is below 3/5)."""
    assert quantize([[x]], m)[0, 0] == digit == quantize_reference([[x]], m)[0, 0]


@settings(max_examples=50, deadline=None)
@given(st.integers(2, 40), st.integers(0, 2**31))
def test_quantize_equals_reference_next_to_grid_points(m, seed):
    """Implementation equals reference on the doubles nearest to, and next to, every ``k/m``."""
    k = np.arange(m) / m
    X = np.stack([k, np.nextafter(k, 1), np.maximum(np.nextafter(k, -1), 0.0)], axis=-1)
    X = X[np.random.default_rng(seed).permutation(m)][:, :, None]
    assert np.array_equal(quantize(X, m), quantize_reference(X, m))


def test_grid_digits_enumerates_every_input_once():
    g = grid_digits(3, 2, 2, budget=81)
    assert g.shape == (81, 2, 2)
    assert len({tuple(x.ravel()) for x in g}) == 81


def test_budget_refused_with_size_and_budget():
    with pytest.raises(ValueError, match="has 6561 inputs, over the budget of 1000"):
        grid_digits(3, 4, 2, budget=1000)
    with pytest.raises(ValueError, match="over the budget"):
        check_budget(11, 10)


@pytest.mark.parametrize("delta,m", [(Fraction(1, 3), 3), ("1/7", 7), (0.25, 4), (1 / 3, 3)])
def test_inverse_delta_accepts_one_over_m(delta, m):
    assert inverse_delta(delta) == m


@pytest.mark.parametrize("bad", [0.3, Fraction(2, 5), "1/1", 1.0, 0, -0.5, "x", 3, float("nan")])
def test_inverse_delta_rejects(bad):
    with pytest.raises(ValueError, match="1/m with an integer m >= 2"):
        inverse_delta(bad)


def test_bad_m_and_range():
    with pytest.raises(ValueError, match=r"1/delta .*must be an integer >= 2"):
        quantize(np.zeros((1, 2, 1)), 1)
    with pytest.raises(ValueError, match=r"\[0, 1\)"):
        quantize(np.ones((1, 2, 1)), 4)
    assert quantizer_parameters(4, 2) == 2 * 4 * 7
