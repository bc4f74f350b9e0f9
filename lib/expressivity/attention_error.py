"""How far a float64 self-attention layer can be from its exact value, and the exact value itself.

The layer of ``expressivity.attention.self_attention`` (row form, Yun et al. 2020a eq. (1)):

    F(X) = X + sum_h sigma(beta S_h) V_h W_O^h,   S_h = (X W_Q^h)(X W_K^h)^T,   V_h = X W_V^h.

``rounding_bound`` bounds, entry by entry, the difference between the float64 evaluation of
``F(X)`` and its exact value for exactly these float64 inputs ([D], ours, by the standard model
``fl(a op b) = (a op b)(1 + r)``, ``|r| <= u = 2^-53``, and ``gamma_m = m u / (1 - m u)``):

- the products ``X W``, ``Q K^T``, ``A V``, ``(A V) W_O`` and the sum over heads carry
  ``gamma_m`` relative to the products of absolute values, ``m = n + d + s + H + 4``;
- a score error ``Delta_k = max_j |delta(beta S)_kj| <= |beta| gamma_m (|X||W_Q|)(|X||W_K|)^T + u |beta S|``
  moves each softmax weight by at most ``A_kj (2 Delta_k + u (|beta S_kj - max_j beta S_kj| + 2)
  + gamma_m)`` (the shifted exponent, ``exp`` and the normalisation); hardmax weights are exact
  once the maximisers are chosen (the bound assumes rounding did not change the choice);
- with ``|V| <= |X||W_V|`` entrywise, the error of row ``k`` is at most
  ``gamma_m |x_k| + sum_h (omega_h |X||W_V^h|) |W_O^h|``, ``omega_kj = A_kj (5 gamma_m + 2 Delta_k
  + u |beta S_kj - max|)`` for softmax and ``4 gamma_m A_kj`` for hardmax.

This is a first-order bound; it is doubled to cover the second-order terms (``m u < 10^-13``
here). ``exact_outputs`` evaluates chosen rows of ``F(X)`` for softmax in ball arithmetic (arb)
from the exact float64 inputs: the balls enclose the exact values, however small their
differences.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from flint import arb, ctx

from expressivity.arguments import integer
from expressivity.attention import Head, attention_weights
from expressivity.ball_arithmetic import exact

U = np.finfo(float).eps / 2


def _gamma(m: int) -> float:
    return m * U / (1 - m * U)


def rounding_bound(X: np.ndarray, heads: Sequence[Head], sigma: str, beta: float = 1.0,
                   tie_tol: float = 0.0) -> np.ndarray:
    """Entrywise bound ``(n, d)`` on ``|fl(F(X)) - F(X)|`` for ``self_attention(X, heads, sigma,
    beta, tie_tol)`` (see the module docstring for the derivation; doubled first-order bound)."""
    X = np.asarray(X, dtype=float)
    n, d = X.shape
    absX = np.abs(X)
    s_max = max((int(np.shape(h.W_Q)[1]) + int(np.shape(h.W_V)[1]) for h in heads), default=0)
    g = _gamma(n + d + s_max + len(heads) + 4)
    bound = g * absX
    for head in heads:
        raw = head.scores(X)
        S = beta * raw
        A = attention_weights(raw, sigma, beta=beta, tie_tol=tie_tol)
        if sigma == "softmax":
            shifted = np.abs(S - S.max(axis=-1, keepdims=True))
            delta = (abs(beta) * g * (absX @ np.abs(head.W_Q)) @ (absX @ np.abs(head.W_K)).T
                     + U * np.abs(S)).max(axis=-1, keepdims=True)
            omega = A * (5 * g + 2 * delta + U * shifted)
        else:
            omega = 4 * g * A
        bound = bound + (omega @ (absX @ np.abs(head.W_V))) @ np.abs(head.W_O)
    return 2 * bound


def exact_outputs(X: np.ndarray, heads: Sequence[Head], rows: Sequence[int], beta: float,
                  digits: int) -> list[list[arb]]:
    """Rows ``rows`` of the softmax layer ``F(X)`` as balls at ``digits`` decimal digits, from the
    exact float64 entries of ``X``, the weights and ``beta`` (the balls enclose the exact values of
    the layer with exactly these inputs)."""
    X = np.asarray(X, dtype=float)
    integer("digits", digits, 1)
    if X.ndim != 2 or not np.all(np.isfinite(X)) or not math.isfinite(beta):
        raise ValueError(f"X must be a finite (n, d) array and beta finite, got shape {X.shape}, "
                         f"beta={beta!r}")
    if any(not 0 <= k < X.shape[0] for k in rows):
        raise ValueError(f"rows must index the {X.shape[0]} tokens, got {list(rows)}")
    d = X.shape[1]
    with ctx.workdps(digits):
        Xa = [[exact(x) for x in row] for row in X]
        b = exact(beta)

        def mul(A, M):  # ball matrix times float matrix
            M = np.asarray(M, dtype=float)
            cols = [[exact(x) for x in M[:, c]] for c in range(M.shape[1])]
            return [[sum((a * m for a, m in zip(row, col, strict=True)), arb(0)) for col in cols]
                    for row in A]

        out = [list(Xa[k]) for k in rows]
        for head in heads:
            Q, K = mul([Xa[k] for k in rows], head.W_Q), mul(Xa, head.W_K)
            VO = mul(mul(Xa, head.W_V), head.W_O)
            for i, q in enumerate(Q):
                scores = [b * sum((x * y for x, y in zip(q, key, strict=True)), arb(0))
                          for key in K]
                top = arb(max(float(s.mid()) for s in scores))
                weights = [(s - top).exp() for s in scores]
                total = sum(weights, arb(0))
                for c in range(d):
                    out[i][c] += sum((w * VO[j][c] for j, w in enumerate(weights)), arb(0)) / total
        return out
