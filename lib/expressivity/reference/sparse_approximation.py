"""Reference implementations of the d_min search (sparse-approximation stage), named as such.

The fast search is ``expressivity.one_pass_search.one_pass_search`` (logits accumulated over the
grid in one pass). These recompute the full logits ``QT[:d].T KT[:d] / d`` from scratch at every d
they probe: ``naive_search`` at every grid d (the "implementation equals reference" test compares
the two), ``binary_search`` by bisection (the naive method the benchmark times against).
"""

from __future__ import annotations

import math

import numpy as np

from expressivity.approximation_check import RowCheck, check_block
from expressivity.one_pass_search import SearchResult, slack_rounding_bound
from expressivity.sparse_target import SparseTarget


def slack_at(target: SparseTarget, QT: np.ndarray, KT: np.ndarray, d: int, eps_ratio: float,
             eps_zero: float, block: int = 256) -> RowCheck:
    """The check at dimension d, computed from scratch in row blocks (memory O(block n))."""
    n, parts = target.n, []
    log_a = np.log(target.vals)
    for r0 in range(0, n, block):
        r1 = min(n, r0 + block)
        P = QT[:d, r0:r1].T @ KT[:d]
        parts.append(check_block(P, target.cols[r0:r1], log_a[r0:r1], d, eps_ratio,
                                 math.log(eps_zero)))
    return RowCheck(*(np.concatenate([getattr(p, f) for p in parts])
                      for f in ("ratio_error", "zero_gap", "slack")))


def naive_search(target: SparseTarget, QT: np.ndarray, KT: np.ndarray, grid: np.ndarray,
                 eps_ratio: float, eps_zero: float, block: int = 256) -> SearchResult:
    """The reference of ``one_pass_search``: the full logits recomputed from scratch at every grid d
    (same definitions of d_min and d_stable; O(n^2 sum(grid)) time)."""
    grid = np.asarray(grid)
    chks = [slack_at(target, QT, KT, int(d), eps_ratio, eps_zero, block).slack for d in grid]
    slack = np.array([c.min() for c in chks])
    oks = np.array([c >= 0 for c in chks])  # (G, n)
    g_idx = np.arange(len(grid))[:, None]
    first = np.where(oks.any(axis=0), np.where(oks, g_idx, len(grid)).min(axis=0), -1)
    last = np.where((~oks).any(axis=0), np.where(~oks, g_idx, -1).max(axis=0), -1)
    return SearchResult(grid, slack, first, last, slack_rounding_bound(QT, KT, int(grid[-1])))


def binary_search(target: SparseTarget, QT: np.ndarray, KT: np.ndarray, grid: np.ndarray,
                  eps_ratio: float, eps_zero: float, block: int = 256) -> tuple[float, int]:
    """The naive alternative the benchmark compares with: bisection over the grid, recomputing the
    full logits at each probe. It assumes success is monotone in d (it is not always), so it may
    return a different d; returns (d, number of probes)."""
    lo, hi, probes = 0, len(grid) - 1, 0

    def works(g):
        return slack_at(target, QT, KT, int(grid[g]), eps_ratio, eps_zero, block).ok

    probes += 1
    if not works(hi):
        return math.nan, probes
    while lo < hi:
        mid = (lo + hi) // 2
        probes += 1
        if works(mid):
            hi = mid
        else:
            lo = mid + 1
    return float(grid[lo]), probes
