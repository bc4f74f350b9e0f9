"""Sparse attention patterns from a FIXED self-attention module by changing only its input.

Likhosherstov, Choromanski & Weller, "On the Expressive Power of Self-Attention Matrices" (arXiv
2106.03764, 2021); AAAI 2023 version "On the Expressive Flexibility of Self-Attention Matrices".
Verified [V] (abstract): fixed W_Q, W_K approximate any matrix with a bounded number of nonzeros per
row and column, "in terms of preserving matrix element ratios", with hidden size d = O(log n); the
proof is constructive, via random projections and the JL lemma. Verified from a quoted caption [V2]
(Figure 2): exp(B) is a row-rescaled approximation of A (Eq. 10); X^(1) X^(2)T is an unbiased
approximation of B (Eq. 14); X^(1) X^(2)T = X W_Q W_K^T X^T (Eqs. 15-17).
The full text could not be read: the precision definition, the matrix B, the scaling of G and the
bound on d below are OUR RECONSTRUCTION [R] (``shared/papers/likhosherstov.md`` §2-§4), consistent
with every verified fact; the constants are ours.

Row form (tokens are rows). Target ``A: (n, n)``, A >= 0, every row has a nonzero, at most k
nonzeros per row and per column; support S_i = {j : A_ij > 0}.

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
* Construction (Eqs. 14-17 analogue), row form: G: (n, d) i.i.d. N(0, 1/d); X1 = B G, X2 = G;
  X = [X1, X2]: (n, 2d); W_Q = d^(1/4) [I_d; 0], W_K = d^(1/4) [0; I_d]: (2d, d), fixed;
  logits (X W_Q)(X W_K)^T / sqrt(d) = X1 X2^T = B G G^T, E[.] = B.
  Column (transposed) form: X1 = G, X2 = B^T G, logits G G^T B; it needs column sparsity the way
  the row form needs row sparsity (the abstract asks for both) [R].
* d_min: see ``one_pass_search``.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
from scipy.linalg.blas import dgemm, dsyrk

from expressivity.random_projection import (
    PANEL,
    _check_tolerances,
    gaussian_columns_T,
    jl_dimension,
)

FORMS = ("row", "column")
KINDS = ("permutations", "band", "block")
#: Unit roundoff of float64.
U64 = 2.0**-53


class TargetError(ValueError):
    """A target matrix outside the class (names the offending row, column or entry)."""


# ------------------------------------------------------------------------------------------------
# Targets
# ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SparseTarget:
    """``A: (n, n)`` stored by rows: ``A[i, cols[i, s]] = vals[i, s]`` for ``s < count[i]``.

    ``cols, vals: (n, k)``; padding slots (s >= count[i]) repeat the row's first entry, so a row
    maximum or minimum over all k slots equals the one over its support. Never holds n x n.
    """

    cols: np.ndarray
    vals: np.ndarray
    count: np.ndarray
    k: int

    @property
    def n(self) -> int:
        return self.cols.shape[0]

    @property
    def real(self) -> np.ndarray:
        """``(n, k)`` bool: which slots are genuine nonzeros (not padding)."""
        return np.arange(self.cols.shape[1])[None, :] < self.count[:, None]

    @property
    def ratio(self) -> float:
        """The largest within-row ratio max_j A_ij / min_j A_ij (the R of the bound)."""
        return float((self.vals.max(axis=1) / self.vals.min(axis=1)).max())

    def to_dense(self) -> np.ndarray:
        if self.n > 4096:
            raise ValueError(f"to_dense refuses n = {self.n} > 4096 (an n x n matrix)")
        A = np.zeros((self.n, self.n))
        A[np.arange(self.n)[:, None], self.cols] = self.vals
        return A

    @classmethod
    def from_dense(cls, A, k: int) -> SparseTarget:
        """Validate a dense target and store it by rows (errors name the row, column or entry)."""
        A = np.asarray(A, dtype=float)
        if A.ndim != 2 or A.shape[0] != A.shape[1] or A.shape[0] == 0:
            raise TargetError(f"target must be a non-empty square matrix, got shape {A.shape}")
        _check_k(k)
        bad = np.argwhere(~np.isfinite(A))
        if bad.size:
            i, j = bad[0]
            raise TargetError(f"target entry ({i}, {j}) is not finite ({A[i, j]})")
        bad = np.argwhere(A < 0)
        if bad.size:
            i, j = bad[0]
            raise TargetError(f"target entry ({i}, {j}) is negative ({A[i, j]}); entries must be "
                              ">= 0")
        nz = A > 0
        _check_counts(nz.sum(axis=1), nz.sum(axis=0), k)
        n = A.shape[0]
        count = nz.sum(axis=1)
        # nonzero columns first, in increasing order (a stable sort on "is zero")
        order = np.argsort(~nz, axis=1, kind="stable")[:, :k]
        slot = np.arange(k)[None, :] < count[:, None]
        cols = np.where(slot, order, order[:, :1])
        rows = np.arange(n)[:, None]
        return cls(cols=cols.astype(np.int64), vals=A[rows, cols], count=count, k=k)

    def validate(self) -> SparseTarget:
        """Check the stored form (as built by the generators); return self."""
        _check_k(self.k)
        n = self.n
        if self.cols.shape != (n, self.k) or self.vals.shape != (n, self.k):
            raise TargetError(f"cols/vals must have shape ({n}, {self.k})")
        if (self.cols < 0).any() or (self.cols >= n).any():
            i = int(np.argwhere((self.cols < 0) | (self.cols >= n))[0, 0])
            raise TargetError(f"target row {i} has a column index outside [0, {n})")
        real = self.real
        bad = np.argwhere(~np.isfinite(self.vals) | (self.vals <= 0))
        if bad.size:
            i, s = bad[0]
            raise TargetError(f"target entry ({i}, {self.cols[i, s]}) is {self.vals[i, s]}; "
                              "stored nonzeros must be positive and finite")
        col_counts = np.bincount(self.cols[real], minlength=n)
        dup = [i for i in range(n) if len(set(self.cols[i, real[i]])) != self.count[i]]
        if dup:
            raise TargetError(f"target row {dup[0]} lists a column twice")
        _check_counts(self.count, col_counts, self.k)
        return self


def _check_k(k: int) -> None:
    if not isinstance(k, (int, np.integer)) or k < 1:
        raise TargetError(f"k (nonzeros per row and column) must be a positive integer, got {k!r}")


def _check_counts(row_counts: np.ndarray, col_counts: np.ndarray, k: int) -> None:
    empty = np.flatnonzero(row_counts == 0)
    if empty.size:
        raise TargetError(f"target row {int(empty[0])} has no nonzero entry; every row needs one "
                          "(its attention row would be undefined)")
    over = np.flatnonzero(row_counts > k)
    if over.size:
        i = int(over[0])
        raise TargetError(f"target row {i} has {int(row_counts[i])} nonzeros, more than k = {k}")
    over = np.flatnonzero(col_counts > k)
    if over.size:
        j = int(over[0])
        raise TargetError(f"target column {j} has {int(col_counts[j])} nonzeros, more than k = {k}")


def _values(rng: np.random.Generator, shape, R: float) -> np.ndarray:
    if R < 1:
        raise TargetError(f"R (largest value) must be >= 1, got {R}")
    return rng.uniform(1.0, R, size=shape) if R > 1 else np.ones(shape)


def permutation_target(n: int, k: int, R: float, rng: np.random.Generator) -> SparseTarget:
    """Union of the supports of k independent uniform random permutation matrices, with values
    i.i.d. U[1, R] (a collision keeps one entry): <= k nonzeros in every row and column."""
    _check_k(k)
    cols = np.sort(np.stack([rng.permutation(n) for _ in range(k)], axis=1), axis=1)
    dup = np.zeros(cols.shape, dtype=bool)
    dup[:, 1:] = cols[:, 1:] == cols[:, :-1]
    order = np.argsort(dup, axis=1, kind="stable")
    cols = np.take_along_axis(cols, order, axis=1)
    count = k - dup.sum(axis=1)
    slot = np.arange(k)[None, :] < count[:, None]
    cols = np.where(slot, cols, cols[:, :1])
    vals = _values(rng, (n, k), R)
    vals = np.where(slot, vals, vals[:, :1])
    return SparseTarget(cols=cols, vals=vals, count=count, k=k).validate()


def band_target(n: int, k: int, R: float, rng: np.random.Generator) -> SparseTarget:
    """Cyclic band: row i attends to columns i, i+1, ..., i+k-1 (mod n); values U[1, R]."""
    _check_k(k)
    if k > n:
        raise TargetError(f"band width k = {k} exceeds n = {n}")
    cols = (np.arange(n)[:, None] + np.arange(k)[None, :]) % n
    return SparseTarget(cols=cols, vals=_values(rng, (n, k), R), count=np.full(n, k),
                        k=k).validate()


def block_target(n: int, k: int, R: float, rng: np.random.Generator) -> SparseTarget:
    """Block diagonal with k x k blocks (the last one smaller when k does not divide n): row i
    attends to every column of its block; values U[1, R]."""
    _check_k(k)
    start = (np.arange(n) // k) * k
    width = np.minimum(start + k, n) - start
    slot = np.arange(k)[None, :] < width[:, None]
    # unused slots of a short last block repeat the first entry, column and value alike (as in
    # permutation_target), so the padded (col, val) pairs never disagree
    cols = np.where(slot, start[:, None] + np.arange(k)[None, :], start[:, None])
    vals = _values(rng, (n, k), R)
    vals = np.where(slot, vals, vals[:, :1])
    return SparseTarget(cols=cols, vals=vals, count=width, k=k).validate()


def make_target(kind: str, n: int, k: int, R: float, rng: np.random.Generator) -> SparseTarget:
    """One of the target families ``KINDS``."""
    makers = {"permutations": permutation_target, "band": band_target, "block": block_target}
    if kind not in makers:
        raise ValueError(f"unknown target kind {kind!r}; kinds are {', '.join(KINDS)}")
    return makers[kind](n, k, R, rng)


# ------------------------------------------------------------------------------------------------
# Logits B and the approximation check
# ------------------------------------------------------------------------------------------------


def logit_values(target: SparseTarget, eps_ratio: float, eps_zero: float) -> np.ndarray:
    """``B`` on the support, ``(n, k)`` (padding slots repeat the first entry; B is 0 off-support):
    ``B_ij = log(A_ij / a_i) + log(1/eps_zero) + eps_ratio`` [R] (Eq. 10 analogue)."""
    _check_tolerances(eps_ratio, eps_zero)
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


def _block_check(P: np.ndarray, cols: np.ndarray, log_a: np.ndarray, scale: float,
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
    _check_tolerances(eps_ratio, eps_zero)
    S = np.array(S, dtype=float)
    if S.shape != (target.n, target.n):
        raise ValueError(f"logits must have shape ({target.n}, {target.n}), got {S.shape}")
    return _block_check(S, target.cols, np.log(target.vals), 1.0, eps_ratio, math.log(eps_zero), B)


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


# ------------------------------------------------------------------------------------------------
# The construction
# ------------------------------------------------------------------------------------------------


def fixed_weights(d: int) -> tuple[np.ndarray, np.ndarray]:
    """``W_Q = d^(1/4) [I_d; 0]`` and ``W_K = d^(1/4) [0; I_d]``, both ``(2d, d)``: the same for
    every target (they depend on d only) [R] (Eqs. 15-17 analogue)."""
    return fixed_weight_columns(d, 0, d)


def fixed_weight_columns(d: int, c0: int, c1: int) -> tuple[np.ndarray, np.ndarray]:
    """Columns ``c0:c1`` of ``fixed_weights(d)`` (for large d, without the full 2d x d arrays)."""
    if d < 1 or not 0 <= c0 < c1 <= d:
        raise ValueError(f"need d >= 1 and 0 <= c0 < c1 <= d, got d={d}, c0={c0}, c1={c1}")
    W_Q = np.zeros((2 * d, c1 - c0))
    W_K = np.zeros((2 * d, c1 - c0))
    idx = np.arange(c1 - c0)
    W_Q[c0 + idx, idx] = d**0.25
    W_K[d + c0 + idx, idx] = d**0.25
    return W_Q, W_K


def fingerprint(*arrays: np.ndarray) -> str:
    """A short SHA-256 fingerprint of arrays (shape, dtype and bytes)."""
    h = hashlib.sha256()
    for a in arrays:
        a = np.ascontiguousarray(a)
        h.update(f"{a.shape}{a.dtype}".encode())
        h.update(a.tobytes())
    return h.hexdigest()[:16]


def coupled_factors(target: SparseTarget, B: np.ndarray, rng: np.random.Generator, d_max: int,
                    form: str = "row") -> tuple[np.ndarray, np.ndarray]:
    """Unscaled factors ``QT, KT: (d_max, n)`` with logits at d equal to
    ``QT[:d].T @ KT[:d] / d`` (= X1 X2^T for the construction with the first d columns of G).

    Row form: Q = B G_raw, K = G_raw; column form: Q = G_raw, K = B^T G_raw. ``G_raw`` is drawn
    by ``gaussian_columns_T`` (prefix-coupled: a larger d_max extends the same G).
    """
    if form not in FORMS:
        raise ValueError(f"unknown form {form!r}; forms are {', '.join(FORMS)}")
    GT = gaussian_columns_T(rng, target.n, d_max)
    Bw = np.where(target.real, B, 0.0)  # padding slots carry no weight
    if form == "row":
        QT = np.empty_like(GT)
        tmp = np.empty((64, target.n))
        for r0 in range(0, d_max, 64):  # panels of rows stay in cache
            r1 = min(d_max, r0 + 64)
            out, part = QT[r0:r1], tmp[: r1 - r0]
            np.take(GT[r0:r1], target.cols[:, 0], axis=1, out=out)
            out *= Bw[:, 0]
            for s in range(1, target.k):
                np.take(GT[r0:r1], target.cols[:, s], axis=1, out=part)
                part *= Bw[:, s]
                out += part
        return QT, GT
    KT = np.zeros_like(GT)
    for s in range(target.k):
        np.add.at(KT, (slice(None), target.cols[:, s]), GT * Bw[:, s])
    return GT, KT


@dataclass
class Construction:
    """The construction at dimension d: input ``X = [X1, X2]: (n, 2d)`` with the fixed weights."""

    QT: np.ndarray
    KT: np.ndarray
    d: int
    form: str

    @property
    def X(self) -> np.ndarray:
        s = math.sqrt(self.d)
        return np.hstack([self.QT[:self.d].T / s, self.KT[:self.d].T / s])

    @cached_property
    def weights(self) -> tuple[np.ndarray, np.ndarray]:
        return fixed_weights(self.d)

    def logits(self) -> np.ndarray:
        """``X W_Q (X W_K)^T / sqrt(d): (n, n)`` through the explicit weights (small n, d only)."""
        W_Q, W_K = self.weights
        X = self.X
        return (X @ W_Q) @ (X @ W_K).T / math.sqrt(self.d)


def slack_at(target: SparseTarget, QT: np.ndarray, KT: np.ndarray, d: int, eps_ratio: float,
             eps_zero: float, block: int = 256, B: np.ndarray | None = None) -> RowCheck:
    """The check at dimension d, computed from scratch in row blocks (memory O(block n))."""
    n, parts = target.n, []
    log_a = np.log(target.vals)
    for r0 in range(0, n, block):
        r1 = min(n, r0 + block)
        P = QT[:d, r0:r1].T @ KT[:d]
        parts.append(_block_check(P, target.cols[r0:r1], log_a[r0:r1], d, eps_ratio,
                                  math.log(eps_zero), None if B is None else B[r0:r1]))
    cat = [np.concatenate([getattr(p, f) for p in parts]) if getattr(parts[0], f) is not None
           else None for f in ("ratio_error", "zero_gap", "slack", "max_error")]
    return RowCheck(*cat)


#: Largest n for which an ``(n, n)`` matrix is held (the Gram logits below); the search never does.
DENSE_N_MAX = 4096
#: Columns of G per symmetric rank-w update of the Gram matrix (a multiple of ``PANEL``).
GRAM_CHUNK = 8 * PANEL


def gram_logits(target: SparseTarget, B: np.ndarray, rng: np.random.Generator, d: int,
                form: str = "row") -> np.ndarray:
    """The construction's logits at d, ``(n, n)``, without holding G or the factors:
    ``C = G_raw G_raw^T`` accumulated chunk by chunk (dsyrk: n^2 d flops, half a general product),
    then ``B C / d`` (row form: X1 X2^T = B G G^T) or ``C B / d`` (column form: G G^T B).

    Draws exactly the numbers ``coupled_factors(target, B, rng, d, form)`` draws (same G, same
    generator state afterwards). Memory O(n^2 + n GRAM_CHUNK); refuses n > ``DENSE_N_MAX``.
    """
    if form not in FORMS:
        raise ValueError(f"unknown form {form!r}; forms are {', '.join(FORMS)}")
    n = target.n
    if n > DENSE_N_MAX:
        raise ValueError(f"gram_logits holds an n x n matrix; n = {n} > {DENSE_N_MAX}")
    C = np.zeros((n, n), order="F")
    for c0 in range(0, d, GRAM_CHUNK):
        GT = gaussian_columns_T(rng, n, min(GRAM_CHUNK, d - c0))
        dsyrk(1.0, GT.T, beta=1.0, c=C, overwrite_c=True)  # upper triangle of C += G G^T
    C += np.triu(C, 1).T
    Bw = np.where(target.real, B, 0.0) / d  # padding slots carry no weight
    S = np.zeros((n, n))
    for s in range(target.k):
        if form == "row":  # (B C)_i = sum_s B_{i, c_is} C_{c_is, .}
            S += Bw[:, s, None] * C[target.cols[:, s]]
        else:  # (C B)^T = B^T C (C symmetric): row j gathers the rows i with j in S_i
            np.add.at(S, target.cols[:, s], Bw[:, s, None] * C)
    return S if form == "row" else S.T


@dataclass
class LasVegasResult:
    ok: bool
    rounds: int
    min_slack: float
    construction: Construction | None


def las_vegas(target: SparseTarget, d: int, eps_ratio: float, eps_zero: float,
              rng: np.random.Generator, max_rounds: int = 10, form: str = "row",
              build: bool = True) -> LasVegasResult:
    """Draw G, build X, check; redraw until the check passes (at most ``max_rounds`` draws).

    At d >= (*) each draw fails with probability <= delta, so the expected number of rounds is
    <= 1 / (1 - delta) [R] ("randomized polynomial time", [V2] wording). The result says how many
    rounds were used; ``ok`` is False when every round failed. Each draw is checked on
    ``gram_logits`` (n <= ``DENSE_N_MAX``); the successful draw's input X (``construction``) is
    rebuilt from the same generator state when ``build``.
    """
    if max_rounds < 1:
        raise ValueError(f"max_rounds must be >= 1, got {max_rounds}")
    B = logit_values(target, eps_ratio, eps_zero)
    slack = -math.inf
    for rnd in range(1, max_rounds + 1):
        state = rng.bit_generator.state
        S = gram_logits(target, B, rng, d, form)
        slack = float(check_logits(target, S, eps_ratio, eps_zero).slack.min())
        if slack >= 0:
            construction = None
            if build:
                rng.bit_generator.state = state
                construction = Construction(*coupled_factors(target, B, rng, d, form), d, form)
            return LasVegasResult(True, rnd, slack, construction)
    return LasVegasResult(False, max_rounds, slack, None)


# ------------------------------------------------------------------------------------------------
# The smallest working d
# ------------------------------------------------------------------------------------------------


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


def _rounding_tol(QT: np.ndarray, KT: np.ndarray, d: int) -> float:
    """Bound on the float64 error of a slack at dimension <= d: a slack combines 4 logits, each
    a length-d dot product divided by d, with error <= gamma_d ||q_i|| ||k_j|| / d."""
    gamma = d * U64 / (1 - d * U64)
    qn = math.sqrt(float(np.einsum("cj,cj->j", QT[:d], QT[:d]).max()))
    kn = math.sqrt(float(np.einsum("cj,cj->j", KT[:d], KT[:d]).max()))
    return 4 * gamma * qn * kn / d + 1e-13


def one_pass_search(target: SparseTarget, QT: np.ndarray, KT: np.ndarray, grid: np.ndarray,
                    eps_ratio: float, eps_zero: float, block: int = 256,
                    B: np.ndarray | None = None, prune: bool = True) -> SearchResult:
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
    grid point (and turns pruning off).
    """
    _check_tolerances(eps_ratio, eps_zero)
    grid = np.asarray(grid)
    if grid.ndim != 1 or grid.size == 0 or (np.diff(grid) <= 0).any() or grid[-1] > QT.shape[0]:
        raise ValueError("grid must be a non-empty increasing list of d <= the factors' width")
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
            chk = _block_check(P, target.cols[r0:r1], log_a[r0:r1], float(d), eps_ratio, log_z,
                               None if B is None else B[r0:r1])
            ok = chk.slack >= 0
            first[(first < 0) & ok] = g
            last[~ok] = g
            candidate[g] &= bool(ok.all())
            slack[g] = min(slack[g], float(chk.slack.min()))
            if err is not None:
                err[g] = max(err[g], float(chk.max_error.max()))
    return SearchResult(grid, slack, row_first, row_last_fail,
                        _rounding_tol(QT, KT, int(grid[-1])), err)


def naive_search(target: SparseTarget, QT: np.ndarray, KT: np.ndarray, grid: np.ndarray,
                 eps_ratio: float, eps_zero: float, block: int = 256) -> SearchResult:
    """Reference for tests: recompute the full logits from scratch at every grid d (same d_min
    definition as ``one_pass_search``; O(n^2 sum(grid)) time)."""
    grid = np.asarray(grid)
    chks = [slack_at(target, QT, KT, int(d), eps_ratio, eps_zero, block).slack for d in grid]
    slack = np.array([c.min() for c in chks])
    oks = np.array([c >= 0 for c in chks])  # (G, n)
    g_idx = np.arange(len(grid))[:, None]
    first = np.where(oks.any(axis=0), np.where(oks, g_idx, len(grid)).min(axis=0), -1)
    last = np.where((~oks).any(axis=0), np.where(~oks, g_idx, -1).max(axis=0), -1)
    return SearchResult(grid, slack, first, last, _rounding_tol(QT, KT, int(grid[-1])))


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


def search_d_min(target: SparseTarget, rng: np.random.Generator, eps_ratio: float,
                 eps_zero: float, d_max: int, *, d_start: int = 32, resolution: float = 0.03,
                 min_step: int = 16, horizon_factor: float = 1.1, max_extensions: int = 3,
                 form: str = "row", block: int = 128, track_error: bool = False) -> SearchResult:
    """d_min of one trial, with a horizon that is long enough.

    The search runs to ``d_max``; when the result does not reach ``horizon_factor * d_min <=
    d_max`` (or is censored) the trial is redone with ``d_max * 1.5`` from the SAME generator state
    (same G prefix, same grid prefix), at most ``max_extensions`` times. ``rng`` is left in the
    state after the last draw. Once some grid d works, d_min no longer depends on the horizon (the
    grids are prefixes of each other); the margin ``horizon_factor`` shows whether success lasts
    beyond it (``d_stable``). The cost is O(n^2 d_max) per pass: a restart costs a whole pass.
    """
    B = logit_values(target, eps_ratio, eps_zero)
    state = rng.bit_generator.state
    for ext in range(max_extensions + 1):
        rng.bit_generator.state = state
        grid = d_grid(d_start, d_max, resolution, min_step)
        QT, KT = coupled_factors(target, B, rng, int(grid[-1]), form)
        res = one_pass_search(target, QT, KT, grid, eps_ratio, eps_zero, block,
                              B if track_error else None)
        res.extensions = ext
        if not math.isnan(res.d_min) and horizon_factor * res.d_min <= grid[-1]:
            break
        d_max = math.ceil(d_max * 1.5)
    res.meta = {"identity_error": identity_error(QT, KT, res.d_min)}
    return res


def identity_error(QT: np.ndarray, KT: np.ndarray, d: float, rows: int = 16,
                   panel: int = 512) -> float:
    """max |X W_Q (X W_K)^T / sqrt(d) - QT[:d].T KT[:d] / d| on a ``rows x rows`` corner, with the
    explicit fixed weights (multiplied in column panels), divided by a float64 rounding bound:
    <= 1 means the searched logits are those of the fixed module applied to X up to rounding."""
    if math.isnan(d):
        return math.nan
    d = int(d)
    m = min(rows, QT.shape[1])
    s = math.sqrt(d)
    X = np.hstack([QT[:d, :m].T / s, KT[:d, :m].T / s])
    XQ, XK = np.empty((m, d)), np.empty((m, d))
    for c0 in range(0, d, panel):
        c1 = min(d, c0 + panel)
        W_Q, W_K = fixed_weight_columns(d, c0, c1)
        XQ[:, c0:c1] = X @ W_Q
        XK[:, c0:c1] = X @ W_K
    via_weights = XQ @ XK.T / s
    direct = QT[:d, :m].T @ KT[:d, :m] / d
    bound = 16 * (2 * d) * U64 * float(np.abs(X).max()) ** 2 * d + 1e-300
    return float(np.abs(via_weights - direct).max() / bound)


# ------------------------------------------------------------------------------------------------
# One trial as a table row
# ------------------------------------------------------------------------------------------------

#: Settings of the d grid and the horizon (the config's ``search`` section).
SEARCH_KEYS = ("d_start", "resolution", "min_step", "horizon_fraction", "horizon_factor",
               "max_extensions", "block")


def trial_record(target: SparseTarget, rng: np.random.Generator, *, R: float, eps_ratio: float,
                 eps_zero: float, delta: float, search: dict, form: str = "row",
                 track_error: bool = False) -> tuple[dict, SearchResult]:
    """Search d_min for one target and describe it as one table row (plus the raw result).

    The search starts with ``d_max = horizon_fraction * d_JL`` (the bound (*) at the nominal R) and
    extends it (see ``search_d_min``) until ``horizon_factor * d_min <= d_max``.
    """
    missing = [key for key in SEARCH_KEYS if key not in search]
    if missing:
        raise KeyError(f"search settings lack {', '.join(missing)}")
    n, k = target.n, target.k
    d_jl = jl_dimension(n, k, R, eps_ratio, eps_zero, delta)
    d_max = max(search["d_start"], math.ceil(search["horizon_fraction"] * d_jl))
    res = search_d_min(target, rng, eps_ratio, eps_zero, d_max, d_start=search["d_start"],
                       resolution=search["resolution"], min_step=search["min_step"],
                       horizon_factor=search["horizon_factor"],
                       max_extensions=search["max_extensions"], form=form,
                       block=search["block"], track_error=track_error)
    d_min, d_stable = res.d_min, res.d_stable
    row = {
        "n": n, "k": k, "form": form, "R": R, "R_actual": target.ratio,
        "eps_ratio": eps_ratio, "eps_zero": eps_zero, "delta": delta,
        "d_min": d_min, "d_stable": d_stable,
        "row_d_min_median": float(np.nanmedian(res.row_d_min)),
        "d_max": int(res.grid[-1]), "grid_points": len(res.grid), "resolution": search["resolution"],
        "extensions": res.extensions,
        "censored": bool(math.isnan(d_min)),
        "horizon_ok": bool(not math.isnan(d_min)
                           and search["horizon_factor"] * d_min <= res.grid[-1]),
        "d_jl": d_jl, "d_min_over_n": d_min / n,
        "decision_margin": res.decision_margin, "rounding_tol": res.rounding_tol,
        "precision": "float64" if res.decided else "undecided in float64",
        "identity_error": res.meta["identity_error"],
    }
    return row, res


def search_cost(n: int, k: int, R: float, eps_ratio: float, eps_zero: float, delta: float,
                horizon_fraction: float) -> tuple[int, float]:
    """Peak bytes and flops of one ``trial_record`` whose horizon is extended once (x1.5): the
    factors hold ``2 n d_max`` doubles, and the passes at d_0 and 1.5 d_0 cost ``2 n^2 d`` each,
    with ``d_0 = horizon_fraction * d_JL``. For planning cluster resources."""
    d_0 = horizon_fraction * jl_dimension(n, k, R, eps_ratio, eps_zero, delta)
    return math.ceil(16 * n * 1.5 * d_0), 2.0 * n * n * 2.5 * d_0


def log_fit(n, d) -> tuple[float, float, float]:
    """Least-squares fit ``d = a + b ln n``; returns (a, b, R^2). NaN values are refused."""
    x, y = np.log(np.asarray(n, dtype=float)), np.asarray(d, dtype=float)
    if x.shape != y.shape or x.size < 2 or not np.isfinite(y).all():
        raise ValueError("log_fit needs >= 2 finite (n, d) pairs")
    b, a = np.polyfit(x, y, 1)
    resid = y - (a + b * x)
    total = ((y - y.mean()) ** 2).sum()
    return float(a), float(b), float(1 - (resid**2).sum() / total) if total > 0 else 1.0
