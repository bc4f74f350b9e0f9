"""The one-pass search for the smallest working d (d_min) of the construction.

Likhosherstov, Choromanski & Weller 2021 (arXiv 2106.03764; AAAI 2023) bound the hidden size by
d = O(log n) [V] (abstract); the sufficient d of our reconstruction is ``random_projection``'s bound
(*) [R]. This module measures the smallest d that actually works for one draw of G [D]:

* ``d_grid``: the candidate dimensions; a grid for a larger d_max extends a smaller one.
* ``one_pass_search``: with prefix-coupled factors (``fixed_module.coupled_factors``: the first d
  columns of G are the same numbers for every d_max), the logits at d are
  ``QT[:d].T KT[:d] / d = X1 X2^T`` (row form: B G G^T); they are accumulated over the grid in one
  pass, ``P += Q[:, d_prev:d] K[:, d_prev:d]^T``, and checked (``approximation_check``) at every
  grid point: O(n^2 d_max) time instead of O(n^2 sum(grid)).
* ``SearchResult``: d_min (first working grid d), d_stable (after the last failure) and the float64
  decision margin against a rounding bound.

One trial (the horizon extended until it reaches past d_min, on the CPU or a GPU) is
``d_min_search.search_d_min``; the torch version of this search is ``torch_search``.

The naive searches (full logits from scratch per d; bisection) are in
``expressivity.reference.sparse_approximation``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from scipy.linalg.blas import dgemm

from expressivity.approximation_check import check_block, check_tolerances
from expressivity.arguments import integer
from expressivity.fixed_module import U64
from expressivity.sparse_target import SparseTarget


def d_grid(d_start: int, d_max: int, resolution: float, min_step: int) -> np.ndarray:
    """Candidate dimensions: d_start, then ``d <- max(d + min_step, ceil(d (1 + resolution)))`` while
    <= d_max. The grid for a larger d_max extends the one for a smaller d_max (prefix property)."""
    if not (1 <= d_start <= d_max and min_step >= 1 and resolution >= 0):
        raise ValueError(f"bad grid: d_start={d_start}, d_max={d_max}, min_step={min_step}, "
                         f"resolution={resolution}")
    grid = [d_start]
    while True:
        nxt = max(grid[-1] + min_step, math.ceil(grid[-1] * (1 + resolution)))
        if nxt > d_max:
            return np.array(grid)
        grid.append(nxt)


def coarse_indices(grid: np.ndarray, coarse: float) -> list[int]:
    """Indices of a subsequence of ``grid`` that starts at its first point and takes the next
    point at least ``1 + coarse`` times the last one taken (every point when ``coarse`` is 0)."""
    taken = [0]
    for i in range(1, len(grid)):
        if grid[i] >= (1 + coarse) * grid[taken[-1]]:
            taken.append(i)
    return taken


@dataclass
class SearchResult:
    """Outcome of a search over a grid of d (all arrays over the grid unless said otherwise).

    ``slack[g]``: min over rows of the slack at ``grid[g]`` (the construction with the first
    ``grid[g]`` columns of G works iff >= 0). ``row_first, row_last_fail: (n,)`` grid indices of a
    row's first success and last failure (-1: none) among the grid points checked for its block
    (all of them unless the search pruned). ``max_error[g]``: max logit error, if tracked.

    Definitions: ``d_min`` is the smallest grid d at which the construction works, every row
    meeting both tolerances at once (the issue's "smallest working d"; what an upward scan finds).
    Success is not monotone in d (the logit error is random in d: a row can pass at some d and fail
    again at a larger one), so ``d_stable`` [ours] is also reported: the smallest grid d such that
    the construction works at EVERY grid d' with d <= d' <= d_max (the grid point after the last
    failure), so it only speaks for the searched horizon; ``d_min <= d_stable``. ``d_min`` is NaN
    (censored) when no grid d works, ``d_stable`` when the construction fails at d_max.
    """

    grid: np.ndarray
    slack: np.ndarray
    row_first: np.ndarray
    row_last_fail: np.ndarray
    rounding_tol: float
    max_error: np.ndarray | None = None
    extensions: int = 0
    meta: dict = field(default_factory=dict)
    #: ``(QT, KT)`` of the search (set by ``d_min_search.search_d_min``), for measurements at d_min.
    factors: tuple[np.ndarray, np.ndarray] | None = field(default=None, repr=False)

    @property
    def last_fail(self) -> int:
        bad = np.flatnonzero(self.slack < 0)
        return int(bad[-1]) if bad.size else -1

    @property
    def d_stable(self) -> float:
        g = self.last_fail + 1
        return float(self.grid[g]) if g < len(self.grid) else math.nan

    @property
    def d_min(self) -> float:
        good = np.flatnonzero(self.slack >= 0)
        return float(self.grid[good[0]]) if good.size else math.nan

    @property
    def decision_margin(self) -> float:
        """min |slack| over the grid points that decide d_min and d_stable (up to the first
        success, and from the last failure on)."""
        first = int(np.flatnonzero(self.slack >= 0)[0]) if (self.slack >= 0).any() else 0
        deciding = np.concatenate([self.slack[: first + 1], self.slack[max(self.last_fail, 0):]])
        return float(np.abs(deciding).min())

    @property
    def decided(self) -> bool:
        """False when rounding (bounded by ``rounding_tol``) could flip the decision."""
        return self.decision_margin > self.rounding_tol

    @property
    def row_d_min(self) -> np.ndarray:
        """Per row: the grid d after its last checked failure (NaN when it fails at d_max)."""
        g = self.row_last_fail + 1
        out = np.full(g.shape, np.nan)
        ok = g < len(self.grid)
        out[ok] = self.grid[g[ok]]
        return out


def slack_rounding_bound(QT: np.ndarray, KT: np.ndarray, d: int) -> float:
    """Bound on the float64 error of a slack at dimension <= d: a slack combines 4 logits, each
    a length-d dot product divided by d, with error <= gamma_d ||q_i|| ||k_j|| / d."""
    gamma = d * U64 / (1 - d * U64)
    qn = math.sqrt(float(np.einsum("cj,cj->j", QT[:d], QT[:d]).max()))
    kn = math.sqrt(float(np.einsum("cj,cj->j", KT[:d], KT[:d]).max()))
    return 4 * gamma * qn * kn / d + 1e-13


def check_grid(grid, QT: np.ndarray, KT: np.ndarray, n: int) -> np.ndarray:
    """The grid as an array, refused unless it is a non-empty increasing list of d >= 1 no larger
    than the factors' width, and ``QT, KT`` are ``(d_max, n)`` with finite entries."""
    grid = np.asarray(grid)
    if QT.ndim != 2 or QT.shape != KT.shape or QT.shape[1] != n:
        raise ValueError(f"factors QT, KT must both be (d_max, n = {n}), got {QT.shape} and "
                         f"{KT.shape}")
    if (grid.ndim != 1 or grid.size == 0 or not np.issubdtype(grid.dtype, np.integer)
            or grid[0] < 1 or (np.diff(grid) <= 0).any() or grid[-1] > QT.shape[0]):
        raise ValueError(f"grid must be a non-empty increasing list of integers d in [1, "
                         f"{QT.shape[0]}] (the factors' width), got {grid!r}")
    d_max = int(grid[-1])
    if not (np.isfinite(QT[:d_max]).all() and np.isfinite(KT[:d_max]).all()):
        raise ValueError("factors QT, KT must be finite")
    return grid


def one_pass_search(target: SparseTarget, QT: np.ndarray, KT: np.ndarray, grid: np.ndarray,
                    eps_ratio: float, eps_zero: float, block: int = 256,
                    B: np.ndarray | None = None, prune: bool = True,
                    progress: Callable[[int, int], None] | None = None) -> SearchResult:
    """Check every grid d in ONE pass: for each block of rows, accumulate the logits
    ``P += Q[rows, d_prev:d] K[:, d_prev:d]^T`` column panel by column panel and check the rows at
    each grid point. Time O(n^2 d_max) (each product is computed once, added in place by BLAS dgemm
    with beta = 1), memory O(block n); float64.

    ``prune``: a grid d at which some earlier block already failed can be neither d_min nor after
    the last failure, so later blocks skip its check and fold its columns into the next product
    (fewer, larger products). d_min and d_stable are unchanged; ``slack[g]`` at such a d is the
    smallest slack among the blocks that checked it (negative, and no further from 0 than the true
    one, so ``decision_margin`` stays a lower bound); ``row_first`` and ``row_last_fail`` count the
    grid points checked for the row's block. ``B`` (n, k) also tracks the max logit error at every
    grid point (and turns pruning off). ``progress(rows_done, n)`` is called after each block.
    """
    check_tolerances(eps_ratio, eps_zero)
    integer("block (rows per block of logits)", block, 1)
    grid = check_grid(grid, QT, KT, target.n)
    n, G = target.n, len(grid)
    log_a, log_z = np.log(target.vals), math.log(eps_zero)
    slack = np.full(G, np.inf)
    err = np.zeros(G) if B is not None else None
    row_first = np.full(n, -1)
    row_last_fail = np.full(n, -1)
    prune = prune and B is None
    candidate = np.ones(G, dtype=bool)  # every row checked so far passes at grid[g]
    for r0 in range(0, n, block):
        r1 = min(n, r0 + block)
        # P: (b, n) C-contiguous, the transpose of the Fortran-ordered PT that BLAS updates in place
        PT = np.zeros((n, r1 - r0), order="F")
        P = PT.T
        first = row_first[r0:r1]
        last = row_last_fail[r0:r1]
        d_prev = 0
        for g, d in enumerate(grid):
            if prune and not candidate[g]:
                continue
            # P^T += K[:, d_prev:d] Q[rows, d_prev:d]^T: one dgemm with beta = 1, no temporary
            dgemm(1.0, KT[d_prev:d].T, QT[d_prev:d, r0:r1], beta=1.0, c=PT, overwrite_c=True)
            d_prev = d
            chk = check_block(P, target.cols[r0:r1], log_a[r0:r1], float(d), eps_ratio, log_z,
                               None if B is None else B[r0:r1])
            ok = chk.slack >= 0
            first[(first < 0) & ok] = g
            last[~ok] = g
            candidate[g] &= bool(ok.all())
            slack[g] = min(slack[g], float(chk.slack.min()))
            if err is not None:
                err[g] = max(err[g], float(chk.max_error.max()))
        if progress is not None:
            progress(r1, n)
    return SearchResult(grid, slack, row_first, row_last_fail,
                        slack_rounding_bound(QT, KT, int(grid[-1])), err)
