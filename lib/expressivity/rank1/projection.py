"""The projection lemma: a unit vector ``v`` that keeps finitely many points apart in one dimension.

Park et al. 2021, Lemma 13 (Kajitsuka & Sato 2024's "Lemma 3", [R], Sec. 3.2 of
``shared/papers/kajitsuka_sato.md``): for a set of ``M`` points in ``R^d`` a random unit ``v`` meets

    |v^T (x - x')| >= sqrt(8 / (pi d)) / M^2 ||x - x'||      for all x != x' in the set

with positive probability. The rank-1 layer applies it to ``V ∪ {0}`` (``M = |V| + 1``), so no
token projects to 0 and distinct tokens project apart; we draw until it holds.
"""

from __future__ import annotations

import math

import numpy as np

from expressivity.arguments import integer

#: Pair differences held at once by ``projection_ratio`` (about 64 MiB of doubles): memory stays
#: O(|V| d) however large the vocabulary.
_BLOCK_VALUES = 2**23


def projection_constant(vocab_size: int, d: int) -> float:
    """``c = sqrt(8 / (pi d)) / (|V| + 1)^2``: the lemma's bound on ``V ∪ {0}`` ([R], Sec. 3.2)."""
    for name, value in (("vocab_size", vocab_size), ("d", d)):
        integer(name, value, 1)
    return math.sqrt(8.0 / (math.pi * d)) / (vocab_size + 1) ** 2


def _check_vocab(vocab) -> np.ndarray:
    vocab = np.asarray(vocab, dtype=float)
    if vocab.ndim != 2 or vocab.shape[0] < 1 or vocab.shape[1] < 1:
        raise ValueError(f"vocab must have shape (V, d) with V, d >= 1, got {vocab.shape}")
    if not np.isfinite(vocab).all():
        raise ValueError("vocab must be finite")
    return vocab


def projection_ratio(vocab: np.ndarray, v: np.ndarray) -> float:
    """``min |v^T (x - x')| / ||x - x'||`` over distinct ``x, x'`` in ``V ∪ {0}``; ``vocab: (V, d)``.

    Exhaustive over the ``|V| (|V| + 1) / 2`` pairs, in blocks of rows (memory O(|V| d))."""
    vocab = _check_vocab(vocab)
    v = np.asarray(v, dtype=float)
    if v.shape != (vocab.shape[1],) or not np.isfinite(v).all():
        raise ValueError(f"v must be a finite vector of shape ({vocab.shape[1]},), got {v.shape}")
    pts = np.vstack([vocab, np.zeros((1, vocab.shape[1]))])
    M, d = pts.shape
    rows = max(1, _BLOCK_VALUES // (M * d))
    best = math.inf
    for start in range(0, M - 1, rows):
        block = pts[start:start + rows]
        diff = block[:, None, :] - pts[None, :, :]                    # (rows, M, d)
        later = np.arange(M)[None, :] > np.arange(start, start + len(block))[:, None]
        diff = diff[later]                                             # pairs i < j only
        best = min(best, float(np.min(np.abs(diff @ v) / np.linalg.norm(diff, axis=1))))
    return best


def draw_projection(rng: np.random.Generator, vocab: np.ndarray, max_draws: int = 100_000):
    """Draw unit vectors ``v`` until the lemma's bound holds on ``V ∪ {0}``.

    Returns ``(v, draws, ratio)``: the accepted vector, how many draws it took, and its
    ``projection_ratio`` (>= ``projection_constant``).
    """
    vocab = _check_vocab(vocab)
    integer("max_draws", max_draws, 1)
    V, d = vocab.shape
    bound = projection_constant(V, d)
    for draw in range(1, max_draws + 1):
        g = rng.standard_normal(d)
        v = g / np.linalg.norm(g)
        ratio = projection_ratio(vocab, v)
        if ratio >= bound:
            return v, draw, ratio
    raise ValueError(f"no projection vector met the bound {bound:.3g} in {max_draws} draws")
