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


def projection_constant(vocab_size: int, d: int) -> float:
    """``c = sqrt(8 / (pi d)) / (|V| + 1)^2``: the lemma's bound on ``V ∪ {0}`` ([R], Sec. 3.2)."""
    return math.sqrt(8.0 / (math.pi * d)) / (vocab_size + 1) ** 2


def projection_ratio(vocab: np.ndarray, v: np.ndarray) -> float:
    """``min |v^T (x - x')| / ||x - x'||`` over distinct ``x, x'`` in ``V ∪ {0}``; ``vocab: (V, d)``."""
    pts = np.vstack([vocab, np.zeros((1, vocab.shape[1]))])
    i, j = np.triu_indices(len(pts), 1)
    diff = pts[i] - pts[j]
    return float(np.min(np.abs(diff @ v) / np.linalg.norm(diff, axis=1)))


def draw_projection(rng: np.random.Generator, vocab: np.ndarray, max_draws: int = 100_000):
    """Draw unit vectors ``v`` until the lemma's bound holds on ``V ∪ {0}``.

    Returns ``(v, draws, ratio)``: the accepted vector, how many draws it took, and its
    ``projection_ratio`` (>= ``projection_constant``).
    """
    V, d = vocab.shape  # noqa: N806
    bound = projection_constant(V, d)
    for draw in range(1, max_draws + 1):
        g = rng.standard_normal(d)
        v = g / np.linalg.norm(g)
        ratio = projection_ratio(vocab, v)
        if ratio >= bound:
            return v, draw, ratio
    raise ValueError(f"no projection vector met the bound {bound:.3g} in {max_draws} draws")
