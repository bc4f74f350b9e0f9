"""Fang et al.'s blocks trained instead of fixed: random initial weights, Adam, a least-squares
read-out (issue 28 item 3).

The token states are those of ``expressivity.polynomial.embed`` (row ``t``: ``[y_t e_t, e_t, 1]``,
width ``w = 2T + 1``); block ``b`` has trained weights ``W_Q^b, W_K^b: (w, T)`` and ``W_V^b: (w, 1)``
drawn ``N(0, 1 / w)``, and writes its attention output into the scalar slot ``z`` (the fixed
``W_O``):

    z <- z + S (X W_V),   S = (X W_Q)(X W_K)^T  (softmax-free)  or  softmax((X W_Q)(X W_K)^T).

The features are the slots ``z_t`` after ``L`` blocks; the read-out ``beta`` is never trained but
eliminated (variable projection): the loss is the mean squared residual of the target's
least-squares projection onto the features' span, ``|(I - Q Q^T) y|^2 / N`` with ``Z = QR``.

Degree bound (ours [O]): every entry of the initial state is affine in ``x``; a softmax-free block
multiplies three forms linear in the state, so if the state has degree ``D`` the new slot has
degree ``<= 3 D``, and after ``L`` blocks ``<= 3^L``. One trained block can therefore reach degree
3, beyond the fixed construction's ``L`` (``(1 + y_t)^L``); no weights reach a polynomial of exact
degree ``> 3^L``. A softmax block's features are not polynomials (except at constant scores, where
the block is affine and the degree stays 1).

The seeds of a cell train side by side, one replica each (``expressivity.replica_training``: Adam
with a learning rate per replica, a replica leaves the batch when the protocol stops it).
"""

from __future__ import annotations

import math

import numpy as np
import torch

from expressivity.polynomial import embed, make_blocks, n_tokens, readout_floor, relative_error
from expressivity.replica_training import FlatReplicas, train_replicas
from expressivity.training_protocol import Protocol

#: The unit roundoff of float64, the lowest floor a read-out can have.
EPS = float(np.finfo(float).eps) / 2


def floor_accuracy(error: float, floor: float, band: float) -> float:
    """The protocol's metric of a regression run: the fraction of the decades down to the
    read-out's float64 floor (widened by ``band`` decades of rounding) that the error has covered,
    ``log10(error) / log10(floor 10^band)`` clipped to [0, 1]; 1 exactly when ``error <= floor
    10^band``."""
    goal = math.log10(floor) + band
    if goal >= 0:
        raise ValueError(f"the floor with its band must be below a relative error of 1, got "
                         f"floor {floor!r}, band {band!r}")
    if error <= 10.0**goal:
        return 1.0
    return float(min(max(math.log10(error) / goal, 0.0), 1.0))


class TrainedBlocks(torch.nn.Module):
    """``R = len(inits)`` replicas of ``L`` trainable blocks on ``T`` tokens (see the module
    docstring), each weight ``(R, L, ...)``; replica ``r`` draws its weights from ``inits[r]`` (a
    numpy generator, so a softmax and a softmax-free run can start from the same weights).
    ``X: (R, N, T, 2T + 1)`` -> the slots ``(R, N, T)``."""

    def __init__(self, tokens: int, blocks: int, softmax: bool,
                 inits: list[np.random.Generator]):
        super().__init__()
        w = 2 * tokens + 1
        drawn = [[torch.tensor(init.normal(0.0, 1.0 / math.sqrt(w), size=(blocks, w, cols)))
                  for cols in (tokens, tokens, 1)] for init in inits]
        self.W_Q, self.W_K, self.W_V = (torch.nn.Parameter(torch.stack(ws))
                                        for ws in zip(*drawn, strict=True))
        self.softmax = softmax

    def forward(self, X: torch.Tensor) -> torch.Tensor:
        for b in range(self.W_Q.shape[1]):
            W_Q, W_K, W_V = (W[:, b].unsqueeze(1) for W in (self.W_Q, self.W_K, self.W_V))
            S = (X @ W_Q) @ (X @ W_K).transpose(-1, -2)
            if self.softmax:
                S = torch.softmax(S, dim=-1)
            X = torch.cat([X[..., :-1], X[..., -1:] + S @ (X @ W_V)], dim=-1)
        return X[..., -1]


def projection_loss(Z: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """``|(I - Q Q^T) y|^2 / N`` with ``Z = Q R`` per replica (``Z: (R, N, T)``, ``y: (N,)``):
    the training loss of each replica's best read-out, ``(R,)``."""
    Q, _ = torch.linalg.qr(Z)
    fitted = Q @ (Q.transpose(-1, -2) @ y.unsqueeze(-1))
    return ((y.unsqueeze(-1) - fitted) ** 2).mean((-2, -1))


def readout(Z_train: np.ndarray, Z_test: np.ndarray, y_train: np.ndarray, y_test: np.ndarray
            ) -> tuple[float, float]:
    """Max relative test error of the least-squares read-out (fitted on the training points) and
    the float64 floor of that read-out on these features (``polynomial.readout_floor``, never
    below the unit roundoff); ``(inf, nan)`` when a feature is not finite."""
    if not (np.isfinite(Z_train).all() and np.isfinite(Z_test).all()):
        return math.inf, math.nan
    beta, *_ = np.linalg.lstsq(Z_train, y_train, rcond=None)
    # no read-out rounds below the unit roundoff (an exact 0 would make log10 -inf)
    return relative_error(Z_test @ beta, y_test), max(readout_floor(Z_train, Z_test, y_train), EPS)


class _Regression:
    """The job ``replica_training.train_replicas`` runs: the projection loss on the training
    points; the metric ``floor_accuracy`` of each replica's test error against its floor (0, and
    the loss inf, where a feature is not finite). ``last[row]`` is the row's latest error and
    floor."""

    def __init__(self, model: TrainedBlocks, X_train: torch.Tensor, X_test: torch.Tensor,
                 y_train: np.ndarray, y_test: np.ndarray, band: float):
        self.model, self.X_train, self.X_test = model, X_train, X_test
        self.y_train, self.y_test, self.band = y_train, y_test, band
        self.y = torch.tensor(y_train)
        self.last = [(math.nan, math.nan)] * X_train.shape[0]

    def batch(self, step: int) -> tuple:
        return ()

    def loss(self) -> torch.Tensor:
        return projection_loss(self.model(self.X_train), self.y)

    def evaluate(self) -> tuple[torch.Tensor, torch.Tensor]:
        Z_train = self.model(self.X_train)
        losses = projection_loss(Z_train, self.y).tolist()
        self.last = [readout(a, b, self.y_train, self.y_test)
                     for a, b in zip(Z_train.numpy(), self.model(self.X_test).numpy(), strict=True)]
        finite = [math.isfinite(e) and math.isfinite(f) for e, f in self.last]
        acc = [floor_accuracy(e, f, self.band) if ok else 0.0
               for (e, f), ok in zip(self.last, finite, strict=True)]
        loss = [v if ok else math.inf for v, ok in zip(losses, finite, strict=True)]
        return torch.tensor(loss, dtype=torch.float64), torch.tensor(acc, dtype=torch.float64)

    def keep(self, rows: torch.Tensor) -> None:
        self.X_train, self.X_test = self.X_train[rows], self.X_test[rows]
        self.last = [self.last[r] for r in rows.tolist()]


def train_blocks(d: int, blocks: int, x_train: np.ndarray, x_test: np.ndarray,
                 y_train: np.ndarray, y_test: np.ndarray, *, softmax: bool,
                 inits: list[np.random.Generator], lr: float, protocol: Protocol,
                 band: float) -> list[dict]:
    """Train one replica of ``blocks`` blocks per generator of ``inits`` (side by side:
    ``replica_training.train_replicas``, Adam at ``lr``) on the projection loss until the protocol
    stops each; the metric is ``floor_accuracy`` of the test error against the floor of the current
    features (the target 1: the error within ``band`` decades of that floor). Replica ``r`` draws
    its affine forms (the token embedding), then its weights, from ``inits[r]``. Returns per
    replica its run (``Monitor.result``) with its learning rate, last test error and floor, and
    their log10."""
    forms = [make_blocks(d, blocks, init) for init in inits]
    model = TrainedBlocks(n_tokens(d, blocks), blocks, softmax, inits)
    X_train, X_test = (torch.tensor(np.stack([embed(f, x) for f in forms]))
                       for x in (x_train, x_test))
    job = _Regression(model, X_train, X_test, y_train, y_test, band)
    stopped = [(math.nan, math.nan)] * len(inits)

    def keep_last(replica: int, row: int) -> None:
        stopped[replica] = job.last[row]

    monitors, _ = train_replicas(FlatReplicas(model), job, protocol, lr, on_stop=keep_last)
    runs = []
    with np.errstate(divide="ignore"):
        for monitor, (error, floor) in zip(monitors, stopped, strict=True):
            runs.append({**monitor.result(), "lr": lr, "max_rel_error": error, "floor": floor,
                         "log10_error": float(np.log10(error)),
                         "log10_floor": float(np.log10(floor))})
    return runs
