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

With softmax the weights ``softmax(t_j c_k)`` see every token, so the interior tokens move the
output: ``explicit_memorizer`` builds one single-head rank-1 softmax layer
(``expressivity.rank1.layer``) plus a Zhang et al. FFN that reproduces all eight labels.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from expressivity.attention import Head, self_attention
from expressivity.rank1.layer import Rank1Layer, output_scale
from expressivity.relu_interpolant import ReluInterpolant, fit_relu_interpolant

#: Token positions (scalars along ``e``) of the two sequences and their labels (token 5 differs).
THEOREM1_TOKENS = (np.array([1.0, 2.0, 4.0, 5.0]), np.array([1.0, 2.5, 3.5, 5.0]))
THEOREM1_LABELS = (np.array([0, 0, 0, 0]), np.array([0, 0, 0, 1]))
#: Positions of the tokens the two sequences share (t = 1 and t = 5).
SHARED_POSITIONS = (0, 3)
#: Float64 rounding bound for the hardmax output gap at the shared tokens (mathematically 0):
#: outputs are at most about 1e3 in size, so rounding leaves less than 1e3 * 2^-52 * (a few) << 1e-12.
HARDMAX_GAP_BOUND = 1e-12


def theorem1_sequences(e: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The two sequences ``t e`` as arrays ``(4, d)`` for a unit vector ``e: (d,)``."""
    e = np.asarray(e, dtype=float)
    return tuple(np.outer(t, e) for t in THEOREM1_TOKENS)


def random_heads(rng: np.random.Generator, d: int, n_heads: int, head_size: int, scale: float):
    """``n_heads`` heads with i.i.d. ``N(0, scale^2)`` weights (``scale = 0`` gives all ties)."""
    return [
        Head(*(scale * rng.standard_normal(shape) for shape in
               [(d, head_size), (d, head_size), (d, head_size), (head_size, d)]))
        for _ in range(n_heads)
    ]


def shared_token_gap(heads, e, sigma: str, tie_tol: float = 0.0) -> float:
    """``max_k ||F(X^(1))_k - F(X^(2))_k||_inf`` over the shared tokens 1 and 5."""
    X1, X2 = theorem1_sequences(e)
    Y1 = self_attention(X1, heads, sigma=sigma, tie_tol=tie_tol)
    Y2 = self_attention(X2, heads, sigma=sigma, tie_tol=tie_tol)
    rows = list(SHARED_POSITIONS)
    return float(np.max(np.abs(Y1[rows] - Y2[rows])))


def _exact_hardmax_layer(X: list[list[Fraction]], heads) -> list[list[Fraction]]:
    """One hardmax layer in exact rational arithmetic (every float weight is an exact rational)."""
    def mat(M):
        return [[Fraction(float(x)) for x in row] for row in np.atleast_2d(M)]

    def mul(A, B):
        return [[sum((a * b for a, b in zip(row, col, strict=True)), Fraction(0))
                 for col in zip(*B, strict=True)] for row in A]

    out = [row[:] for row in X]
    for head in heads:
        Q, K, V = mul(X, mat(head.W_Q)), mul(X, mat(head.W_K)), mul(X, mat(head.W_V))
        VO = mul(V, mat(head.W_O))
        for k, q in enumerate(Q):
            scores = [sum((a * b for a, b in zip(q, key, strict=True)), Fraction(0)) for key in K]
            top = max(scores)
            winners = [j for j, s in enumerate(scores) if s == top]
            for c in range(len(out[k])):
                out[k][c] += sum((VO[j][c] for j in winners), Fraction(0)) / len(winners)
    return out


def shared_tokens_equal_exactly(heads, e) -> bool:
    """Whether the hardmax outputs at the shared tokens agree exactly (rational arithmetic).

    This is the theorem's statement without rounding: float64 can only show a difference of order
    1e-16 relative, exact arithmetic shows it is zero.
    """
    X1, X2 = ([[Fraction(float(x)) for x in row] for row in X] for X in theorem1_sequences(e))
    Y1, Y2 = _exact_hardmax_layer(X1, heads), _exact_hardmax_layer(X2, heads)
    return all(Y1[k] == Y2[k] for k in SHARED_POSITIONS)


@dataclass(frozen=True)
class Memorizer:
    """A one-layer, single-head, rank-1 softmax Transformer for the Theorem 1 dataset.

    Attention: the rank-1 layer with ``v = u = e``. The FFN reads ``e^T y`` and is Zhang et al.'s
    two-layer ReLU interpolant of the labels.
    """

    layer: Rank1Layer
    ffn: ReluInterpolant

    def features(self, X: np.ndarray) -> np.ndarray:
        """``e^T F_SA(X)_k`` for every token ``k``: the scalar the FFN reads."""
        return self.layer(X) @ self.layer.v

    def __call__(self, X: np.ndarray) -> np.ndarray:
        return np.array([self.ffn(z) for z in self.features(X)])

    @property
    def n_parameters(self) -> int:
        """Four rank-1 attention vectors (4d) plus the FFN (2m + d, Zhang et al.)."""
        d = self.layer.v.size
        return 4 * d + self.ffn.n_weights + d


def explicit_memorizer(e: np.ndarray, lam: float = 1.0) -> Memorizer:
    """Build the memorizer: ``alpha = eps / (4 r_max)`` with the dataset's token separation
    ``eps = 0.5`` and ``r_max = 5`` keeps every output within ``eps/4`` of its token (Kajitsuka &
    Sato's ``W_O`` scaling, [R]); the FFN interpolates the eight (feature, label) pairs."""
    e = np.asarray(e, dtype=float)
    tokens = np.concatenate(THEOREM1_TOKENS)
    eps = float(np.min(np.diff(np.unique(tokens))))
    layer = Rank1Layer(v=e, u=e, lam=lam, alpha=output_scale(eps, float(np.max(np.abs(tokens)))))
    feats = np.concatenate([layer(X) @ e for X in theorem1_sequences(e)])
    labels = np.concatenate(THEOREM1_LABELS)
    ffn = fit_relu_interpolant([float(z) for z in feats], [float(y) for y in labels])
    return Memorizer(layer=layer, ffn=ffn)
