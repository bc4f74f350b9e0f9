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
from concurrent.futures import ThreadPoolExecutor
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
    ``grid[g]`` columns of G works iff >= 0). ``rows: (m,)`` the tracked rows, checked at every
    grid point (None: every row, in order); ``row_first, row_last_fail: (m,)`` their grid indices
    of first success and last failure (-1: none). ``max_error[g]``: max logit error, if tracked.

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
    rows: np.ndarray | None = None

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
        """Per tracked row: the grid d after its last failure, the row's own d_stable (NaN when it
        fails at d_max)."""
        g = self.row_last_fail + 1
        out = np.full(g.shape, np.nan)
        ok = g < len(self.grid)
        out[ok] = self.grid[g[ok]]
        return out


def slack_rounding_bound(QT: np.ndarray, KT: np.ndarray, d: int) -> float:
    """Bound on the float64 error of a slack at dimension <= d (``rounding_bound``) for the
    factors ``QT, KT: (d_max, n)``."""
    qn = math.sqrt(float(np.einsum("cj,cj->j", QT[:d], QT[:d]).max()))
    kn = math.sqrt(float(np.einsum("cj,cj->j", KT[:d], KT[:d]).max()))
    return rounding_bound(qn, kn, d)


def rounding_bound(q_norm: float, k_norm: float, d: int) -> float:
    """Bound on the float64 error of a slack at dimension <= d: a slack combines 4 logits, each
    a length-d dot product divided by d, with error <= gamma_d ||q_i|| ||k_j|| / d (``q_norm,
    k_norm``: the largest norms of a factor's first d entries)."""
    gamma = d * U64 / (1 - d * U64)
    return 4 * gamma * q_norm * k_norm / d + 1e-13


def check_grid(grid, QT: np.ndarray, KT: np.ndarray, n: int, finite: bool = True) -> np.ndarray:
    """The grid as an array, refused unless it is a non-empty increasing list of d >= 1 no larger
    than the factors' width, and ``QT, KT`` are ``(d_max, n)`` with finite entries (unless
    ``finite`` is False: the caller checks them where they are)."""
    grid = np.asarray(grid)
    if QT.ndim != 2 or QT.shape != KT.shape or QT.shape[1] != n:
        raise ValueError(f"factors QT, KT must both be (d_max, n = {n}), got {QT.shape} and "
                         f"{KT.shape}")
    if (grid.ndim != 1 or grid.size == 0 or not np.issubdtype(grid.dtype, np.integer)
            or grid[0] < 1 or (np.diff(grid) <= 0).any() or grid[-1] > QT.shape[0]):
        raise ValueError(f"grid must be a non-empty increasing list of integers d in [1, "
                         f"{QT.shape[0]}] (the factors' width), got {grid!r}")
    d_max = int(grid[-1])
    if finite and not (np.isfinite(QT[:d_max]).all() and np.isfinite(KT[:d_max]).all()):
        raise ValueError("factors QT, KT must be finite")
    return grid


def row_blocks(n: int, block: int, tracked: np.ndarray | None) -> list[tuple[np.ndarray, bool]]:
    """The blocks of rows of a search, in order, each ``(rows, tracked)``: the ``tracked`` rows
    first (every row when None), then the others, ``block`` rows at a time."""
    if isinstance(block, bool) or not isinstance(block, (int, np.integer)) or block < 1:
        raise ValueError(f"block (rows per block of logits) must be a positive integer, got "
                         f"{block!r}")
    if tracked is None:
        tracked = np.arange(n)
    tracked = np.asarray(tracked)
    if (tracked.ndim != 1 or tracked.size == 0 or not np.issubdtype(tracked.dtype, np.integer)
            or (np.diff(tracked) <= 0).any() or tracked[0] < 0 or tracked[-1] >= n):
        raise ValueError(f"tracked must be increasing row indices in [0, {n - 1}], got {tracked!r}")
    rest = np.setdiff1d(np.arange(n), tracked, assume_unique=True)
    return ([(tracked[i:i + block], True) for i in range(0, tracked.size, block)]
            + [(rest[i:i + block], False) for i in range(0, rest.size, block)])


class GridOutcome:
    """What the blocks of a search have shown so far, and which grid points the next block checks.

    A tracked block is checked at every grid point. Any other block is checked only at the
    candidates, the grid points where every row so far passed: a point some row failed can be
    neither d_min nor after the last failure (pruning), so its check is skipped and its columns
    fold into the next product (fewer, larger products). d_min and d_stable are those of checking
    every row everywhere; ``slack[g]`` at a pruned point is the smallest slack among the blocks that
    checked it (negative, and no further from 0 than the true one, so ``decision_margin`` stays a
    lower bound)."""

    def __init__(self, grid: np.ndarray, tracked: int):
        self.grid = grid
        self.slack = np.full(len(grid), np.inf)
        self.candidate = np.ones(len(grid), dtype=bool)
        self.row_first = np.full(tracked, -1)
        self.row_last_fail = np.full(tracked, -1)
        self.tracked_done = 0
        self.checks_done = 0

    def checks(self, tracked: bool) -> np.ndarray:
        """Grid indices the next block is checked at."""
        return np.arange(len(self.grid)) if tracked else np.flatnonzero(self.candidate)

    def add(self, checks: np.ndarray, slack_min: np.ndarray, ok: np.ndarray | None) -> None:
        """A block's outcome: ``slack_min: (C,)`` its smallest slack at each checked grid index;
        for a tracked block ``ok: (C, b)`` whether each row passes there (C: every grid point)."""
        self.checks_done += len(checks)
        self.slack[checks] = np.minimum(self.slack[checks], slack_min)
        self.candidate[checks] &= slack_min >= 0
        if ok is not None:
            g = np.arange(ok.shape[0])[:, None]
            rows = slice(self.tracked_done, self.tracked_done + ok.shape[1])
            self.row_first[rows] = np.where(ok.any(axis=0), np.argmax(ok, axis=0), -1)
            self.row_last_fail[rows] = np.where(~ok, g, -1).max(axis=0)
            self.tracked_done += ok.shape[1]

    def result(self, rounding_tol: float, rows: np.ndarray | None,
               max_error: np.ndarray | None = None) -> SearchResult:
        """The search's result; ``meta["checks"]``: grid points checked over all blocks."""
        return SearchResult(self.grid, self.slack, self.row_first, self.row_last_fail,
                            rounding_tol, max_error, meta={"checks": self.checks_done}, rows=rows)


def one_pass_search(target: SparseTarget, QT: np.ndarray, KT: np.ndarray, grid: np.ndarray,
                    eps_ratio: float, eps_zero: float, block: int = 256,
                    B: np.ndarray | None = None, tracked: np.ndarray | None = None,
                    threads: int = 1,
                    progress: Callable[[int, int], None] | None = None) -> SearchResult:
    """Check every grid d in ONE pass: for each block of rows, accumulate the logits
    ``P += Q[rows, d_prev:d] K[:, d_prev:d]^T`` column panel by column panel and check the rows at
    each grid point. Time O(n^2 d_max) (each product is computed once, added in place by BLAS dgemm
    with beta = 1), memory O(block n); float64.

    ``tracked``: increasing row indices checked at every grid point, first (their first success
    and last failure are ``row_first, row_last_fail``); every other row is checked only where no
    row before it failed (``GridOutcome``: pruning). None tracks every row (no pruning), as does
    ``B`` (n, k), which also tracks the max logit error at every grid point. ``threads``: the checks
    run on this many threads, rows split between them (the products use BLAS's own threads; with
    several, single-threaded checks would cap the speed-up). ``progress(rows_done, n)`` is called
    after each block.
    """
    check_tolerances(eps_ratio, eps_zero)
    integer("block (rows per block of logits)", block, 1)
    threads = integer("threads", threads, 1)
    grid = check_grid(grid, QT, KT, target.n)
    n, d_max = target.n, int(grid[-1])
    if B is not None:
        tracked = None
    blocks = row_blocks(n, block, tracked)
    log_a, log_z = np.log(target.vals), math.log(eps_zero)
    err = np.zeros(len(grid)) if B is not None else None
    out = GridOutcome(grid, sum(len(rows) for rows, full in blocks if full))
    pool = ThreadPoolExecutor(threads) if threads > 1 else None
    done = 0
    for rows, full in blocks:
        checks = out.checks(full)
        if len(checks):  # else every grid point failed already: nothing left to decide
            slack_min = np.empty(len(checks))
            ok = np.empty((len(checks), len(rows)), dtype=bool) if full else None
            Qb = QT[:d_max, rows]
            # P: (b, n) C-contiguous, the transpose of the Fortran-ordered PT BLAS updates in place
            PT = np.zeros((n, len(rows)), order="F")
            P = PT.T
            d_prev = 0
            for c, g in enumerate(checks):
                d = int(grid[g])
                # P^T += K[:, d_prev:d] Q[rows, d_prev:d]^T: one dgemm with beta = 1, no temporary
                dgemm(1.0, KT[d_prev:d].T, Qb[d_prev:d], beta=1.0, c=PT, overwrite_c=True)
                d_prev = d
                slack, error = _check(P, target.cols[rows], log_a[rows], float(d), eps_ratio,
                                      log_z, None if B is None else B[rows], pool, threads)
                slack_min[c] = slack.min()
                if ok is not None:
                    ok[c] = slack >= 0
                if err is not None:
                    err[g] = max(err[g], float(error.max()))
            out.add(checks, slack_min, ok)
        done += len(rows)
        if progress is not None:
            progress(done, n)
    if pool is not None:
        pool.shutdown()
    return out.result(slack_rounding_bound(QT, KT, d_max), tracked, err)


def _check(P: np.ndarray, cols: np.ndarray, log_a: np.ndarray, scale: float, eps_ratio: float,
           log_z: float, B: np.ndarray | None, pool: ThreadPoolExecutor | None,
           threads: int) -> tuple[np.ndarray, np.ndarray | None]:
    """``check_block``'s slack and max logit error of the rows of ``P``, on ``pool``'s threads
    (disjoint rows each; numpy releases the GIL in its reductions) when there is one."""
    if pool is None:
        chk = check_block(P, cols, log_a, scale, eps_ratio, log_z, B)
        return chk.slack, chk.max_error
    cuts = np.linspace(0, P.shape[0], threads + 1).astype(int)
    parts = list(pool.map(lambda s: check_block(P[s], cols[s], log_a[s], scale, eps_ratio, log_z,
                                                None if B is None else B[s]),
                          [slice(a, b) for a, b in zip(cuts[:-1], cuts[1:], strict=True)]))
    error = None if B is None else np.concatenate([part.max_error for part in parts])
    return np.concatenate([part.slack for part in parts]), error
