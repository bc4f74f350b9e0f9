"""How a sparse pattern fills the layers of an encoder, and how sparse the result is.

Yun et al. (2020b, Sec. 5, [S]) compare patterns "against the sparsity level" (sparsity = 1 -
connections / n^2), and run the two-pattern ones (STRIDED, FIXED) in two configurations, "UNION"
(the name is verified [S]) and one pattern per layer in turn (recalled [M]); RANDOM is the control
at the same sparsity. Here, for an encoder of ``depth`` layers over length ``n`` (tokens are rows;
a mask ``M: (n, n)`` has ``M[k, j]`` True iff query ``k`` may attend key ``j``):

- ``alternating``: layer ``l`` uses mask ``A^{(l mod p) + 1}`` of the pattern's cycle (Yun et al.'s
  layer rule, ``expressivity.sparse_patterns``);
- ``union``: every layer uses ``A^1 | ... | A^p``;
- ``heads``: the cycle split over the heads: in every layer head ``h`` uses ``A^{(h mod p) + 1}``
  (a layer's mask is then ``(H, n, n)``, one per head; ``H`` a multiple of ``p`` so every mask of
  the cycle gets the same number of heads). Yun et al. (2020b, Sec. 5) compare "splitting the
  heads" between the patterns with the other two configurations [M]; the assignment is ours [O];
- ``density(masks) = mean_l |M_l| / n^2``, the fraction of query-key pairs a layer computes,
  averaged over the layers (and over the heads of a split layer), so ``sparsity = 1 - density``;
  a split layer computes what the alternating configuration computes over ``p`` layers;
- ``matched_random``: ``depth`` independent RANDOM masks (self plus ``r`` random keys per query,
  drawn afresh for each layer, and for each head when the heads are split) whose ``1 + r`` keys per
  query are the smallest number that reaches a given density (ours, [O]: "matched" is our reading
  of comparing at one sparsity level).

The window (STRIDED) or block (FIXED) size ``w`` sets a pattern's sparsity: STRIDED computes about
``w + n / w`` pairs per query, least at ``w = sqrt(n)``, so a level is named by ``w`` and the table
records the density it gives.
"""

from __future__ import annotations

import math

import numpy as np

from expressivity.arguments import integer
from expressivity.sparse_patterns import pattern_masks

CONFIGURATIONS = ("alternating", "union", "heads")


def layer_masks(pattern: str, n: int, depth: int, configuration: str, *, heads: int = 1,
                rng: np.random.Generator | None = None, **params) -> list[np.ndarray]:
    """The ``depth`` masks of ``pattern`` (``expressivity.sparse_patterns`` name and parameters)
    in ``configuration`` (``CONFIGURATIONS``): ``(n, n)`` each, or ``(heads, n, n)`` split over
    the heads (``heads`` a multiple of the cycle length ``p``)."""
    if configuration not in CONFIGURATIONS:
        raise ValueError(f"unknown configuration {configuration!r}; use one of "
                         f"{', '.join(CONFIGURATIONS)}")
    depth, heads = integer("depth", depth, 1), integer("heads", heads, 1)
    cycle = pattern_masks(pattern, n, rng=rng, **params)
    if configuration == "union":
        union = np.logical_or.reduce(cycle)
        return [union.copy() for _ in range(depth)]
    if configuration == "heads":
        if heads % len(cycle):
            raise ValueError(f"splitting {pattern}'s cycle of {len(cycle)} masks over the heads "
                             f"needs heads a multiple of {len(cycle)}, got heads={heads}")
        split = np.stack([cycle[h % len(cycle)] for h in range(heads)])
        return [split.copy() for _ in range(depth)]
    return [cycle[layer % len(cycle)] for layer in range(depth)]


def density(masks: list[np.ndarray]) -> float:
    """``mean_l |M_l| / n^2``: the fraction of query-key pairs computed, averaged over layers."""
    if not masks:
        raise ValueError("density of no masks")
    return float(np.mean([np.asarray(m, dtype=bool).mean() for m in masks]))


def matched_random(n: int, depth: int, target_density: float, rng: np.random.Generator, *,
                   heads: int | None = None) -> list[np.ndarray]:
    """``depth`` RANDOM masks with ``1 + r`` keys per query, ``r`` the smallest count whose density
    ``(1 + r) / n`` reaches ``target_density`` (at most ``n - 1``): one draw ``(n, n)`` per layer,
    or with ``heads`` one per head and layer (``(heads, n, n)`` per layer, drawn layer by
    layer)."""
    n, depth = integer("n", n, 1), integer("depth", depth, 1)
    if not 0 < target_density <= 1:
        raise ValueError(f"target_density must be in (0, 1], got {target_density!r}")
    r = min(n - 1, max(0, math.ceil(target_density * n - 1e-9) - 1))
    if heads is None:
        return pattern_masks("random", n, rng=rng, r=r, p=depth)
    heads = integer("heads", heads, 1)
    draws = pattern_masks("random", n, rng=rng, r=r, p=depth * heads)
    return [np.stack(draws[layer * heads:(layer + 1) * heads]) for layer in range(depth)]
