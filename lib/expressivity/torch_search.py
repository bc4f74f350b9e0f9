"""The one-pass search for d_min in torch float64, on a GPU when one is asked for.

The same search as ``one_pass_search.one_pass_search`` (Likhosherstov, Choromanski & Weller 2021,
arXiv 2106.03764: fixed W_Q, W_K, d = O(log n) [V]; construction and precision notion our
reconstruction [R]): for each block of rows the logits ``P = Q[rows, :d] K[:, :d]^T`` are
accumulated over the grid of d (``P += Q[rows, d_prev:d] K[:, d_prev:d]^T``, one ``addmm_`` per
grid point) and the rows are checked at every grid point against

    (1) max_{j in S_i} (S_ij - log A_ij) - min_{j in S_i} (S_ij - log A_ij) <= eps_ratio,
    (2) max_{j not in S_i} S_ij - min_{j in S_i} S_ij <= log eps_zero,        S = P / d,

with the same definitions of d_min, d_stable and the decision margin (``SearchResult``). Float64
throughout: each slack differs from the numpy search's by rounding only, bounded by
``slack_rounding_bound`` whatever the summation order; so d_min agrees wherever the recorded
decision margin exceeds that bound. The factors are drawn on the CPU by the library (the same
numbers as the numpy path) and copied to the device once.

The workflow uses it when ``device`` is ``cuda``, or ``auto`` on a machine with a GPU; on the CPU
the numpy search (BLAS dgemm in place) is the default and the tested path, and this module is
tested against the reference search on the CPU.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import torch

from expressivity.approximation_check import check_tolerances
from expressivity.arguments import integer
from expressivity.one_pass_search import SearchResult, check_grid, slack_rounding_bound
from expressivity.sparse_target import SparseTarget
from expressivity.torch_runtime import configure_torch

#: Bytes of one block of logits on the device (the block's rows are chosen to fill it).
BLOCK_BYTES = 2**30


def block_rows(n: int, block: int, device: torch.device) -> int:
    """Rows per block: ``block`` on the CPU; on a GPU as many as fill ``BLOCK_BYTES`` (fewer,
    larger products keep the device busy), at least ``block``."""
    n, block = integer("n", n, 1), integer("block", block, 1)
    if not isinstance(device, torch.device):
        raise ValueError(f"device must be a torch.device, got {device!r}")
    if device.type == "cpu":
        return block
    return max(block, min(n, BLOCK_BYTES // (8 * n)))


def one_pass_search_torch(target: SparseTarget, QT: np.ndarray, KT: np.ndarray, grid: np.ndarray,
                          eps_ratio: float, eps_zero: float, block: int = 256,
                          device: str = "cpu", prune: bool = True,
                          progress: Callable[[int, int], None] | None = None) -> SearchResult:
    """``one_pass_search`` in torch float64 on ``device`` ("cpu", "cuda" or "auto").

    ``QT, KT: (d_max, n)`` the unscaled factors (``fixed_module.coupled_factors``); ``grid`` the
    increasing candidate d; ``prune`` as in ``one_pass_search`` (a grid point some earlier block
    failed is skipped). ``progress(rows_done, n)`` is called after each block.
    """
    check_tolerances(eps_ratio, eps_zero)
    grid = check_grid(grid, QT, KT, target.n)
    dev = configure_torch(1, device)
    n, G = target.n, len(grid)
    rows = block_rows(n, block, dev)
    d_max = int(grid[-1])
    # the factors go to the device as they are (no host copy); Q is a transposed view, which
    # addmm_ takes without copying
    Q = torch.from_numpy(QT[:d_max]).to(dev).T  # (n, d_max)
    K = torch.from_numpy(KT[:d_max]).to(dev)  # (d_max, n)
    cols = torch.from_numpy(target.cols).to(dev)
    log_a = torch.from_numpy(np.log(target.vals)).to(dev)
    log_z = math.log(eps_zero)
    slack = torch.full((G,), math.inf, dtype=torch.float64, device=dev)
    row_first = torch.full((n,), -1, dtype=torch.int64, device=dev)
    row_last_fail = torch.full((n,), -1, dtype=torch.int64, device=dev)
    candidate = np.ones(G, dtype=bool)
    for r0 in range(0, n, rows):
        r1 = min(n, r0 + rows)
        P = torch.zeros((r1 - r0, n), dtype=torch.float64, device=dev)
        c, la = cols[r0:r1], log_a[r0:r1]
        # (row, column) of every support slot: index_put_ without accumulation is deterministic
        # (padding slots repeat a (column, value) pair, so their order does not matter)
        at = (torch.arange(r1 - r0, device=dev)[:, None].expand_as(c), c)
        hole = torch.full(c.shape, -math.inf, dtype=torch.float64, device=dev)
        first, last = row_first[r0:r1], row_last_fail[r0:r1]
        d_prev = 0
        for g, d in enumerate(grid):
            if prune and not candidate[g]:
                continue
            P.addmm_(Q[r0:r1, d_prev:int(d)], K[d_prev:int(d)])
            d_prev = int(d)
            raw = P[at]
            P.index_put_(at, hole)
            off_max = P.amax(dim=1) / d
            P.index_put_(at, raw)
            sup = raw / d
            dev_ = sup - la
            ratio = dev_.amax(dim=1) - dev_.amin(dim=1)
            gap = off_max - sup.amin(dim=1)
            s = torch.minimum(eps_ratio - ratio, log_z - gap)
            ok = s >= 0
            first[(first < 0) & ok] = g
            last[~ok] = g
            slack[g] = torch.minimum(slack[g], s.min())
            if prune:
                candidate[g] &= bool(ok.all())
        if progress is not None:
            progress(r1, n)
    return SearchResult(np.asarray(grid), slack.cpu().numpy(), row_first.cpu().numpy(),
                        row_last_fail.cpu().numpy(), slack_rounding_bound(QT, KT, d_max))
