"""Gaussian random projections and the Johnson-Lindenstrauss (JL) dimension bound.

Used by the sparse-approximation construction (Likhosherstov, Choromanski & Weller 2021/2023,
arXiv 2106.03764; AAAI 37(7) 2023). The paper's abstract [V] says the proof rests on random
projections and the JL lemma and gives ``d = O(log n)``; its constants could not be read. The bound
below (called (*) in ``shared/papers/likhosherstov.md`` §3) is OUR reconstruction [R] with our own
constants:

    beta = sqrt(k) * (log R + log(1/eps_zero) + eps_ratio),    eta = eps_ratio / (2 beta),
    d >= 4 ln(4 n^2 / delta) / (eta^2 - 2 eta^3 / 3).                                   (*)

Proof sketch [D]: ``G: (n, d)`` with i.i.d. N(0, 1/d) entries has E[G G^T] = I_n; for unit u, v the
Dasgupta-Gupta bound and polarisation give P(|<G^T u, G^T v> - <u, v>| > eta) <= 4 exp(-d (eta^2 -
2 eta^3/3) / 4); a union bound over the n^2 pairs (u = B_i/||B_i||, v = e_j) makes every logit error
|(B G G^T - B)_ij| <= eta ||B_i||_2 <= eps_ratio / 2 with probability >= 1 - delta.
"""

from __future__ import annotations

import math

import numpy as np

from expressivity.approximation_check import check_tolerances
from expressivity.arguments import integer

#: Columns of G are drawn in panels of this width, so the first d columns of a projection drawn
#: for any d_max >= d are the same numbers (the prefix property the one-pass search relies on).
PANEL = 64


def gaussian_columns_T(rng: np.random.Generator, n: int, d: int) -> np.ndarray:
    """``G_raw^T: (d, n)`` (C-contiguous) for ``G_raw: (n, d)`` with i.i.d. N(0, 1) entries, drawn
    panel by panel (prefix-coupled).

    Two calls from generators in the same state return matrices whose common leading rows (columns
    of G) are identical, whatever ``d``. The construction's projection is ``G = G_raw / sqrt(d)``.
    The transposed layout makes every prefix ``G_raw[:, :d]`` a contiguous slab.
    """
    if n < 1 or d < 1:
        raise ValueError(f"projection shape must be positive, got n={n}, d={d}")
    out = np.empty((-(-d // PANEL) * PANEL, n))
    for p in range(out.shape[0] // PANEL):
        out[p * PANEL:(p + 1) * PANEL] = rng.standard_normal((n, PANEL)).T
    return out[:d]


def beta(k: int, R: float, eps_ratio: float, eps_zero: float) -> float:
    """Largest row norm ``||B_i||_2`` of the logit matrix B for targets with <= k nonzeros a row and
    within-row ratio <= R: ``sqrt(k) (log R + log(1/eps_zero) + eps_ratio)`` [R]."""
    check_tolerances(eps_ratio, eps_zero)
    if k < 1 or R < 1:
        raise ValueError(f"need k >= 1 and R >= 1, got k={k}, R={R}")
    return math.sqrt(k) * (math.log(R) + math.log(1 / eps_zero) + eps_ratio)


def jl_dimension(n: int, k: int, R: float, eps_ratio: float, eps_zero: float,
                 delta: float) -> int:
    """The sufficient projection dimension (*) (our reconstruction of the paper's theorem [R])."""
    if not 0 < delta < 1:
        raise ValueError(f"delta must be in (0, 1), got {delta}")
    eta = eps_ratio / (2 * beta(k, R, eps_ratio, eps_zero))
    return math.ceil(4 * math.log(4 * n * n / delta) / (eta**2 - 2 * eta**3 / 3))


def jl_error_bound(n: int, d: float, row_norm: float, delta: float) -> float:
    """The logit error that (*) guarantees at dimension d with probability >= 1 - delta:
    ``eta(d) * row_norm`` where eta solves ``d = 4 ln(4 n^2/delta) / (eta^2 - 2 eta^3/3)``
    (eta < 1); ``inf`` when d is too small for any eta < 1."""
    target = 4 * math.log(4 * n * n / delta) / d
    lo, hi = 0.0, 1.0
    if hi**2 - 2 * hi**3 / 3 < target:
        return math.inf
    for _ in range(100):  # eta^2 - 2 eta^3/3 is increasing on [0, 1]
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if mid**2 - 2 * mid**3 / 3 < target else (lo, mid)
    return hi * row_norm


def gaussian_max_quantile(row_sd, per_row: int, q: float = 0.5) -> float:
    """The q-quantile t of max_ij |E_ij| for independent ``E_ij ~ N(0, row_sd_i^2)``, ``per_row``
    entries in each row: the solution of ``sum_i per_row * ln(2 Phi(t / sd_i) - 1) = ln q`` [D].

    For n rows of n entries of one sd this is the maximum of n^2 Gaussian logit errors; its square
    grows like 2 ln(n^2) - ln ln(n^2) + O(1), i.e. linearly in ln n up to a ln ln n correction.
    ``row_sd: (rows,)`` positive; rows with sd 0 never err.
    """
    sd = np.asarray(row_sd, dtype=float).ravel()
    if sd.size == 0 or not np.isfinite(sd).all() or (sd < 0).any():
        raise ValueError("row_sd must be a non-empty array of finite numbers >= 0")
    integer("per_row", per_row, 1)
    if not 0 < q < 1:
        raise ValueError(f"q must be in (0, 1), got {q}")
    # scipy here, not at the top: the workflow imports this module to plan jobs (jl_dimension)
    from scipy import optimize, stats

    sd, rows = np.unique(sd[sd > 0], return_counts=True)  # rows of equal sd counted once
    if sd.size == 0:
        return 0.0
    target = math.log(q)

    def log_cdf(t: float) -> float:  # ln P(max <= t), increasing in t
        with np.errstate(divide="ignore"):  # ln 0 = -inf at t = 0
            return float(per_row * (rows * np.log1p(-2 * stats.norm.sf(t / sd))).sum())

    hi = float(sd.max())
    while log_cdf(hi) < target:
        hi *= 2
    return float(optimize.brentq(lambda t: log_cdf(t) - target, 0.0, hi, xtol=1e-12 * hi,
                                 rtol=1e-13))


def typical_max_error(row_norms, n: int, d: float, q: float = 0.5) -> float:
    """The q-quantile of the largest logit error max_ij |(X1 X2^T - B)_ij| at dimension d in the
    Gaussian model [D]: E_ij ~ N(0, ||B_i||^2 / d) independent over the n^2 entries (the variance of
    sum_l B_il <g_l, g_j> for j off the support; on the support it is (||B_i||^2 + B_ij^2) / d).
    Asymptotically sqrt(2 ln(n^2)) max_i ||B_i|| / sqrt(d)."""
    if not d > 0:
        raise ValueError(f"d must be > 0, got {d}")
    return gaussian_max_quantile(np.asarray(row_norms, dtype=float), n, q) / math.sqrt(d)


def typical_dimension(row_norms, n: int, eps_ratio: float, q: float = 0.5) -> float:
    """The parameter-free prediction of d [D]: the d at which the q-quantile of the maximum of the
    n^2 Gaussian logit errors (``typical_max_error``) equals eps_ratio / 2, the error below which
    both tolerances hold: ``d = (2 t_1 / eps_ratio)^2`` with t_1 the quantile at d = 1. No constant
    is fitted; the measured d_min is a roughly constant fraction of it when d_min grows as the
    maximum of n^2 Gaussians does, i.e. like ln n."""
    if not 0 < eps_ratio <= 1:
        raise ValueError(f"eps_ratio must be in (0, 1], got {eps_ratio}")
    return (2 * gaussian_max_quantile(np.asarray(row_norms, dtype=float), n, q) / eps_ratio) ** 2
