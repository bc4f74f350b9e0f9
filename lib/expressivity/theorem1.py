"""Kajitsuka & Sato 2024, Theorem 1: one-layer hardmax Transformers cannot memorize every dataset.

(Statement from the paper, [V] in ``shared/papers/kajitsuka_sato.md`` Sec. 2.) The dataset below is
our own counterexample ([D], Sec. 2.3 of the notes; the paper's could not be retrieved):

    X^(1) = (1, 2,   4,   5) e,     X^(2) = (1, 2.5, 3.5, 5) e,

collinear tokens ``t e`` with a unit vector ``e``; the label of token 5 differs between them.

Why no one-layer hardmax Transformer separates them. In every head the score of key ``j`` for
query ``k`` is ``<W_K^T t_j e, W_Q^T x_k> = t_j c_k`` with ``c_k = e^T W_K W_Q^T x_k``, linear in
``t_j``. Hardmax therefore attends to the key with the largest ``t`` (``c_k > 0``), the smallest
(``c_k < 0``) or, when ``c_k = 0``, all keys tied, whose average is the mean token. The two
sequences share their maximum (5), minimum (1) and mean (3), so every head gives the same output at
the shared tokens 1 and 5 whatever its weights; the skip connection adds the same token; the FFN acts
token by token. Hence the outputs at token 5 are identical and cannot carry different labels.

With softmax the weights ``softmax(t_j c_k)`` see every token: the interior tokens 2, 4 (or 2.5,
3.5) move the output at a shared token by about their weight ``e^{-beta |c_k| (t_max - t_j)}``, so the
gap shrinks as the weights grow and softmax saturates towards hardmax; it vanishes only in the
limit. ``theorem1_dataset`` gives the pair as a token dataset with any labelling, for Kajitsuka &
Sato's memorizer (``expressivity.rank1.memorizer``).
"""

from __future__ import annotations

import math

import numpy as np
from flint import fmpq, fmpq_mat

from expressivity.arguments import integer
from expressivity.attention import Head, self_attention
from expressivity.attention_error import exact_outputs, rounding_bound
from expressivity.ball_arithmetic import arb_log10
from expressivity.datasets import TokenDataset, validate_dataset

#: Token positions (scalars along ``e``) of the two sequences and their labels (token 5 differs).
THEOREM1_TOKENS = (np.array([1.0, 2.0, 4.0, 5.0]), np.array([1.0, 2.5, 3.5, 5.0]))
THEOREM1_LABELS = (np.array([0, 0, 0, 0]), np.array([0, 0, 0, 1]))
#: Positions of the tokens the two sequences share (t = 1 and t = 5), and of the interior ones.
SHARED_POSITIONS = (0, 3)
INTERIOR_POSITIONS = (1, 2)
#: Doublings of the digits before a softmax gap counts as undecided.
MAX_DOUBLINGS = 4


def _unit(e) -> np.ndarray:
    e = np.asarray(e, dtype=float)
    if e.ndim != 1 or e.size < 1 or not np.all(np.isfinite(e)):
        raise ValueError(f"e must be a finite vector of shape (d,), got shape {e.shape}")
    if not abs(float(np.linalg.norm(e)) - 1.0) <= 1e-12:
        raise ValueError(f"e must be a unit vector, got norm {float(np.linalg.norm(e))!r}")
    return e


def theorem1_sequences(e: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The two sequences ``t e`` as arrays ``(4, d)`` for a unit vector ``e: (d,)``."""
    e = _unit(e)
    return tuple(np.outer(t, e) for t in THEOREM1_TOKENS)


def random_heads(rng: np.random.Generator, d: int, n_heads: int, head_size: int,
                 scale: float) -> list[Head]:
    """``n_heads`` heads with i.i.d. ``N(0, scale^2)`` weights (``scale = 0`` gives all ties)."""
    for name, value in (("d", d), ("n_heads", n_heads), ("head_size", head_size)):
        integer(name, value, 1)
    if not (math.isfinite(scale) and scale >= 0):
        raise ValueError(f"scale must be a finite number >= 0, got {scale!r}")
    return [
        Head(*(scale * rng.standard_normal(shape) for shape in
               [(d, head_size), (d, head_size), (d, head_size), (head_size, d)]))
        for _ in range(n_heads)
    ]


def shared_token_gap(heads, e, sigma: str, tie_tol: float = 0.0) -> tuple[float, float]:
    """``(gap, bound)``: the float64 ``max_k ||F(X^(1))_k - F(X^(2))_k||_inf`` over the shared
    tokens 1 and 5, and the rounding bound of that difference (``attention_error.rounding_bound``
    of both layers plus the subtraction): a gap above it is certainly nonzero, a gap within it is
    not resolved by float64."""
    X1, X2 = theorem1_sequences(e)
    rows = list(SHARED_POSITIONS)
    Y1 = self_attention(X1, heads, sigma=sigma, tie_tol=tie_tol)[rows]
    Y2 = self_attention(X2, heads, sigma=sigma, tie_tol=tie_tol)[rows]
    diff = np.abs(Y1 - Y2)
    bound = (rounding_bound(X1, heads, sigma, tie_tol=tie_tol)[rows]
             + rounding_bound(X2, heads, sigma, tie_tol=tie_tol)[rows] + np.finfo(float).eps * diff)
    return float(diff.max()), float(bound.max())


def log10_interior_weight(heads, e) -> float:
    """``log10`` of the largest softmax weight any shared-token query puts on an interior token
    (over heads and both sequences), computed in the log domain: the interior tokens move the
    output at a shared token by about this weight (times ``|V W_O|``), so below about ``-16`` the
    difference is below float64 resolution."""
    best = -math.inf
    for X in theorem1_sequences(e):
        for head in heads:
            S = head.scores(X)[list(SHARED_POSITIONS)]
            top = S.max(axis=1, keepdims=True)
            log_z = top[:, 0] + np.log(np.exp(S - top).sum(axis=1))
            log_w = S[:, list(INTERIOR_POSITIONS)] - log_z[:, None]
            best = max(best, float(log_w.max()) / math.log(10))
    return best


def certified_softmax_gap(heads, e, digits: int) -> tuple[float, str]:
    """``(log10 gap, certificate)`` of the softmax gap at the shared tokens in ball arithmetic.

    The shared rows of both layers are evaluated by ``attention_error.exact_outputs`` at ``digits``,
    then at doubled digits (``MAX_DOUBLINGS`` times) until some entry of the difference excludes
    0 (``log10`` of its certified lower bound, ``arb-<digits>``) or is exactly 0 (``-inf``: all
    weights zero). ``(nan, "undecided")`` otherwise."""
    X1, X2 = theorem1_sequences(e)
    rows = list(SHARED_POSITIONS)
    for level in range(MAX_DOUBLINGS + 1):
        dig = digits * 2**level
        Y1, Y2 = (exact_outputs(X, heads, rows, 1.0, dig) for X in (X1, X2))
        diffs = [a - b for r1, r2 in zip(Y1, Y2, strict=True)
                 for a, b in zip(r1, r2, strict=True)]
        if all(x.is_exact() and x.is_zero() for x in diffs):
            return -math.inf, f"arb-{dig}"
        lowers = [abs(x).lower() for x in diffs if x > 0 or x < 0]
        if lowers:
            return arb_log10(max(lowers)), f"arb-{dig}"
    return math.nan, "undecided"


def _exact_matrix(M) -> fmpq_mat:
    """A float64 matrix as an exact rational matrix (every double is a dyadic rational)."""
    M = np.atleast_2d(np.asarray(M, dtype=float))
    return fmpq_mat(M.shape[0], M.shape[1], [fmpq(*float(x).as_integer_ratio()) for x in M.ravel()])


def _exact_hardmax_rows(X: np.ndarray, heads, rows) -> list[list[fmpq]]:
    """Rows ``rows`` of one hardmax layer in exact rational arithmetic (ties averaged exactly)."""
    Xq = _exact_matrix(X)
    n, d = X.shape
    out = [[Xq[k, c] for c in range(d)] for k in rows]
    for head in heads:
        S = (Xq * _exact_matrix(head.W_Q)) * (Xq * _exact_matrix(head.W_K)).transpose()
        VO = Xq * _exact_matrix(head.W_V) * _exact_matrix(head.W_O)
        for i, k in enumerate(rows):
            scores = [S[k, j] for j in range(n)]
            top = max(scores)
            winners = [j for j, s in enumerate(scores) if s == top]
            for c in range(d):
                out[i][c] += sum((VO[j, c] for j in winners), fmpq(0)) / len(winners)
    return out


def shared_tokens_equal_exactly(heads, e) -> bool:
    """Whether the hardmax outputs at the shared tokens agree exactly (rational arithmetic).

    This is the theorem's statement without rounding: float64 can only show a difference of order
    1e-16 relative, exact arithmetic shows it is zero."""
    X1, X2 = theorem1_sequences(e)
    rows = list(SHARED_POSITIONS)
    return _exact_hardmax_rows(X1, heads, rows) == _exact_hardmax_rows(X2, heads, rows)


def theorem1_dataset(e: np.ndarray, labels=THEOREM1_LABELS) -> TokenDataset:
    """The pair as a token dataset along the unit vector ``e``: vocabulary ``t e`` for ``t`` in
    {1, 2, 2.5, 3.5, 4, 5} (``r_min = 1``, ``r_max = 5``, ``eps = 0.5``), the two sequences, and
    ``labels: (2, 4)`` integer classes per (sequence, position)."""
    e = _unit(e)
    ts = np.unique(np.concatenate(THEOREM1_TOKENS))
    seqs = np.array([[int(np.flatnonzero(ts == t)[0]) for t in seq] for seq in THEOREM1_TOKENS])
    labels = np.asarray(labels)
    if labels.shape != seqs.shape:
        raise ValueError(f"labels must have shape {seqs.shape}, got {labels.shape}")
    ds = TokenDataset(vocab=np.outer(ts, e), sequences=seqs, labels=labels,
                      r_min=float(ts.min()), r_max=float(ts.max()), eps=float(np.diff(ts).min()))
    validate_dataset(ds)
    return ds
