"""The tanh network of equal parameter count (expressivity.mlp_regression)."""

import numpy as np
import pytest

from expressivity.mlp_regression import _jacobian, _residual, fit_mlp, n_parameters, width_for


@pytest.mark.parametrize("d, parameters, width", [(1, 10, 3), (2, 10, 2), (3, 5, 1), (2, 1, 1)])
def test_width_for_stays_within_the_parameters(d, parameters, width):
    assert width_for(parameters, d) == width
    assert n_parameters(width, d) <= max(parameters, n_parameters(1, d))


def test_jacobian_matches_finite_differences():
    rng = np.random.default_rng(0)
    x, y, h = rng.normal(size=(7, 2)), rng.normal(size=7), 3
    theta = rng.normal(size=n_parameters(h, 2))
    J = _jacobian(theta, x, y, h)
    eps = 1e-6
    numeric = np.stack([(_residual(theta + eps * e, x, y, h) - _residual(theta - eps * e, x, y, h))
                        / (2 * eps) for e in np.eye(len(theta))], axis=1)
    assert np.allclose(J, numeric, atol=1e-7)


def test_fit_recovers_a_network_of_its_own_width():
    rng = np.random.default_rng(1)
    x = rng.uniform(-1, 1, size=(200, 2))
    y = 1.5 * np.tanh(x @ np.array([1.0, -0.5]) + 0.2) - 0.3
    net = fit_mlp(x, y, 1, rng, restarts=3)
    assert net.loss < 1e-12 and net.converged
    assert np.allclose(net(x), y, atol=1e-5)


def test_bad_width_is_refused_naming_it():
    with pytest.raises(ValueError, match="width"):
        fit_mlp(np.zeros((3, 1)), np.zeros(3), 0, np.random.default_rng(0))
