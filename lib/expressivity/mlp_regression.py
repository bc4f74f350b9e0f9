"""A one-hidden-layer tanh network fitted by least squares: the baseline of equal parameter count
against Fang et al. 2022's frozen blocks (whose only fitted parameters are the ``T`` read-out
weights).

    f(x) = v . tanh(W x + b) + c,   W: (h, d), b: (h,), v: (h,), c: a scalar,

``h (d + 2) + 1`` parameters. The network is fitted to the mean squared error by Levenberg-Marquardt
(full batch, exact Jacobian) from ``restarts`` random initialisations (``W ~ N(0, 1/d)``,
``v ~ N(0, 1/h)``, zero biases), keeping the lowest training loss; whether the best fit converged
is recorded, never assumed. Our design [O]: the papers name no baseline.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from expressivity.arguments import integer


def n_parameters(width: int, d: int) -> int:
    """``h (d + 2) + 1``: the parameters of a width-``h`` network on ``d`` inputs."""
    return width * (d + 2) + 1


def width_for(parameters: int, d: int) -> int:
    """The widest network with at most ``parameters`` parameters (at least one hidden unit)."""
    return max(1, (integer("parameters", parameters, 1) - 1) // (d + 2))


@dataclass(frozen=True)
class TanhMLP:
    """Fitted weights (``W: (h, d)``, ``b, v: (h,)``, ``c``), the training MSE and whether the
    best run converged."""

    W: np.ndarray
    b: np.ndarray
    v: np.ndarray
    c: float
    loss: float
    converged: bool

    def __call__(self, x: np.ndarray) -> np.ndarray:
        return np.tanh(x @ self.W.T + self.b) @ self.v + self.c


def _unpack(theta: np.ndarray, h: int, d: int):
    W = theta[: h * d].reshape(h, d)
    return W, theta[h * d: h * d + h], theta[h * d + h: h * d + 2 * h], theta[-1]


def _residual(theta: np.ndarray, x: np.ndarray, y: np.ndarray, h: int) -> np.ndarray:
    """``f(x_i) - y_i`` for every sample."""
    W, b, v, c = _unpack(theta, h, x.shape[1])
    return np.tanh(x @ W.T + b) @ v + c - y


def _jacobian(theta: np.ndarray, x: np.ndarray, y: np.ndarray, h: int) -> np.ndarray:
    """``d (f(x_i) - y_i) / d theta``, ``(N, h (d + 2) + 1)`` in the order of ``_unpack``."""
    W, b, v, _ = _unpack(theta, h, x.shape[1])
    H = np.tanh(x @ W.T + b)
    D = (1.0 - H**2) * v                              # d f / d (pre-activation), (N, h)
    dW = (D[:, :, None] * x[:, None, :]).reshape(len(x), -1)
    return np.concatenate([dW, D, H, np.ones((len(x), 1))], axis=1)


def fit_mlp(x: np.ndarray, y: np.ndarray, width: int, rng: np.random.Generator,
            restarts: int = 3, max_evaluations: int = 500) -> TanhMLP:
    """The best of ``restarts`` Levenberg-Marquardt fits (MINPACK, through scipy) of a
    width-``width`` network to ``(x, y)``; a fit has converged when MINPACK stops on one of its
    tolerances (1e-10, relative) rather than at ``max_evaluations``."""
    from scipy.optimize import least_squares  # on use, as in expressivity.slope_tests

    h, d = integer("width", width, 1), x.shape[1]
    restarts = integer("restarts", restarts, 1)
    max_evaluations = integer("max_evaluations", max_evaluations, 1)
    best = None
    for _ in range(restarts):
        theta = np.concatenate([rng.normal(0, 1 / np.sqrt(d), h * d), np.zeros(h),
                                rng.normal(0, 1 / np.sqrt(h), h), [0.0]])
        res = least_squares(_residual, theta, jac=_jacobian, args=(x, y, h), method="lm",
                            xtol=1e-10, ftol=1e-10, gtol=1e-10, max_nfev=max_evaluations)
        if best is None or res.cost < best.cost:
            best = res
    W, b, v, c = _unpack(best.x, h, d)
    return TanhMLP(W=W, b=b, v=v, c=float(c), loss=float(2 * best.cost / len(y)),
                   converged=bool(best.status > 0))
