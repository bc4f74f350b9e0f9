"""Differences of two contexts of one token as cancellation-free exponential sums; the last crossing.

For two contexts ``A, B`` of the same token ([D], ours; notation of ``expressivity.rank1.contexts``)

    C_B - C_A = sum_{i in B, j in A} (w_i - w_j) e^{b (w_i + w_j)} / (Z_A Z_B),

``Z = sum_j e^{b w_j}`` (sets of any sizes: the causal layer's prefix sets, padded in ``Contexts``,
contribute their tokens only). Terms with both ``i`` and ``j`` in ``A ∩ B`` cancel in pairs and are dropped
*exactly*, so the remaining sum, scaled by its largest exponent, is evaluated without catastrophic
cancellation and its logarithm never underflows. Its float64 rounding is bounded (``PairSums.F``).

``lam_last_crossing`` is the largest ``lam`` at which two contexts of a token coincide: the largest
crossing of the pairs adjacent in the asymptotic order (``last_crossing_search``). Above it every
token's values are in the asymptotic order and all distinct, so every larger ``lam`` separates: it
is a *sufficient* ``lam``, not the smallest that works (below it the values may still be distinct
but in another order; on random data even ``lam = 0``, uniform averaging, separates).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from expressivity.arguments import integer
from expressivity.rank1.contexts import Contexts

_EPS = np.finfo(float).eps
#: Terms evaluated at once in the grid scan (16 MiB of doubles per temporary array).
_GRID_VALUES = 2**21


@dataclass(frozen=True)
class PairSums:
    """``C_hi - C_lo`` of same-token context pairs as scaled exponential sums.

    For pair ``q``: ``F_q(b) = sum_k coef_qk e^{-b ds_qk}`` with ``ds = smax - s >= 0``, and
    ``C_hi - C_lo = F(b) e^{b smax} / (Z_hi(b) Z_lo(b))``. Dropped (cancelling) terms have
    ``coef = 0`` and ``ds = inf``. ``b = lam * scale``.
    """

    lo: np.ndarray
    hi: np.ndarray
    coef: np.ndarray
    ds: np.ndarray
    smax: np.ndarray
    scale: np.ndarray
    w_lo: np.ndarray
    w_hi: np.ndarray

    @classmethod
    def build(cls, cx: Contexts, lo: np.ndarray, hi: np.ndarray) -> PairSums:
        wl, wh = cx.w[lo], cx.w[hi]
        ml, mh = cx.members[lo], cx.members[hi]
        common_h = (mh[:, :, None] == ml[:, None, :]).any(-1)  # i in hi also in lo
        common_l = (ml[:, :, None] == mh[:, None, :]).any(-1)
        keep = (~(common_h[:, :, None] & common_l[:, None, :])  # (Q, n_i, n_j)
                & (mh >= 0)[:, :, None] & (ml >= 0)[:, None, :])  # padding of a prefix set: absent
        coef = np.where(keep, wh[:, :, None] - wl[:, None, :], 0.0)
        s = np.where(keep, wh[:, :, None] + wl[:, None, :], -np.inf)
        Q = len(lo)
        coef, s = coef.reshape(Q, -1), s.reshape(Q, -1)
        smax = s.max(1)
        ds = np.where(np.isfinite(s), smax[:, None] - s, np.inf)
        return cls(lo=lo, hi=hi, coef=coef, ds=ds, smax=smax, scale=cx.scale[lo], w_lo=wl,
                   w_hi=wh)

    def F(self, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(F, err)`` at ``b`` (shape ``(Q,)`` or ``(Q, G)``): the scaled sum and a bound on its
        float64 rounding error (exponent arguments, products and the summation)."""
        b = np.asarray(b, dtype=float)
        extra = b.ndim - 1
        coef = self.coef.reshape(self.coef.shape[:1] + (1,) * extra + self.coef.shape[1:])
        ds = self.ds.reshape(coef.shape)
        with np.errstate(invalid="ignore"):
            terms = coef * np.exp(-b[..., None] * ds)
        terms = np.where(coef == 0, 0.0, terms)
        total = terms.sum(-1)
        k = self.coef.shape[1]
        wmax = float(max(np.abs(self.w_lo).max(), np.abs(self.w_hi).max()))
        err = 4 * _EPS * np.abs(terms).sum(-1) * (k + 8 + 12 * b * wmax)
        return total, err

    def leading(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(c0, rest, dmin)``: the coefficient at ``ds = 0`` (the sign as ``b -> inf``), the sum
        of the other ``|coef|`` and the smallest positive ``ds``."""
        top = self.ds == 0
        c0 = np.where(top, self.coef, 0).sum(1)
        rest = np.where(~top, np.abs(self.coef), 0).sum(1)
        dmin = np.where((self.ds > 0) & np.isfinite(self.ds), self.ds, np.inf).min(1)
        return c0, rest, dmin

    def subset(self, rows: np.ndarray) -> PairSums:
        """The pairs ``rows`` only."""
        return PairSums(lo=self.lo[rows], hi=self.hi[rows], coef=self.coef[rows],
                        ds=self.ds[rows], smax=self.smax[rows], scale=self.scale[rows],
                        w_lo=self.w_lo[rows], w_hi=self.w_hi[rows])


def _not_positive(ps: PairSums, b: np.ndarray) -> np.ndarray:
    """Where ``F`` is not certainly positive (``F <= err``) at the points ``b: (Q, G)``."""
    F, err = ps.F(b)
    return ~(F > err)


def last_crossings(ps: PairSums, n_grid: int = 64, rtol: float = 1e-9) -> np.ndarray:
    """Per pair, the largest ``b >= 0`` where ``C_hi - C_lo`` is not positive (0 if none).

    All roots lie below ``b_hi = ln(rest / c0) / dmin`` (beyond it the leading term dominates).
    ``F`` is scanned on ``0`` and a log grid up to ``1.01 b_hi``; the bracket above the last
    non-positive grid point is bisected to relative width ``rtol``. A pair of roots closer than the
    grid spacing can be missed; the exhaustive check at the chosen ``lam`` guards the result.
    """
    c0, rest, dmin = ps.leading()
    if np.any(c0 <= 0):
        q = int(np.flatnonzero(c0 <= 0)[0])
        raise AssertionError(f"pair {q}: leading coefficient {c0[q]} <= 0; asymptotic order broken")
    with np.errstate(divide="ignore"):
        b_hi = np.where(rest > c0, np.log(rest / c0) / dmin, 0.0)
    b_hi = 1.01 * b_hi + 1e-12
    grid = np.concatenate([np.zeros((len(b_hi), 1)),
                           b_hi[:, None] * np.logspace(-6, 0, n_grid - 1)[None, :]], axis=1)
    # the grid's terms (pairs x grid x n^2) in blocks of pairs: memory stays bounded
    block = max(1, _GRID_VALUES // (n_grid * ps.coef.shape[1]))
    notpos = np.concatenate([
        _not_positive(ps.subset(np.arange(q, min(q + block, len(b_hi)))), grid[q:q + block])
        for q in range(0, len(b_hi), block)])
    out = np.zeros(len(b_hi))
    crossed = notpos.any(1)
    if not crossed.any():
        return out
    last = n_grid - 1 - np.argmax(notpos[:, ::-1], axis=1)
    rows = np.flatnonzero(crossed)
    at_top = last[rows] >= n_grid - 1
    out[rows[at_top]] = b_hi[rows[at_top]]  # undecided up to the bound: keep the bound
    rows = rows[~at_top]
    lo = grid[rows, last[rows]]
    hi = grid[rows, last[rows] + 1]
    sub = ps.subset(rows)
    for _ in range(200):
        if np.all(hi - lo <= rtol * hi):
            break
        mid = 0.5 * (lo + hi)
        Fm, em = sub.F(mid)
        pos = Fm > em
        hi = np.where(pos, mid, hi)
        lo = np.where(pos, lo, mid)
    out[rows] = hi
    return out


def last_crossing_search(cx: Contexts, n_grid: int = 64) -> dict:
    """``lam_last_crossing``: the largest ``lam`` at which two contexts of one token coincide.

    It is the largest crossing among the pairs adjacent in the asymptotic order (if a non-adjacent
    pair met at a larger ``lam``, every context between them would meet there too). Above it the
    layer separates every same-token pair (a sufficient ``lam``; smaller ones may separate too).
    Returns ``lam_last_crossing`` (0 when no pair ever crosses for ``lam >= 0``), the number of
    pairs and of crossing pairs.
    """
    integer("n_grid", n_grid, 3)
    lo, hi = cx.adjacent_pairs()
    if len(lo) == 0:
        return {"lam_last_crossing": 0.0, "pairs": 0, "crossing_pairs": 0}
    ps = PairSums.build(cx, lo, hi)
    b = last_crossings(ps, n_grid=n_grid)
    lam = b / ps.scale
    return {"lam_last_crossing": float(lam.max()), "pairs": int(len(lo)),
            "crossing_pairs": int(np.sum(b > 0))}
