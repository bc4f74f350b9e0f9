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
"""

from __future__ import annotations

import math

import numpy as np
import torch

from expressivity.polynomial import embed, make_blocks, n_tokens, readout_floor, relative_error
from expressivity.training_protocol import Monitor, Protocol

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
    """``L`` trainable blocks on ``T`` tokens (see the module docstring); ``init`` draws the
    weights from a numpy generator, so a softmax and a softmax-free run can start from the same
    weights."""

    def __init__(self, tokens: int, blocks: int, softmax: bool, init: np.random.Generator):
        super().__init__()
        w = 2 * tokens + 1
        draw = lambda cols: torch.nn.Parameter(  # noqa: E731
            torch.tensor(init.normal(0.0, 1.0 / math.sqrt(w), size=(blocks, w, cols))))
        self.W_Q, self.W_K, self.W_V = draw(tokens), draw(tokens), draw(1)
        self.softmax = softmax

    def forward(self, X: torch.Tensor) -> torch.Tensor:
        for W_Q, W_K, W_V in zip(self.W_Q, self.W_K, self.W_V, strict=True):
            S = (X @ W_Q) @ (X @ W_K).transpose(-1, -2)
            if self.softmax:
                S = torch.softmax(S, dim=-1)
            X = torch.cat([X[..., :-1], X[..., -1:] + S @ (X @ W_V)], dim=-1)
        return X[..., -1]


def projection_loss(Z: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """``|(I - Q Q^T) y|^2 / N`` with ``Z = Q R``: the training loss of the best read-out."""
    Q, _ = torch.linalg.qr(Z)
    return ((y - Q @ (Q.T @ y)) ** 2).mean()


def evaluate(model: TrainedBlocks, X_train, X_test, y_train: np.ndarray, y_test: np.ndarray
             ) -> tuple[float, float]:
    """Max relative test error of the least-squares read-out (fitted on the training points) and
    the float64 floor of that read-out on these features (``polynomial.readout_floor``)."""
    with torch.no_grad():
        Z_train, Z_test = model(X_train).numpy(), model(X_test).numpy()
    if not (np.isfinite(Z_train).all() and np.isfinite(Z_test).all()):
        return math.inf, math.nan
    beta, *_ = np.linalg.lstsq(Z_train, y_train, rcond=None)
    return relative_error(Z_test @ beta, y_test), readout_floor(Z_train, Z_test, y_train)


def train_blocks(d: int, blocks: int, x_train: np.ndarray, x_test: np.ndarray,
                 y_train: np.ndarray, y_test: np.ndarray, *, softmax: bool,
                 init: np.random.Generator, lr: float, protocol: Protocol, band: float) -> dict:
    """Train ``blocks`` blocks from ``init`` with Adam at ``lr`` on the projection loss until the
    protocol stops the run; its metric is ``floor_accuracy`` of the test error against the floor
    of the current features (the target 1: the error within ``band`` decades of that floor).
    Returns the run (``Monitor.result``) with its learning rate, last test error and floor, and
    their log10."""
    # the token embedding of this run's own affine forms (drawn from ``init``, as the weights)
    forms = make_blocks(d, blocks, init)
    model = TrainedBlocks(n_tokens(d, blocks), blocks, softmax, init)
    X_train, X_test = (torch.tensor(embed(forms, x)) for x in (x_train, x_test))
    y = torch.tensor(y_train)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    monitor = Monitor(protocol)
    error = floor = math.nan
    for step in range(protocol.budget + 1):
        loss = projection_loss(model(X_train), y)
        if step % protocol.every == 0 or step == protocol.budget:
            error, floor = evaluate(model, X_train, X_test, y_train, y_test)
            finite = math.isfinite(error) and math.isfinite(floor)
            # no read-out rounds below the unit roundoff (an exact 0 would make log10 -inf)
            floor = max(floor, EPS) if finite else floor
            acc = floor_accuracy(error, floor, band) if finite else 0.0
            if monitor.observe(step, loss.item() if finite else math.inf, acc):
                break
            for group in opt.param_groups:
                group["lr"] = lr * monitor.lr_factor
        opt.zero_grad()
        loss.backward()
        opt.step()
    with np.errstate(divide="ignore"):
        return {**monitor.result(), "lr": lr, "max_rel_error": error, "floor": floor,
                "log10_error": float(np.log10(error)), "log10_floor": float(np.log10(floor))}
