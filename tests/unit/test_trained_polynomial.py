"""Trained polynomial blocks (expressivity.trained_polynomial): the degree bound 3^L of their
features and the protocol's metric."""

import numpy as np
import pytest
import torch

from expressivity.polynomial import degree_bound, embed, make_blocks
from expressivity.trained_polynomial import TrainedBlocks, floor_accuracy

torch.set_default_dtype(torch.float64)


def _features(blocks, softmax, x, seed=0):
    init = np.random.default_rng(seed)
    forms = make_blocks(1, blocks, init)
    model = TrainedBlocks(forms.tokens, blocks, softmax, init)
    with torch.no_grad():
        return model(torch.tensor(embed(forms, x))).numpy()


def _poly_residual(Z, x, degree):
    """Largest relative residual of each feature's least-squares fit by a polynomial of
    ``degree`` in x (one variable)."""
    V = np.vander(x[:, 0], degree + 1)
    fit = V @ np.linalg.lstsq(V, Z, rcond=None)[0]
    return float(np.max(np.abs(fit - Z)) / np.max(np.abs(Z)))


@pytest.mark.parametrize("blocks", [1, 2])
def test_softmax_free_features_have_degree_three_to_the_L(blocks):
    """At random weights the features are polynomials of degree exactly 3^L: a fit of degree 3^L
    is exact to rounding, one of degree 3^L - 1 leaves a residual decades above it (the top
    coefficient, a product of 3^L small random weights, is small but not zero)."""
    x = np.linspace(-1, 1, 200)[:, None]
    Z = _features(blocks, False, x)
    exact = _poly_residual(Z, x, degree_bound(blocks))
    assert exact < 1e-12
    assert _poly_residual(Z, x, degree_bound(blocks) - 1) > 1e3 * exact


def test_softmax_features_exceed_the_degree_bound():
    """A softmax block's features are analytic, not polynomials: at the same weights their fit of
    degree 3 (the softmax-free block's exact degree) leaves a residual far above rounding."""
    x = np.linspace(-1, 1, 200)[:, None]
    assert _poly_residual(_features(1, True, x), x, degree_bound(1)) > 1e-9


def test_floor_accuracy_is_the_fraction_of_decades_to_the_band():
    assert floor_accuracy(1e-14, 1e-15, 1.0) == 1.0
    assert floor_accuracy(1e-7, 1e-15, 1.0) == pytest.approx(0.5)
    assert floor_accuracy(10.0, 1e-15, 1.0) == 0.0
    with pytest.raises(ValueError, match="floor"):
        floor_accuracy(1e-3, 1e-1, 2.0)
