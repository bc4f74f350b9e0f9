"""A standard one-head transformer regressor: the trained baseline against Fang et al. 2022's
frozen blocks in noisy regression (issue 28 item 3). Our design [O]: the papers name no baseline.

Tokens as the frozen blocks' input encoding (``polynomial.embed``): token ``t = 1..T`` of input
``x in R^d`` carries the fixed affine form ``y_t = a_t . x + c_t`` of the blocks' draw
(``polynomial.make_blocks``). One encoder block of Vaswani et al. 2017 (post-LN, as the
``layernorm`` block variant of ``expressivity.polynomial``), model width ``m``, one head of size
``m``, a ReLU MLP of ``h`` hidden units, in row form:

    H_0 = y w_E^T + 1 b_E^T                                            (T, m)
    H_1 = LN(H_0 + softmax(H_0 W_Q (H_0 W_K)^T / sqrt(m)) H_0 W_V W_O)
    H_2 = LN(H_1 + relu(H_1 W_1 + b_1) W_2 + b_2)
    f(x) = beta . (H_2 w_out) + c,

each LN with a gain and a bias per channel (eps 1e-5); the read-out weighs the tokens by
``beta: (T,)`` as the frozen blocks' read-out does, on one learned channel ``H_2 w_out``. Its
``4 m^2 + 2 m h + 8 m + h + T + 1`` parameters (``n_parameters``) are all trained.

``fit_transformers`` trains one replica per draw side by side (``replica_training``), each on its
own data (the draws may differ in size ``N``: the data are padded, and each replica samples its
minibatches from its own ``N`` points), with Adam on minibatches of the squared error, under the
project's protocol (``training_protocol``), evaluated every ``protocol.every`` steps on the whole
training set. The metric is the share of the decades from the targets' mean square down to the
noise level ``sigma^2`` covered by the training MSE (``trained_polynomial.floor_accuracy``); the
target 1 is a training MSE at the noise level (fitting further fits the noise).
"""

from __future__ import annotations

import math

import numpy as np
import torch
from torch import nn

from expressivity.arguments import finite_number, integer
from expressivity.joblog import Progress
from expressivity.replica_training import FlatReplicas, train_replicas
from expressivity.trained_polynomial import floor_accuracy
from expressivity.training_protocol import Protocol

#: LayerNorm's epsilon (PyTorch's default, as ``polynomial.LN_EPS``).
LN_EPS = 1e-5


def n_parameters(width: int, hidden: int, tokens: int) -> int:
    """``4 m^2 + 2 m h + 8 m + h + T + 1``: embedding ``2m``, attention ``4 m^2``, two LayerNorms
    ``4m``, MLP ``2 m h + h + m``, read-out ``m + T + 1``."""
    m, h = integer("width", width, 1), integer("hidden", hidden, 1)
    return 4 * m * m + 2 * m * h + 8 * m + h + integer("tokens", tokens, 1) + 1


class RegressionTransformer(nn.Module):
    """``R`` replicas of the regressor (every parameter ``(R, ...)``), each initialised from its
    own numpy generator in ``init``: ``w_E ~ N(0, 1)``, ``W_Q, W_K, W_V, W_O, w_out ~ N(0, 1/m)``,
    ``W_1 ~ N(0, 2/m)``, ``W_2 ~ N(0, 1/h)``, ``beta ~ N(0, 1/T)``, LN gains 1, biases 0."""

    def __init__(self, tokens: int, width: int, hidden: int, init: list[np.random.Generator],
                 dtype: torch.dtype = torch.float64):
        super().__init__()
        T, m, h = integer("tokens", tokens, 1), integer("width", width, 3), integer("hidden", hidden, 1)
        shapes = {"w_E": ((m,), 1.0), "b_E": ((m,), 0.0), "W_Q": ((m, m), 1 / m),
                  "W_K": ((m, m), 1 / m), "W_V": ((m, m), 1 / m), "W_O": ((m, m), 1 / m),
                  "g_1": ((m,), None), "b_1n": ((m,), 0.0), "W_1": ((m, h), 2 / m),
                  "b_1": ((h,), 0.0), "W_2": ((h, m), 1 / h), "b_2": ((m,), 0.0),
                  "g_2": ((m,), None), "b_2n": ((m,), 0.0), "w_out": ((m,), 1 / m),
                  "beta": ((T,), 1 / T), "c": ((), 0.0)}
        for name, (shape, var) in shapes.items():
            values = [np.ones(shape) if var is None else
                      rng.normal(0.0, math.sqrt(var), size=shape) if var else np.zeros(shape)
                      for rng in init]
            setattr(self, name, nn.Parameter(torch.tensor(np.stack(values), dtype=dtype)))
        self.width = m

    def forward(self, y: torch.Tensor) -> torch.Tensor:
        """Predictions ``(R, n)`` for token values ``y: (R, n, T)``."""
        R, n, T = y.shape
        r = lambda p: p[:, None, None]  # noqa: E731  (R, ...) -> (R, 1, 1, ...)
        H = y[..., None] * r(self.w_E) + r(self.b_E)
        QKV = (H.reshape(R, n * T, -1) @ torch.cat([self.W_Q, self.W_K, self.W_V], 2)).view(
            R, n, T, 3, -1)
        Q, K, V = QKV.unbind(3)
        S = torch.softmax(Q @ K.transpose(-1, -2) / math.sqrt(self.width), dim=-1)
        A = S @ V
        H = _layer_norm(H + (A.reshape(R, n * T, -1) @ self.W_O).view(R, n, T, -1),
                        self.g_1, self.b_1n)
        inner = torch.relu((H.reshape(R, n * T, -1) @ self.W_1).view(R, n, T, -1) + r(self.b_1))
        H = _layer_norm(H + (inner.reshape(R, n * T, -1) @ self.W_2).view(R, n, T, -1)
                        + r(self.b_2), self.g_2, self.b_2n)
        z = (H.reshape(R, n * T, -1) @ self.w_out[..., None]).view(R, n, T)
        return (z * self.beta[:, None]).sum(-1) + self.c[:, None]


def _layer_norm(H: torch.Tensor, gain: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """LayerNorm over the channels of ``H: (R, n, T, m)`` with per-replica ``gain, bias: (R, m)``."""
    centred = H - H.mean(-1, keepdim=True)
    scaled = centred / torch.sqrt((centred**2).mean(-1, keepdim=True) + LN_EPS)
    return scaled * gain[:, None, None] + bias[:, None, None]


class _Regression:
    """The replicas' padded data (``Y: (R, N_max, T)``, ``t: (R, N_max)``, sizes ``N: (R,)``) and
    their minibatches: replica ``r`` draws ``batch`` indices below its ``N_r`` from its own
    generator, ``every`` steps at a time. The metric is evaluated on the first ``eval_points``
    (the draws are independent, so they are a random subset; all of them when fewer)."""

    def __init__(self, model: RegressionTransformer, Y, t, sizes, sigma2, rngs, batch, every,
                 eval_points):
        self.model, self.Y, self.t, self.sizes = model, Y, t, sizes
        self.sigma2, self.rngs, self.size, self.every = sigma2, rngs, batch, every
        self.eval_points = eval_points
        self.block: torch.Tensor | None = None

    def batch(self, step: int) -> list[torch.Tensor]:
        if self.block is None or step % self.every == 0:
            self.block = torch.as_tensor(np.stack([
                rng.integers(0, int(n), size=(self.every, self.size))
                for rng, n in zip(self.rngs, self.sizes, strict=True)]), dtype=torch.long)
        return [self.block[:, step % self.every]]

    def loss(self, rows: torch.Tensor) -> torch.Tensor:
        Y = torch.take_along_dim(self.Y, rows[..., None], 1)
        return ((self.model(Y) - torch.take_along_dim(self.t, rows, 1)) ** 2).mean(1)

    def evaluate(self) -> tuple[torch.Tensor, torch.Tensor]:
        """Per replica the MSE on its first ``eval_points`` training points and its share of
        the decades from their mean square down to the noise level (``floor_accuracy``)."""
        k = min(self.eval_points, self.Y.shape[1])
        n = self.sizes.clamp(max=k)
        mask = torch.arange(k)[None, :] < n[:, None]
        t = self.t[:, :k]
        mse = (((self.model(self.Y[:, :k]) - t) ** 2) * mask).sum(1) / n
        scale = ((t**2) * mask).sum(1) / n
        acc = [floor_accuracy(e, s2, 0.0) if math.isfinite(e) else 0.0
               for e, s2 in zip((mse / scale).tolist(), (self.sigma2 / scale).tolist(),
                                strict=True)]
        return mse.double(), torch.tensor(acc, dtype=torch.float64)

    def keep(self, rows: torch.Tensor) -> None:
        self.Y, self.t, self.sizes, self.sigma2 = (
            v[rows] for v in (self.Y, self.t, self.sizes, self.sigma2))
        self.rngs = [self.rngs[i] for i in rows.tolist()]
        self.block = None


def fit_transformers(y_train: list[np.ndarray], t_train: list[np.ndarray],
                     y_test: list[np.ndarray], *, sigma: float, width: int, hidden: int,
                     init: list[np.random.Generator], protocol: Protocol, lr: float, batch: int,
                     eval_points: int,
                     dtype: torch.dtype = torch.float32, progress: Progress | None = None
                     ) -> list[dict]:
    """Train one replica per draw ``i`` on token values ``y_train[i]: (N_i, T)`` and noisy
    targets ``t_train[i]: (N_i,)``, standardised (its mean ``mu_i`` and standard deviation
    ``s_i``; the noise level becomes ``sigma / s_i``), ``init[i]`` drawing its weights, then its
    minibatches, until ``protocol`` stops it (its metric evaluated on each replica's first
    ``eval_points`` training points); returns per replica the monitor's result, its
    learning rate and its predictions ``"prediction" = mu_i + s_i f(y_test[i])`` at the stop.
    ``progress`` counts steps (of the longest run)."""
    if not (len(y_train) == len(t_train) == len(y_test) == len(init) >= 1):
        raise ValueError("y_train, t_train, y_test and init need one entry per replica, got "
                         f"{len(y_train)}, {len(t_train)}, {len(y_test)}, {len(init)}")
    if not finite_number("sigma", sigma) > 0:
        raise ValueError(f"sigma must be > 0, got {sigma!r}")
    batch, eval_points = integer("batch", batch, 1), integer("eval_points", eval_points, 1)
    mu = np.array([v.mean() for v in t_train])
    sd = np.array([v.std() for v in t_train])
    sizes = torch.tensor([len(v) for v in t_train])
    N = int(sizes.max())
    pad = lambda parts: torch.tensor(np.stack([  # noqa: E731
        np.pad(p, [(0, N - len(p))] + [(0, 0)] * (p.ndim - 1)) for p in parts]), dtype=dtype)
    model = RegressionTransformer(y_train[0].shape[1], width, hidden, init, dtype)
    params = FlatReplicas(model)
    job = _Regression(model, pad(y_train), pad([(v - m) / s for v, m, s in zip(
        t_train, mu, sd, strict=True)]), sizes, torch.tensor(sigma**2 / sd**2, dtype=dtype),
        list(init), batch, protocol.every, eval_points)
    test = torch.tensor(np.stack(y_test), dtype=dtype)
    predictions: list[np.ndarray | None] = [None] * len(init)

    def keep_prediction(replica: int, row: int) -> None:
        with torch.no_grad():
            f = model(test[replica][None].expand(params.replicas, -1, -1))[row]
        predictions[replica] = mu[replica] + sd[replica] * f.double().numpy()

    monitors, _ = train_replicas(params, job, protocol, lr, on_stop=keep_prediction,
                                 progress=progress)
    return [{**m.result(), "lr": lr, "prediction": p}
            for m, p in zip(monitors, predictions, strict=True)]
