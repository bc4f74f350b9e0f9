"""The one-pass search for d_min in torch float64, on a GPU when one is asked for.

The same search as ``one_pass_search.one_pass_search`` (Likhosherstov, Choromanski & Weller 2021,
arXiv 2106.03764: fixed W_Q, W_K, d = O(log n) [V]; construction and precision notion our
reconstruction [R]): for each block of rows the logits ``P = Q[rows, :d] K[:, :d]^T`` are
accumulated over the grid of d (``P += Q[rows, d_prev:d] K[:, d_prev:d]^T``, one ``addmm_`` per
checked grid point, the columns of skipped points folded into the next product) and the rows are
checked against

    (1) max_{j in S_i} (S_ij - log A_ij) - min_{j in S_i} (S_ij - log A_ij) <= eps_ratio,
    (2) max_{j not in S_i} S_ij - min_{j in S_i} S_ij <= log eps_zero,        S = P / d,

with the same blocks (``one_pass_search.row_blocks``: the tracked rows at every grid point, the
others where no row before them failed), the same definitions of d_min, d_stable and the decision
margin (``SearchResult``, ``GridOutcome``). The device works through a block without waiting for
the host: the slacks of every checked grid point stay on it until the block is decided in one
transfer. Float64 throughout: each slack differs from the numpy search's by rounding only, bounded
by ``rounding_bound`` whatever the summation order; so d_min agrees wherever the recorded decision
margin exceeds that bound. The factors are the numpy path's numbers: ``device_factors`` forms them
on the device from G drawn on the host.

The workflow uses it when a job's ``device`` is ``cuda``, or ``auto`` where the job is placed on a
GPU; on the CPU the numpy search (BLAS dgemm in place) is the default and the tested path, and this
module is tested against the reference search on the CPU (and on a GPU by
``benchmarks/device_check.sh``).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import torch

from expressivity.approximation_check import check_tolerances
from expressivity.arguments import integer
from expressivity.fixed_module import coupled_factors
from expressivity.one_pass_search import (
    GridOutcome,
    SearchResult,
    check_grid,
    rounding_bound,
    row_blocks,
    slack_rounding_bound,
)
from expressivity.random_projection import gaussian_columns_T
from expressivity.sparse_target import SparseTarget
from expressivity.torch_runtime import configure_torch

#: Bytes of one block of logits on the device (the block's rows are chosen to fill it).
BLOCK_BYTES = 2**30
#: Rows of the factors formed at a time on the device (bounds the gathers' temporaries).
FACTOR_PANEL = 1024


def block_rows(n: int, block: int, device: torch.device) -> int:
    """Rows per block: ``block`` on the CPU; on a GPU as many as fill ``BLOCK_BYTES`` (fewer,
    larger products keep the device busy), at least ``block``."""
    n, block = integer("n", n, 1), integer("block", block, 1)
    if not isinstance(device, torch.device):
        raise ValueError(f"device must be a torch.device, got {device!r}")
    if device.type == "cpu":
        return block
    return max(block, min(n, BLOCK_BYTES // (8 * n)))


def device_factors(target: SparseTarget, B: np.ndarray, rng: np.random.Generator, d_max: int,
                   form: str = "row", device: str = "cpu") -> tuple[torch.Tensor, torch.Tensor]:
    """``fixed_module.coupled_factors`` with the factors ``QT, KT: (d_max, n)`` on ``device``: G is
    drawn on the host (the same numbers; ``rng`` left in the same state), and in the row form
    ``QT = take(G^T, cols[:, s]) * B[:, s]`` summed over the support slots is formed on the device
    with the host's operations in the host's order (products, then sums: the same bits), so the
    host no longer does the k gathers of n d_max entries. The column form (a scatter) is built on
    the host and copied."""
    dev = configure_torch(1, device)
    if form != "row":
        return tuple(torch.from_numpy(f).to(dev) for f in coupled_factors(target, B, rng, d_max,
                                                                          form))
    KT = torch.from_numpy(gaussian_columns_T(rng, target.n, d_max)).to(dev)
    Bw = torch.from_numpy(np.where(target.real, B, 0.0)).to(dev)  # padding slots: no weight
    cols = torch.from_numpy(target.cols).to(dev)
    QT = torch.empty_like(KT)
    for r0 in range(0, d_max, FACTOR_PANEL):  # panels of rows bound the temporaries
        part, out = KT[r0:r0 + FACTOR_PANEL], QT[r0:r0 + FACTOR_PANEL]
        torch.mul(part[:, cols[:, 0]], Bw[:, 0], out=out)
        for s in range(1, target.k):
            out += part[:, cols[:, s]] * Bw[:, s]
    return QT, KT


def one_pass_search_torch(target: SparseTarget, QT, KT, grid: np.ndarray, eps_ratio: float,
                          eps_zero: float, block: int = 256, device: str = "cpu",
                          tracked: np.ndarray | None = None,
                          progress: Callable[[int, int], None] | None = None) -> SearchResult:
    """``one_pass_search`` in torch float64 on ``device`` ("cpu", "cuda" or "auto").

    ``QT, KT: (d_max, n)`` the unscaled factors: numpy arrays (``fixed_module.coupled_factors``,
    copied to the device once) or tensors already there (``device_factors``); ``grid`` the
    increasing candidate d; ``tracked`` as in ``one_pass_search`` (rows checked at every grid
    point; the others only where no row before them failed). The device works through a block
    without waiting: every checked grid point's slacks are reduced on the device and the block is
    decided in one transfer, the only host synchronisation per block. ``progress(rows_done, n)``
    is called after each block.
    """
    check_tolerances(eps_ratio, eps_zero)
    dev = configure_torch(1, device)
    n = target.n
    if isinstance(QT, np.ndarray):
        grid = check_grid(grid, QT, KT, n)
        d_max = int(grid[-1])
        tol = slack_rounding_bound(QT, KT, d_max)
        # the factors go to the device as they are (no host copy)
        QT, KT = torch.from_numpy(QT[:d_max]).to(dev), torch.from_numpy(KT[:d_max]).to(dev)
    else:
        grid = check_grid(grid, QT, KT, n, finite=False)  # shapes only: finite checked here
        d_max = int(grid[-1])
        if not (bool(QT[:d_max].isfinite().all()) and bool(KT[:d_max].isfinite().all())):
            raise ValueError("factors QT, KT must be finite")
        tol = rounding_bound(*(float(torch.linalg.vector_norm(F[:d_max], dim=0).max())
                               for F in (QT, KT)), d_max)
    # the tracked rows form one block on a GPU (as many rows as fit), the others fill BLOCK_BYTES
    blocks = row_blocks(n, block_rows(n, block, dev), tracked)
    Q, K = QT[:d_max].T, KT[:d_max]  # (n, d_max), a transposed view; (d_max, n)
    cols = torch.from_numpy(target.cols).to(dev)
    log_a = torch.from_numpy(np.log(target.vals)).to(dev)
    out = GridOutcome(grid, sum(len(rows) for rows, full in blocks if full))
    done = 0
    for rows, full in blocks:
        checks = out.checks(full)
        if len(checks):  # else every grid point failed already: nothing left to decide
            idx = torch.from_numpy(rows).to(dev)
            slack = _block_slacks(Q[idx], K, cols[idx], log_a[idx], grid[checks], eps_ratio,
                                  math.log(eps_zero))  # (C, b), on the device
            ok = (slack >= 0).cpu().numpy() if full else None
            out.add(checks, slack.amin(dim=1).cpu().numpy(), ok)
        done += len(rows)
        if progress is not None:
            progress(done, n)
    return out.result(tol, tracked)


def row_logits(QT: torch.Tensor, KT: torch.Tensor, d: int, rows: np.ndarray) -> np.ndarray:
    """``QT[:d, rows]^T KT[:d] / d: (len(rows), n)``, the logits of some rows at d, computed on
    the factors' device and returned to the host."""
    idx = torch.from_numpy(np.asarray(rows)).to(QT.device)
    return (QT[:d, idx].T @ KT[:d] / d).cpu().numpy()


def _block_slacks(Qb: torch.Tensor, K: torch.Tensor, cols: torch.Tensor, log_a: torch.Tensor,
                  ds: np.ndarray, eps_ratio: float, log_z: float) -> torch.Tensor:
    """``(C, b)`` slacks of a block's rows at the grid d in ``ds``, without a host synchronisation:
    the logits ``P = Qb[:, :d] K[:d]`` accumulated panel by panel (``addmm_``), conditions (1) and
    (2) evaluated on ``P / d`` at each d. ``Qb: (b, d_max)``, ``cols, log_a: (b, k)``."""
    b, n = Qb.shape[0], K.shape[1]
    P = torch.zeros((b, n), dtype=torch.float64, device=K.device)
    # (row, column) of every support slot: index_put_ without accumulation is deterministic
    # (padding slots repeat a (column, value) pair, so their order does not matter)
    at = (torch.arange(b, device=K.device)[:, None].expand_as(cols), cols)
    hole = torch.full(cols.shape, -math.inf, dtype=torch.float64, device=K.device)
    slack = torch.empty((len(ds), b), dtype=torch.float64, device=K.device)
    d_prev = 0
    for c, d in enumerate(int(d) for d in ds):
        P.addmm_(Qb[:, d_prev:d], K[d_prev:d])
        d_prev = d
        raw = P[at]
        P.index_put_(at, hole)
        off_max = P.amax(dim=1) / d
        P.index_put_(at, raw)
        sup = raw / d
        dev_ = sup - log_a
        ratio = dev_.amax(dim=1) - dev_.amin(dim=1)
        gap = off_max - sup.amin(dim=1)
        torch.minimum(eps_ratio - ratio, log_z - gap, out=slack[c])
    return slack
