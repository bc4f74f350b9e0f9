"""Sparse targets: the matrices A that a fixed attention module is asked to approximate.

Likhosherstov, Choromanski & Weller, "On the Expressive Power of Self-Attention Matrices" (arXiv
2106.03764, 2021); AAAI 2023 version "On the Expressive Flexibility of Self-Attention Matrices".
Verified [V] (abstract): the targets are matrices with a bounded number of nonzeros per row and per
column. The families below and the value range [1, R] are our choice [R]
(``shared/papers/likhosherstov.md`` §2).

Row form (tokens are rows). Target ``A: (n, n)``, A >= 0, every row has a nonzero, at most k
nonzeros per row and per column; support S_i = {j : A_ij > 0}; R bounds the within-row ratio
max_j A_ij / min_j A_ij on the support. The families (``KINDS``): the union of k random permutation
matrices, the cyclic band of width k, and k x k diagonal blocks, with values i.i.d. U[1, R].
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from expressivity.arguments import integer

KINDS = ("permutations", "band", "block")


class TargetError(ValueError):
    """A target matrix outside the class (names the offending row, column or entry)."""


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

    def to_dense(self, vals: np.ndarray | None = None) -> np.ndarray:
        """``A: (n, n)``, or with ``vals: (n, k)`` given per slot (such as the logits B), the matrix
        with those values on A's support and 0 elsewhere."""
        if self.n > 4096:
            raise ValueError(f"to_dense refuses n = {self.n} > 4096 (an n x n matrix)")
        A = np.zeros((self.n, self.n))
        A[np.arange(self.n)[:, None], self.cols] = self.vals if vals is None else vals
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


def _count(name: str, value) -> None:
    """``arguments.integer(name, value, 1)``, refused as a ``TargetError`` (every bad target is)."""
    try:
        integer(name, value, 1)
    except ValueError as err:
        raise TargetError(str(err)) from None


def _check_k(k: int) -> None:
    _count("k (nonzeros per row and column)", k)


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
    return rng.uniform(1.0, R, size=shape) if R > 1 else np.ones(shape)


def check_arguments(n, k, R) -> None:
    """Refuse a size, sparsity or value range outside the class, naming the argument: n >= 1 and
    1 <= k <= n integers, R >= 1 finite (before any work)."""
    _count("n (sequence length)", n)
    _check_k(k)
    if k > n:
        raise TargetError(f"k = {k} (nonzeros per row and column) exceeds n = {n}: an n x n "
                          "target has at most n nonzeros in a row")
    if isinstance(R, bool) or not isinstance(R, (int, float, np.integer, np.floating)) or not (
            math.isfinite(R) and R >= 1):
        raise TargetError(f"R (largest value; values are uniform in [1, R]) must be a finite "
                          f"number >= 1, got {R!r}")


def permutation_target(n: int, k: int, R: float, rng: np.random.Generator) -> SparseTarget:
    """Union of the supports of k independent uniform random permutation matrices, with values
    i.i.d. U[1, R] (a collision keeps one entry): <= k nonzeros in every row and column."""
    check_arguments(n, k, R)
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
    check_arguments(n, k, R)
    cols = (np.arange(n)[:, None] + np.arange(k)[None, :]) % n
    return SparseTarget(cols=cols, vals=_values(rng, (n, k), R), count=np.full(n, k),
                        k=k).validate()


def block_target(n: int, k: int, R: float, rng: np.random.Generator) -> SparseTarget:
    """Block diagonal with k x k blocks (the last one smaller when k does not divide n): row i
    attends to every column of its block; values U[1, R]."""
    check_arguments(n, k, R)
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
    """One of the target families ``KINDS`` (arguments checked by ``check_arguments`` first)."""
    makers = {"permutations": permutation_target, "band": band_target, "block": block_target}
    if kind not in makers:
        raise ValueError(f"unknown target kind {kind!r}; kinds are {', '.join(KINDS)}")
    check_arguments(n, k, R)
    return makers[kind](n, k, R, rng)
