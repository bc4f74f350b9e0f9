"""The (eps_ratio, eps_zero)-approximation of a sparse target, its exact logits B, and the check.

Likhosherstov, Choromanski & Weller 2021 (arXiv 2106.03764; AAAI 2023). Verified [V] (abstract):
attention approximates a sparse target "in terms of preserving matrix element ratios"; verified from
a quoted caption [V2] (Figure 2): exp(B) is a row-rescaled approximation of A (Eq. 10). The precision
definition and the matrix B are OUR RECONSTRUCTION [R] (``shared/papers/likhosherstov.md`` §2).

Row form (tokens are rows); target ``A: (n, n)`` with support S_i (see ``sparse_target``).

* (eps_ratio, eps_zero)-approximation [R]: logits ``S: (n, n)``, attention M = rowsoftmax(S), and for
  every row i
    (1) ratio: max_{j in S_i} (S_ij - log A_ij) - min_{j in S_i} (S_ij - log A_ij) <= eps_ratio,
        i.e. |log(M_ij / M_ij') - log(A_ij / A_ij')| <= eps_ratio on the support;
    (2) zero: max_{j not in S_i} S_ij - min_{j in S_i} S_ij <= log eps_zero,
        i.e. M_ij <= eps_zero M_ij' for every j off and j' on the support.
  Both only involve logit differences within a row, so they are checked on the logits (no exp).
* B (Eq. 10 analogue): B_ij = log(A_ij / a_i) + log(1/eps_zero) + eps_ratio on S_i (a_i the row's
  smallest nonzero), 0 elsewhere; exp(B) is row-rescaled A on the support. An entrywise logit error
  <= eps_ratio / 2 implies (1) and (2).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from expressivity.sparse_target import SparseTarget


def check_tolerances(eps_ratio: float, eps_zero: float) -> None:
    """Refuse tolerances outside 0 < eps_ratio <= 1, 0 < eps_zero < 1."""
    if not 0 < eps_ratio <= 1:
        raise ValueError(f"eps_ratio must be in (0, 1], got {eps_ratio}")
    if not 0 < eps_zero < 1:
        raise ValueError(f"eps_zero must be in (0, 1), got {eps_zero}")


def logit_values(target: SparseTarget, eps_ratio: float, eps_zero: float) -> np.ndarray:
    """``B`` on the support, ``(n, k)`` (padding slots repeat the first entry; B is 0 off-support):
    ``B_ij = log(A_ij / a_i) + log(1/eps_zero) + eps_ratio`` [R] (Eq. 10 analogue)."""
    check_tolerances(eps_ratio, eps_zero)
    a = target.vals.min(axis=1, keepdims=True)
    return np.log(target.vals / a) + math.log(1 / eps_zero) + eps_ratio


@dataclass
class RowCheck:
    """Per-row outcome of the check: ``ratio_error, zero_gap, slack, max_error: (n,)``.

    ``slack = min(eps_ratio - ratio_error, log eps_zero - zero_gap)``; a row passes iff slack >= 0.
    ``max_error`` (when B is given) is max_j |S_ij - B_ij|.
    """

    ratio_error: np.ndarray
    zero_gap: np.ndarray
    slack: np.ndarray
    max_error: np.ndarray | None = None

    @property
    def ok(self) -> bool:
        return bool((self.slack >= 0).all())


def check_block(P: np.ndarray, cols: np.ndarray, log_a: np.ndarray, scale: float,
                 eps_ratio: float, log_eps_zero: float, B: np.ndarray | None = None) -> RowCheck:
    """Conditions (1) and (2) for the rows of ``P / scale``, ``P: (b, n)`` (modified and restored).

    ``cols, log_a, B: (b, k)`` support columns, log A and B values of these rows.
    """
    r = np.arange(P.shape[0])[:, None]
    sup = P[r, cols]
    P[r, cols] = -np.inf
    off_max = P.max(axis=1) / scale
    off_min = None
    if B is not None:
        P[r, cols] = np.inf
        off_min = P.min(axis=1) / scale
    P[r, cols] = sup
    sup = sup / scale
    dev = sup - log_a
    ratio = dev.max(axis=1) - dev.min(axis=1)
    gap = off_max - sup.min(axis=1)
    slack = np.minimum(eps_ratio - ratio, log_eps_zero - gap)
    err = None
    if B is not None:
        with np.errstate(invalid="ignore"):  # rows whose support is every column: no off-support
            off = np.fmax(np.abs(off_max), np.abs(off_min))
        err = np.fmax(np.abs(sup - B).max(axis=1), np.where(np.isfinite(off), off, 0.0))
    return RowCheck(ratio, gap, slack, err)


def check_logits(target: SparseTarget, S: np.ndarray, eps_ratio: float, eps_zero: float,
                 B: np.ndarray | None = None) -> RowCheck:
    """Is rowsoftmax(S) an (eps_ratio, eps_zero)-approximation of A? ``S: (n, n)`` logits (any
    per-row shift; only within-row differences matter). ``B: (n, k)`` adds the logit error."""
    check_tolerances(eps_ratio, eps_zero)
    S = np.array(S, dtype=float)
    if S.shape != (target.n, target.n):
        raise ValueError(f"logits must have shape ({target.n}, {target.n}), got {S.shape}")
    return check_block(S, target.cols, np.log(target.vals), 1.0, eps_ratio, math.log(eps_zero), B)


def check_attention(target: SparseTarget, M: np.ndarray, eps_ratio: float,
                    eps_zero: float) -> RowCheck:
    """The same check on an attention matrix ``M: (n, n)`` (rows positive, summing to 1):
    log M = S - logsumexp(S) has the same within-row differences. An entry that underflowed to 0
    in float64 cannot be judged and raises."""
    M = np.asarray(M, dtype=float)
    if (M <= 0).any():
        i, j = np.argwhere(M <= 0)[0]
        raise FloatingPointError(f"attention entry ({i}, {j}) is {M[i, j]} (underflow?): the check "
                                 "needs the logits; use check_logits")
    return check_logits(target, np.log(M), eps_ratio, eps_zero)
