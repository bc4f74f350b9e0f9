"""Where the attention's mass lies: the mass off the target's support and the row total variation.

Likhosherstov, Choromanski & Weller 2021 (arXiv 2106.03764; AAAI 2023) state the approximation "in
terms of preserving matrix element ratios" [V]; our reconstruction of it (``approximation_check``,
[R]) bounds every off-support weight by eps_zero times every support weight. That bounds each entry,
not the total: with k support entries and n - k off-support entries a row may put up to

    (n - k) eps_zero / (k + (n - k) eps_zero)  ->  1   (n -> infinity)

of its mass off the pattern [D]. This module measures it. Row form, ``M = rowsoftmax(S)``, target
``A`` with support S_i and row-normalised ``Abar_i = A_i / sum_j A_ij``:

    off_mass_i = sum_{j not in S_i} M_ij,        tv_i = (1/2) sum_j |M_ij - Abar_ij|
                                                      = (1/2) (off_mass_i + sum_{j in S_i} |M_ij - Abar_ij|).

A bound on the mass needs eps_zero of order eps / n (``mass_calibrated_eps_zero``): if every
off-support weight is at most (eps / n) times every support weight, the off-support mass is at
most (n - k) eps / (n k + (n - k) eps) < eps.
"""

from __future__ import annotations

import math

import numpy as np

from expressivity.arguments import finite_array, integer
from expressivity.sparse_target import SparseTarget


def mass_calibrated_eps_zero(eps: float, n: int) -> float:
    """``eps_zero = eps / n``: the per-entry tolerance that keeps the off-support mass below eps."""
    if not (isinstance(eps, (int, float)) and math.isfinite(eps) and 0 < eps < 1):
        raise ValueError(f"eps (largest off-support mass) must be in (0, 1), got {eps!r}")
    integer("n", n, 1)
    return eps / n


def row_mass(S: np.ndarray, cols: np.ndarray, vals: np.ndarray,
             real: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(off_mass, tv): (b,)`` of the rows of ``rowsoftmax(S)``, ``S: (b, n)`` logits (any per-row
    shift). ``cols, vals, real: (b, k)`` the rows' support columns, target values and which slots
    are genuine (padding slots repeat a genuine one and are ignored). ``S`` is not modified.

    The off-support sum is accumulated directly (support entries zeroed), never as 1 minus the
    support mass, so a small off-support mass keeps its relative precision."""
    S, vals = finite_array("S", S, 2), finite_array("vals", vals, 2)
    cols, real = np.asarray(cols), np.asarray(real)
    if S.ndim != 2 or cols.ndim != 2 or cols.shape[0] != S.shape[0] or vals.shape != cols.shape \
            or real.shape != cols.shape:
        raise ValueError(f"S must be (b, n) with cols, vals, real (b, k); got {S.shape}, {cols.shape}, "
                         f"{vals.shape}, {real.shape}")
    if not np.issubdtype(cols.dtype, np.integer) or real.dtype != bool:
        raise ValueError(f"cols must be integers and real booleans, got {cols.dtype} and {real.dtype}")
    bad = np.argwhere((cols < 0) | (cols >= S.shape[1]))
    if bad.size:
        raise ValueError(f"cols must be column indices in 0..{S.shape[1] - 1}, got {cols[tuple(bad[0])]} "
                         f"at index {tuple(int(i) for i in bad[0])}")
    if not real.any(axis=1).all():
        raise ValueError(f"real must mark a genuine slot in every row, row {np.argmin(real.any(axis=1))} "
                         "has none")
    if not (vals[real] > 0).all():
        raise ValueError(f"vals must be > 0 on the genuine slots, got {vals[real].min()}")
    r = np.arange(S.shape[0])[:, None]
    W = np.exp(S - S.max(axis=1, keepdims=True))
    sup = np.where(real, W[r, cols], 0.0)
    W[r, cols] = 0.0
    off = W.sum(axis=1)
    total = off + sup.sum(axis=1)
    M_sup = sup / total[:, None]
    A_bar = np.where(real, vals, 0.0)
    A_bar = A_bar / A_bar.sum(axis=1, keepdims=True)
    off_mass = off / total
    tv = 0.5 * (off_mass + np.abs(M_sup - A_bar).sum(axis=1))
    return off_mass, tv


def sample_rows(n: int, rows: int) -> np.ndarray:
    """``min(n, rows)`` row indices spread evenly over 0..n-1 (all rows when n <= rows)."""
    n, rows = integer("n", n, 1), integer("rows", rows, 1)
    return np.unique(np.linspace(0, n - 1, min(n, rows)).round().astype(np.int64))


def factor_mass(target: SparseTarget, QT: np.ndarray, KT: np.ndarray, d: int,
                rows: np.ndarray, block: int = 256) -> tuple[np.ndarray, np.ndarray]:
    """``off_mass, tv`` of the given rows of the construction's attention at dimension d, whose
    logits are ``QT[:d, rows].T KT[:d] / d`` (``fixed_module.coupled_factors``). Cost
    O(len(rows) n d)."""
    n = target.n
    QT, KT = finite_array("QT", QT, 2), finite_array("KT", KT, 2)
    if QT.ndim != 2 or QT.shape != KT.shape or QT.shape[1] != n:
        raise ValueError(f"factors QT, KT must both be (d_max, n = {n}), got {QT.shape} and {KT.shape}")
    if integer("d", d, 1) > QT.shape[0]:
        raise ValueError(f"d must be in [1, {QT.shape[0]}] (the factors' width), got {d}")
    rows, block = np.asarray(rows), integer("block", block, 1)
    if rows.ndim != 1 or rows.size == 0 or not np.issubdtype(rows.dtype, np.integer) \
            or ((rows < 0) | (rows >= n)).any():
        raise ValueError(f"rows must be a non-empty 1-d array of row indices in 0..{n - 1}, got {rows!r}")
    parts = []
    for b0 in range(0, len(rows), block):
        idx = rows[b0:b0 + block]
        S = QT[:d, idx].T @ KT[:d] / d
        parts.append(row_mass(S, target.cols[idx], target.vals[idx], target.real[idx]))
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def logit_target_mass(target: SparseTarget, B: np.ndarray) -> np.ndarray:
    """``(n,)`` off-support mass of rownorm(exp(B)), the construction's own target (B = 0 off the
    support): ``(n - c_i) / ((n - c_i) + sum_{s in S_i} exp(B_is))`` with c_i = |S_i|. ``B: (n, k)``
    per support slot (``approximation_check.logit_values``)."""
    B = finite_array("B", B, 2)
    if B.shape != target.cols.shape:
        raise ValueError(f"B must be (n, k) = {target.cols.shape} (one logit per support slot), got "
                         f"shape {B.shape}")
    off = target.n - target.count
    sup = np.where(target.real, np.exp(B), 0.0).sum(axis=1)
    return off / (off + sup)
