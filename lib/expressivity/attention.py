"""Attention primitives: softmax, hardmax with exact tie averaging, masks, the Boltzmann operator.

Convention: tokens are rows. A sequence is ``X: (n, d)``. The papers write tokens as columns,
``Z = X^T``, and one self-attention layer as (Yun et al. 2020a; Kajitsuka & Sato 2024, eq. (1))

    F(Z) = Z + sum_i W_O^i W_V^i Z sigma[(W_K^i Z)^T (W_Q^i Z)],

with ``sigma`` applied to each column (one column per query). In row form, with
``Q = X W_Q``, ``K = X W_K``, ``V = X W_V`` (here ``W_Q, W_K, W_V: (d, s)`` are the transposes
of the paper's ``s x d`` matrices and ``W_O: (s, d)``),

    F(X) = X + sum_i sigma_rows(Q_i K_i^T) V_i W_O^i,

where row ``k`` of ``Q K^T`` holds the scores of query ``k`` over all keys ``j``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from expressivity.arguments import finite_array as _finite_array
from expressivity.arguments import finite_number as _finite_number


def _check_mask(mask: np.ndarray | None, shape: tuple[int, ...]) -> np.ndarray | None:
    if mask is None:
        return None
    mask = np.asarray(mask, dtype=bool)
    if mask.shape != shape[-2:]:
        raise ValueError(f"mask shape {mask.shape} does not match the score shape {shape[-2:]}")
    empty = np.flatnonzero(~mask.any(axis=-1))
    if empty.size:
        raise ValueError(f"mask row {int(empty[0])} attends to no key; every query needs one")
    return mask


def softmax(S: np.ndarray, beta: float = 1.0, mask: np.ndarray | None = None) -> np.ndarray:
    """Row-wise ``softmax(beta * S)`` over the allowed keys, computed stably.

    ``softmax(a)_j = exp(a_j - max a) / sum_l exp(a_l - max a)``; masked keys get weight 0.
    ``S`` must be finite (mask the keys to ignore) and ``beta`` a finite number; a ``ValueError``
    names the argument otherwise, or says that ``beta * S`` overflows.
    """
    beta = _finite_number("beta", beta)
    S = np.asarray(S, dtype=float)
    if S.ndim >= 2 and S.shape[-1] > 0 and S.size == 0:
        return np.zeros(S.shape)  # an empty batch of score rows: nothing to normalise
    with np.errstate(over="ignore", invalid="ignore"):
        scaled = beta * S
    if S.size == 0 or not np.isfinite(scaled).all():
        _finite_array("scores S", S)  # names a NaN or infinite score, or an empty S
        raise ValueError(f"beta * S overflows float64 (beta = {beta:g}, max |S| = "
                         f"{float(np.max(np.abs(S))):g})")
    return _softmax(scaled, mask)


def _softmax(S: np.ndarray, mask: np.ndarray | None) -> np.ndarray:
    """``softmax`` of checked, finite scores."""
    mask = _check_mask(mask, S.shape)
    if mask is not None:
        S = np.where(mask, S, -np.inf)
    E = np.exp(S - S.max(axis=-1, keepdims=True))
    return E / E.sum(axis=-1, keepdims=True)


def hardmax(S: np.ndarray, tie_tol: float = 0.0, mask: np.ndarray | None = None) -> np.ndarray:
    """Row-wise hardmax with exact tie averaging (Yun et al. 2020a convention).

    Each maximiser of a row gets weight ``1 / |argmax set|``. A key is a maximiser when its score is
    at least ``max - tie_tol * max(1, |max|)``; ``tie_tol = 0`` counts exact ties only, a positive
    tolerance also merges scores that differ by rounding.
    """
    if not _finite_number("tie_tol", tie_tol) >= 0:
        raise ValueError(f"tie_tol must be >= 0, got {tie_tol}")
    S = _finite_array("scores S", S)
    mask = _check_mask(mask, S.shape)
    if mask is not None:
        S = np.where(mask, S, -np.inf)
    top = S.max(axis=-1, keepdims=True)
    winners = S >= top - tie_tol * np.maximum(1.0, np.abs(top))
    return winners / winners.sum(axis=-1, keepdims=True)


def boltz(a: np.ndarray) -> np.ndarray:
    """The Boltzmann operator along the last axis (Kajitsuka & Sato 2024, Sec. 3).

    ``boltz(a) = sum_i a_i e^{a_i} / sum_j e^{a_j} = <a, softmax(a)>``, computed with the maximum
    subtracted so that no exponential overflows. ``a`` must be non-empty and finite.
    """
    a = _finite_array("a", a)
    return np.sum(a * _softmax(a, None), axis=-1)


@dataclass(frozen=True)
class Head:
    """One attention head in row form: ``W_Q, W_K, W_V: (d, s)``, ``W_O: (s, d)``."""

    W_Q: np.ndarray
    W_K: np.ndarray
    W_V: np.ndarray
    W_O: np.ndarray

    def __post_init__(self) -> None:
        shapes = {name: np.shape(getattr(self, name)) for name in ("W_Q", "W_K", "W_V", "W_O")}
        flat = ", ".join(f"{name} {shape}" for name, shape in shapes.items())
        if any(len(shape) != 2 for shape in shapes.values()):
            raise ValueError(f"head weights must be matrices, got {flat}")
        (d, s), (d_v, s_v) = shapes["W_Q"], shapes["W_V"]
        if shapes["W_K"] != (d, s) or d_v != d or shapes["W_O"] != (s_v, d):
            raise ValueError("head weights must be W_Q, W_K: (d, s), W_V: (d, s_v), "
                             f"W_O: (s_v, d), got {flat}")
        for name in shapes:
            _finite_array(name, getattr(self, name), 2)

    @property
    def d(self) -> int:
        """The token dimension the head reads and writes."""
        return int(np.shape(self.W_Q)[0])

    def scores(self, X: np.ndarray) -> np.ndarray:
        """``S = (X W_Q)(X W_K)^T: (n, n)``; ``S[k, j] = <W_K^T x_j, W_Q^T x_k>`` (query k, key j)."""
        return (X @ self.W_Q) @ (X @ self.W_K).T


def attention_weights(
    S: np.ndarray,
    sigma: str,
    beta: float = 1.0,
    tie_tol: float = 0.0,
    mask: np.ndarray | None = None,
) -> np.ndarray:
    """Row-stochastic weights from scores: ``sigma`` is ``"softmax"`` (at inverse temperature
    ``beta``) or ``"hardmax"`` (ties averaged within ``tie_tol``)."""
    if sigma == "softmax":
        return softmax(S, beta=beta, mask=mask)
    if sigma == "hardmax":
        return hardmax(S, tie_tol=tie_tol, mask=mask)
    raise ValueError(f"unknown attention normaliser {sigma!r}; use 'softmax' or 'hardmax'")


def self_attention(
    X: np.ndarray,
    heads: list[Head],
    sigma: str = "softmax",
    beta: float = 1.0,
    tie_tol: float = 0.0,
    mask: np.ndarray | None = None,
) -> np.ndarray:
    """One multi-head self-attention layer with skip connection, ``X: (n, d) -> (n, d)``:

    ``F(X) = X + sum_i sigma(beta * Q_i K_i^T) V_i W_O^i`` (row form of Yun et al. 2020a, eq. (1)).
    ``mask[k, j]`` (optional, boolean ``(n, n)``) says whether query ``k`` may attend key ``j``:
    masked (sparse) attention normalises over the allowed keys only. ``X`` must be finite and every
    head must read dimension ``d``; a ``ValueError`` names the argument otherwise.
    """
    X = _finite_array("X", X, 2)
    if X.ndim != 2:
        raise ValueError(f"X must have shape (n, d), got {X.shape}")
    if sigma not in ("softmax", "hardmax"):
        raise ValueError(f"unknown attention normaliser sigma={sigma!r}; use 'softmax' or 'hardmax'")
    for i, head in enumerate(heads):
        if not isinstance(head, Head):
            raise ValueError(f"heads[{i}] must be a Head, got {type(head).__name__}")
        if head.d != X.shape[1]:
            raise ValueError(f"heads[{i}] reads dimension d = {head.d}, but X has shape {X.shape}")
    out = X.copy()
    for head in heads:
        A = attention_weights(head.scores(X), sigma, beta=beta, tie_tol=tie_tol, mask=mask)
        out += A @ (X @ head.W_V) @ head.W_O
    return out
