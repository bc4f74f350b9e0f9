"""One-layer, single-head, rank-1 softmax attention as a contextual mapping.

Kajitsuka & Sato 2024 (ICLR), Theorem 2 (statement recalled [R], constants derived by us [D]; see
``shared/papers/kajitsuka_sato.md`` Secs. 3.1-3.4). On a token-wise ``(r_min, r_max, eps)``-separated
dataset (``expressivity.datasets``) the layer

    W_K = v^T,  W_Q = lam v^T,  W_V = v^T,  W_O = (eps / (4 r_max)) u      (||v|| = ||u|| = 1)

is an ``(r, delta)``-contextual mapping: every output has norm ``<= r = r_max + eps/4`` and any two
outputs ``y^(i)_k, y^(j)_l`` whose query tokens differ or whose sequences' token *sets* differ are at
least ``delta`` apart. Row form (tokens are rows, ``X: (n, d)``): with the projections
``z_j = v^T x_j`` the output of query ``k`` is

    y_k = x_k + alpha c_k u,   c_k = sum_j softmax_j(lam z_k z) z_j = boltz(lam z_k z) / (lam z_k),

``alpha = eps / (4 r_max)``. Writing ``w = sign(z_k) z`` and ``b = lam |z_k|`` gives
``c_k = sign(z_k) C(b, w)`` with ``C(b, w) = sum_j w_j e^{b w_j} / sum_j e^{b w_j}``.

Ingredients (all [R] from the paper unless marked):

- ``v`` from the projection lemma (Park et al. 2021, Lemma 13; the paper's "Lemma 3"): for a set of
  ``M`` points a random unit ``v`` meets ``|v^T (x - x')| >= sqrt(8/(pi d)) / M^2 ||x - x'||`` with
  positive probability; applied to ``V ∪ {0}`` (``M = |V| + 1``). We draw until it holds.
- ``lam >= (2 log n + 3) pi d (|V|+1)^4 / (8 eps r_min)`` [D]: makes every score gap at least
  ``2 log n + 3`` nats, the condition of the paper's difference lemma.
- eq. (8) [R], the prefactor least certain:
  ``delta = 2 (log n)^2 eps^2 r_min / (r_max^2 (|V|+1)^4 (2 log n + 3) pi d)
  * exp(-(|V|+1)^4 (2 log n + 3) pi d r_max^2 / (4 eps r_min))``.

Separation is checked exhaustively in 1-D per query token. Outputs with the same query token differ
by ``alpha |c - c'|``, so sorting the context values of a token and taking adjacent differences
gives the minimum over *all* pairs. Outputs with different tokens are at least ``eps/2`` apart and
are checked in float64 by minimising a quadratic over the sorted differences (``cross_token_min``).

Two ways to get the same-token differences ([D], ours):

- *direct*: compute every ``C`` and subtract. The differences are about ``e^{-spread}`` with
  ``spread <= 2 lam r_max^2`` nats, so this needs about ``2 lam r_max^2 / ln 10`` digits
  (``digits_bound``). In float64 it collapses: the values tie and ``delta`` reads 0. We do it in
  ball arithmetic (python-flint ``arb``), which certifies a lower bound.
- *normalised difference*: for two contexts ``A, B`` of the same token,
  ``C_B - C_A = sum_{i in B, j in A} (w_i - w_j) e^{b (w_i + w_j)} / (Z_A Z_B)``. Terms with both
  ``i`` and ``j`` in ``A ∩ B`` cancel in pairs and are dropped *exactly*, so the remaining
  exponential sum, scaled by its largest exponent, is evaluated without catastrophic cancellation
  and its logarithm never underflows (``PairSums``). Its float64 rounding is bounded; an undecided
  sign is recomputed in ``arb``.

Asymptotic order ([D] from the difference lemma): as ``lam -> inf`` the contexts of a token are
ordered by ``C`` like the keys ``(w_(1), -w_(2), ..., -w_(n))`` (sorted decreasing ``w``): a larger
maximum gives a larger ``C``; with equal leading entries, the larger entry at the first differing
position gives the smaller ``C``. Above ``lam_min`` (the largest ``lam`` where two contexts of a token
coincide) every token's values are in this order, which is what the search in ``lam_min_search``
uses: ``lam_min`` is the largest crossing of the pairs adjacent in that order.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from flint import arb, ctx

from expressivity.attention import Head, self_attention
from expressivity.datasets import TokenDataset

LN10 = math.log(10.0)
#: Decimal digits float64 carries: 53 bits.
FLOAT64_DIGITS = 53 * math.log10(2.0)
_EPS = np.finfo(float).eps


# --------------------------------------------------------------------------- the construction


def projection_constant(vocab_size: int, d: int) -> float:
    """``c = sqrt(8 / (pi d)) / (|V| + 1)^2``: the lemma's bound on ``V ∪ {0}`` ([R], Sec. 3.2)."""
    return math.sqrt(8.0 / (math.pi * d)) / (vocab_size + 1) ** 2


def projection_ratio(vocab: np.ndarray, v: np.ndarray) -> float:
    """``min |v^T (x - x')| / ||x - x'||`` over distinct ``x, x'`` in ``V ∪ {0}``; ``vocab: (V, d)``."""
    pts = np.vstack([vocab, np.zeros((1, vocab.shape[1]))])
    i, j = np.triu_indices(len(pts), 1)
    diff = pts[i] - pts[j]
    return float(np.min(np.abs(diff @ v) / np.linalg.norm(diff, axis=1)))


def draw_projection(rng: np.random.Generator, vocab: np.ndarray, max_draws: int = 100_000):
    """Draw unit vectors ``v`` until the lemma's bound holds on ``V ∪ {0}``.

    Returns ``(v, draws, ratio)``: the accepted vector, how many draws it took, and its
    ``projection_ratio`` (>= ``projection_constant``).
    """
    V, d = vocab.shape  # noqa: N806
    bound = projection_constant(V, d)
    for draw in range(1, max_draws + 1):
        g = rng.standard_normal(d)
        v = g / np.linalg.norm(g)
        ratio = projection_ratio(vocab, v)
        if ratio >= bound:
            return v, draw, ratio
    raise ValueError(f"no projection vector met the bound {bound:.3g} in {max_draws} draws")


def lam_theory(n: int, d: int, vocab_size: int, eps: float, r_min: float) -> float:
    """``(2 log n + 3) pi d (|V|+1)^4 / (8 eps r_min)`` ([D], Sec. 3.2 step 3 of the notes)."""
    return (2 * math.log(n) + 3) * math.pi * d * (vocab_size + 1) ** 4 / (8 * eps * r_min)


def log10_delta_theory(n: int, d: int, vocab_size: int, eps: float, r_min: float,
                       r_max: float) -> float:
    """``log10`` of eq. (8)'s ``delta`` ([R]; computed in log space: ``delta`` is << 1e-300)."""
    if n < 2:
        return -math.inf  # (log n)^2 = 0
    k = (vocab_size + 1) ** 4 * (2 * math.log(n) + 3) * math.pi * d
    ln = (math.log(2 * math.log(n) ** 2 * eps**2 * r_min) - math.log(r_max**2 * k)
          - k * r_max**2 / (4 * eps * r_min))
    return ln / LN10


def digits_bound(lam: float, r_max: float, guard: int = 30) -> int:
    """Decimal digits that resolve every context difference at ``lam``: the scores spread over at
    most ``2 lam r_max^2`` nats, so differences are no smaller than about ``e^{-2 lam r_max^2}``
    relative; ``guard`` digits more for the prefactors."""
    return int(math.ceil(2 * lam * r_max**2 / LN10)) + guard


@dataclass(frozen=True)
class Rank1Layer:
    """The rank-1 layer: ``W_K = v^T``, ``W_Q = lam v^T``, ``W_V = v^T``, ``W_O = alpha u``."""

    v: np.ndarray
    u: np.ndarray
    lam: float
    alpha: float

    @classmethod
    def for_dataset(cls, ds: TokenDataset, v: np.ndarray, lam: float,
                    u: np.ndarray | None = None) -> Rank1Layer:
        """``alpha = eps / (4 r_max)``; ``u = v`` unless given (either works, [R])."""
        return cls(v=v, u=v if u is None else u, lam=float(lam), alpha=ds.eps / (4 * ds.r_max))

    @property
    def head(self) -> Head:
        """Row form for ``expressivity.attention``: ``W_Q = lam v``, ``W_K = W_V = v: (d, 1)``,
        ``W_O = alpha u^T: (1, d)``."""
        col = self.v[:, None]
        return Head(W_Q=self.lam * col, W_K=col, W_V=col, W_O=self.alpha * self.u[None, :])

    def __call__(self, X: np.ndarray, sigma: str = "softmax") -> np.ndarray:
        """``F_SA(X): (n, d) -> (n, d)`` in float64 (collapses to hardmax at large ``lam``)."""
        return self_attention(X, [self.head], sigma=sigma)


# --------------------------------------------------------------------------- contexts


@dataclass(frozen=True)
class Contexts:
    """Every (query token, token set) of a dataset, grouped by token in asymptotic order.

    token, seq, pos: (P,) query token index, and the sequence and position it comes from.
    members: (P, n) the sequence's token indices, ordered by decreasing ``w``.
    w: (P, n) float64 ``sign(z_t) z_j`` for the members, decreasing.
    scale, sign: (P,) ``|z_t|`` and ``sign(z_t)``; ``b = lam * scale``.
    Within a token the rows are sorted by the asymptotic key ``(w_1, -w_2, ..., -w_n)``
    (ascending ``C`` as ``lam -> inf``).
    """

    token: np.ndarray
    seq: np.ndarray
    pos: np.ndarray
    members: np.ndarray
    w: np.ndarray
    scale: np.ndarray
    sign: np.ndarray
    z: np.ndarray

    @property
    def n_contexts(self) -> int:
        return int(self.token.size)

    def adjacent_pairs(self) -> tuple[np.ndarray, np.ndarray]:
        """Index pairs ``(p, p + 1)`` of consecutive contexts of the same token."""
        same = self.token[1:] == self.token[:-1]
        lo = np.flatnonzero(same)
        return lo, lo + 1


def contexts(ds: TokenDataset, v: np.ndarray) -> Contexts:
    """The contexts of ``ds`` under projection ``v`` (``z = vocab @ v``)."""
    z = ds.vocab @ v
    if np.any(z == 0):
        raise ValueError("a token projects to 0: v violates the lemma's bound (0 is in the set)")
    N, n = ds.sequences.shape  # noqa: N806
    seq = np.repeat(np.arange(N), n)
    pos = np.tile(np.arange(n), N)
    token = ds.sequences.reshape(-1)
    sign = np.sign(z[token])
    members = ds.sequences[seq]
    w = sign[:, None] * z[members]
    order = np.argsort(-w, axis=1, kind="stable")
    w = np.take_along_axis(w, order, axis=1)
    members = np.take_along_axis(members, order, axis=1)
    keys = [-w[:, j] for j in range(n - 1, 0, -1)] + [w[:, 0], token]
    idx = np.lexsort(keys)
    return Contexts(token=token[idx], seq=seq[idx], pos=pos[idx], members=members[idx], w=w[idx],
                    scale=np.abs(z[token[idx]]), sign=sign[idx], z=z)


def values_float(cx: Contexts, lam: float) -> np.ndarray:
    """``C(lam |z_t|, w)`` for every context, directly in float64 (log-domain softmax): (P,)."""
    b = lam * cx.scale
    E = np.exp(b[:, None] * (cx.w - cx.w[:, :1]))
    return (cx.w * E).sum(1) / E.sum(1)


def _arb(x: float) -> arb:
    return arb(float(x))  # exact: every double is a dyadic rational


def values_arb(ds: TokenDataset, cx: Contexts, v: np.ndarray, lam: float, digits: int) -> list:
    """``C`` for every context in ball arithmetic with ``digits`` decimal digits.

    The projections are recomputed exactly from the float64 tokens and ``v`` (the dot product of
    doubles is exact at this precision), so the balls enclose the true values of the layer with
    exactly these weights. Returns a list of ``arb`` in the order of ``cx``.
    """
    old = ctx.prec
    ctx.dps = digits
    try:
        va = [_arb(x) for x in v]
        z = [sum((a * _arb(x) for a, x in zip(va, row, strict=True)), arb(0)) for row in ds.vocab]
        lam_a = _arb(lam)
        out = []
        for p in range(cx.n_contexts):
            # w_j = sign(z_t) z_j, b = lam |z_t|; subtract the first (largest in float64) for scale
            s = int(cx.sign[p])
            wt = [z[m] * s for m in cx.members[p]]
            b = lam_a * abs(z[cx.token[p]])
            top = wt[0]
            E = [(b * (x - top)).exp() for x in wt]
            out.append(sum((x * e for x, e in zip(wt, E, strict=True)), arb(0)) / sum(E, arb(0)))
        return out
    finally:
        ctx.prec = old


def arb_log10(x: arb) -> float:
    """``log10`` of a positive ``arb`` as a float (no underflow: arb exponents are unbounded)."""
    return float((x.log() / arb(10).log()).mid())


def certified_same_token_gap(cx: Contexts, C: list) -> dict:
    """Certified lower bound of the smallest same-token difference ``|C - C'|`` from ``arb`` values.

    Adjacent differences are taken in the asymptotic order of ``cx``; if all are certainly positive
    the values are increasing in that order and their minimum is the minimum over all pairs. If not,
    the values are sorted by their midpoints and the check repeated. Returns the log10 of the lower
    bound and of the midpoint (``-inf`` / ``nan`` when not certified) and whether the asymptotic
    order held.
    """
    lo, hi = cx.adjacent_pairs()
    diffs = [C[j] - C[i] for i, j in zip(lo, hi, strict=True)]
    in_order = all(dd > 0 for dd in diffs)
    if not in_order:
        diffs = []
        for t in np.unique(cx.token):
            vals = sorted((C[p] for p in np.flatnonzero(cx.token == t)), key=lambda a: a.mid())
            diffs += [b - a for a, b in zip(vals[:-1], vals[1:], strict=True)]
    if not diffs:
        return {"log10_lower": math.inf, "log10_mid": math.inf, "certified": True,
                "asymptotic_order": True}
    lowers = [dd.lower() for dd in diffs]
    k = min(range(len(diffs)), key=lambda i: lowers[i])
    certified = lowers[k] > 0
    return {
        "log10_lower": arb_log10(arb(lowers[k])) if certified else -math.inf,
        "log10_mid": arb_log10(abs(diffs[k].mid())) if diffs[k].mid() != 0 else -math.inf,
        "certified": bool(certified),
        "asymptotic_order": bool(in_order),
    }


def float_same_token_gap(cx: Contexts, C: np.ndarray) -> float:
    """Smallest same-token difference from float64 values (sorted per token; 0 on a tie)."""
    order = np.lexsort((C, cx.token))
    t, c = cx.token[order], C[order]
    same = t[1:] == t[:-1]
    if not same.any():
        return math.inf
    return float(np.min(np.diff(c)[same]))


# --------------------------------------------------------------------------- normalised differences


@dataclass(frozen=True)
class PairSums:
    """``C_hi - C_lo`` of same-token context pairs as scaled exponential sums (see module doc).

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
        keep = ~(common_h[:, :, None] & common_l[:, None, :])  # (Q, n_i, n_j)
        coef = np.where(keep, wh[:, :, None] - wl[:, None, :], 0.0)
        s = np.where(keep, wh[:, :, None] + wl[:, None, :], -np.inf)
        Q = len(lo)  # noqa: N806
        coef, s = coef.reshape(Q, -1), s.reshape(Q, -1)
        smax = s.max(1)
        ds = np.where(np.isfinite(s), smax[:, None] - s, np.inf)
        return cls(lo=lo, hi=hi, coef=coef, ds=ds, smax=smax, scale=cx.scale[lo], w_lo=wl,
                   w_hi=wh)

    def F(self, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:  # noqa: N802
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

    def log_gap(self, b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(ln(C_hi - C_lo), F, err)`` at ``b: (Q,)``; the log is NaN where ``F <= err``."""
        F, err = self.F(b)

        def lse(w):
            return w[:, 0] * b + np.log(np.exp(b[:, None] * (w - w[:, :1])).sum(1))

        with np.errstate(invalid="ignore", divide="ignore"):
            logg = np.where(F > err, np.log(np.abs(F)), np.nan)
        return logg + b * self.smax - lse(self.w_hi) - lse(self.w_lo), F, err

    def leading(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(c0, rest, dmin)``: the coefficient at ``ds = 0`` (the sign as ``b -> inf``), the sum
        of the other ``|coef|`` and the smallest positive ``ds``."""
        top = self.ds == 0
        c0 = np.where(top, self.coef, 0).sum(1)
        rest = np.where(~top, np.abs(self.coef), 0).sum(1)
        dmin = np.where((self.ds > 0) & np.isfinite(self.ds), self.ds, np.inf).min(1)
        return c0, rest, dmin


def _arb_gap(ps: PairSums, q: int, b: float, digits: int) -> arb:
    """``F_q(b)`` of one pair in ``arb`` (the undecided cases of the float64 evaluation)."""
    old = ctx.prec
    ctx.dps = digits
    try:
        ba = _arb(b)
        total = arb(0)
        for c, d in zip(ps.coef[q], ps.ds[q], strict=True):
            if c != 0:
                total += _arb(c) * (-(ba * _arb(d))).exp()
        return total
    finally:
        ctx.prec = old


def pair_signs(ps: PairSums, b: np.ndarray, arb_digits: int = 60) -> tuple[np.ndarray, np.ndarray]:
    """``(positive, log_gap)`` for every pair at ``b: (Q,)``; pairs float64 cannot decide are
    recomputed in ``arb`` at ``arb_digits`` (doubled up to 8 times). ``log_gap`` is the natural log
    of ``C_hi - C_lo`` (NaN where it is not positive)."""
    logg, F, err = ps.log_gap(b)
    positive = F > err
    for q in np.flatnonzero(~positive & ~(F < -err)):
        digits = arb_digits
        for _ in range(8):
            val = _arb_gap(ps, int(q), float(b[q]), digits)
            if val > 0 or val < 0:
                break
            digits *= 2
        if val > 0:
            positive[q] = True
            lse = [float(np.log(np.exp(b[q] * (w - w[0])).sum()) + b[q] * w[0])
                   for w in (ps.w_hi[q], ps.w_lo[q])]
            logg[q] = float(val.log().mid()) + b[q] * ps.smax[q] - sum(lse)
    return positive, logg


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
    F, err = ps.F(grid)
    notpos = ~(F > err)
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
    sub = PairSums(lo=ps.lo[rows], hi=ps.hi[rows], coef=ps.coef[rows], ds=ps.ds[rows],
                   smax=ps.smax[rows], scale=ps.scale[rows], w_lo=ps.w_lo[rows],
                   w_hi=ps.w_hi[rows])
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


# --------------------------------------------------------------------------- verification


def cross_token_min(ds: TokenDataset, cx: Contexts, c: np.ndarray, alpha: float,
                    u: np.ndarray) -> float:
    """``min ||y - y'||`` over outputs of *different* tokens, ``y = x_t + alpha c u`` (float64).

    For tokens ``a != b`` the squared distance is ``D^2 + 2 alpha g s + alpha^2 s^2`` with
    ``s = c - c'``, ``D = ||x_a - x_b||``, ``g = <x_a - x_b, u>``: a parabola in ``s`` whose minimum
    over the finite set ``{c - c'}`` is at the element nearest ``s* = -g / alpha``, found by binary
    search in the sorted values of ``b``. Exhaustive over all pairs; float64 is adequate because
    these distances are at least ``eps / 2``.
    """
    groups = {int(t): np.sort(c[cx.token == t]) for t in np.unique(cx.token)}
    toks = sorted(groups)
    best = math.inf
    for ia, a in enumerate(toks):
        ca = groups[a]
        for b in toks[ia + 1:]:
            cb = groups[b]
            dx = ds.vocab[a] - ds.vocab[b]
            D2, g = float(dx @ dx), float(dx @ u)
            target = ca + g / alpha  # c' nearest to c - s*
            idx = np.searchsorted(cb, target)
            cand = np.stack([np.clip(idx - 1, 0, len(cb) - 1), np.clip(idx, 0, len(cb) - 1)])
            s = ca[None, :] - cb[cand]
            q = D2 + 2 * alpha * g * s + alpha**2 * s**2
            best = min(best, float(q.min()))
    return math.sqrt(max(best, 0.0))


def max_output_norm(ds: TokenDataset, cx: Contexts, c: np.ndarray, alpha: float,
                    u: np.ndarray) -> float:
    """``max ||x_t + alpha c u||`` over all contexts (float64; compare with ``r_max + eps/4``)."""
    y = ds.vocab[cx.token] + alpha * c[:, None] * u[None, :]
    return float(np.linalg.norm(y, axis=1).max())


def lam_min_search(cx: Contexts, n_grid: int = 64) -> dict:
    """``lam_min``: the largest ``lam`` at which two contexts of one token coincide.

    It is the largest crossing among the pairs adjacent in the asymptotic order (if a non-adjacent
    pair met at a larger ``lam``, every context between them would meet there too). Returns
    ``lam_min`` (0 when no pair ever crosses for ``lam >= 0``), the number of pairs and of crossing
    pairs.
    """
    lo, hi = cx.adjacent_pairs()
    if len(lo) == 0:
        return {"lam_min": 0.0, "pairs": 0, "crossing_pairs": 0}
    ps = PairSums.build(cx, lo, hi)
    b = last_crossings(ps, n_grid=n_grid)
    lam = b / ps.scale
    return {"lam_min": float(lam.max()), "pairs": int(len(lo)),
            "crossing_pairs": int(np.sum(b > 0))}


def separation_normalised(ds: TokenDataset, cx: Contexts, lam: float, alpha: float,
                          u: np.ndarray) -> dict:
    """Exhaustive separation at ``lam`` from the normalised differences (float64 + arb fallback).

    Valid when every adjacent pair (asymptotic order) is positive at ``lam``; otherwise
    ``asymptotic_order`` is False and the same-token minimum is NaN (use ``separation_arb``).
    Returns log10 of the same-token minimum ``alpha min (C_hi - C_lo)``, the cross-token minimum,
    ``log10_delta`` (the smaller), the max output norm and the digits a direct evaluation of the
    context values needs (``-log10`` of the smallest difference relative to ``max |w|``, plus 2).
    """
    c = values_float(cx, lam) * cx.sign
    cross = cross_token_min(ds, cx, c, alpha, u)
    lo, hi = cx.adjacent_pairs()
    if len(lo):
        ps = PairSums.build(cx, lo, hi)
        positive, logg = pair_signs(ps, lam * ps.scale)
        in_order = bool(positive.all())
        min_ln = float(np.min(logg)) if in_order else math.nan
    else:
        in_order, min_ln = True, math.inf
    log10_same = math.log10(alpha) + min_ln / LN10
    log10_delta = min(log10_same, math.log10(cross)) if cross > 0 else -math.inf
    wmax = float(np.abs(cx.w).max())
    digits = (math.log10(wmax) - min_ln / LN10 + 2) if math.isfinite(min_ln) else math.nan
    return {"log10_delta_same": log10_same, "delta_cross": cross, "log10_delta": log10_delta,
            "max_norm": max_output_norm(ds, cx, c, alpha, u), "asymptotic_order": in_order,
            "digits_needed": float(math.ceil(digits)) if math.isfinite(digits) else math.nan}


def separation_arb(ds: TokenDataset, cx: Contexts, v: np.ndarray, lam: float, alpha: float,
                   u: np.ndarray, digits: int) -> dict:
    """Exhaustive separation at ``lam`` from context values computed directly in ``arb``.

    Returns the certified lower bound (log10) of ``delta`` together with the same fields as
    ``separation_normalised`` and the digits used.
    """
    C = values_arb(ds, cx, v, lam, digits)
    same = certified_same_token_gap(cx, C)
    c = np.array([float(x.mid()) for x in C]) * cx.sign
    cross = cross_token_min(ds, cx, c, alpha, u)
    log10_same = math.log10(alpha) + same["log10_lower"]
    return {"log10_delta_same": log10_same, "delta_cross": cross,
            "log10_delta": min(log10_same, math.log10(cross)) if cross > 0 else -math.inf,
            "log10_delta_same_mid": math.log10(alpha) + same["log10_mid"],
            "certified": same["certified"], "asymptotic_order": same["asymptotic_order"],
            "max_norm": max_output_norm(ds, cx, c, alpha, u), "digits": digits}


def separation_float(ds: TokenDataset, cx: Contexts, lam: float, alpha: float,
                     u: np.ndarray) -> dict:
    """The naive float64 check: compute the context values, subtract. ``delta`` reads 0 once the
    softmax has collapsed to hardmax (ties created by rounding)."""
    c = values_float(cx, lam) * cx.sign
    same = float_same_token_gap(cx, values_float(cx, lam))
    cross = cross_token_min(ds, cx, c, alpha, u)
    delta = min(alpha * same, cross)
    return {"delta": delta, "log10_delta": math.log10(delta) if delta > 0 else -math.inf,
            "max_norm": max_output_norm(ds, cx, c, alpha, u)}



def _certified_log_gaps(ds: TokenDataset, cx: Contexts, v: np.ndarray, lam: float,
                        lo: np.ndarray, hi: np.ndarray, digits: int, max_doublings: int):
    """``ln(C_hi - C_lo)`` as ``arb`` for every pair, or ``None`` if some pair is certainly
    negative or stays undecided after ``max_doublings`` doublings of ``digits``.
    Returns ``(log_gaps, digits_used)``."""
    ps = PairSums.build(cx, lo, hi)
    n = cx.w.shape[1]
    keep = ps.coef.reshape(len(lo), n, n) != 0  # which (i, j) terms survive
    old = ctx.prec
    ln_gap: dict[int, arb] = {}
    todo = list(range(len(lo)))
    level = 0
    try:
        while todo:
            if level > max_doublings:
                return None, digits * 2**max_doublings
            ctx.dps = digits * 2**level
            va = [_arb(x) for x in v]
            z = [sum((a * _arb(x) for a, x in zip(va, row, strict=True)), arb(0))
                 for row in ds.vocab]
            lam_a = _arb(lam)
            cache: dict[int, tuple[list, list, arb]] = {}

            def terms(p: int, z=z, lam_a=lam_a, cache=cache):
                if p not in cache:
                    s = int(cx.sign[p])
                    w = [z[m] * s for m in cx.members[p]]
                    b = lam_a * abs(z[cx.token[p]])
                    E = [(b * (x - w[0])).exp() for x in w]
                    cache[p] = (w, E, sum(E, arb(0)).log())
                return cache[p]

            undecided = []
            for q in todo:
                wh, Eh, lzh = terms(int(hi[q]))
                wl, El, lzl = terms(int(lo[q]))
                G = arb(0)
                for i, j in zip(*np.nonzero(keep[q]), strict=True):
                    G += (wh[i] - wl[j]) * Eh[i] * El[j]
                if G > 0:
                    ln_gap[q] = G.log() - lzh - lzl
                elif G < 0:
                    return None, ctx.dps  # out of order: not the order assumed
                else:
                    undecided.append(q)
            todo = undecided
            level += 1
    finally:
        ctx.prec = old
    return ln_gap, digits * 2**max(level - 1, 0)


def separation_certified(ds: TokenDataset, cx: Contexts, v: np.ndarray, lam: float, alpha: float,
                         u: np.ndarray, digits: int = 40, max_doublings: int = 6) -> dict:
    """Certified exhaustive separation at ``lam`` from the normalised differences in ``arb``.

    With exact projections (recomputed in ``arb`` from the doubles) and per context
    ``E_i = e^{b (w_i - w_1)}``, the difference of two contexts of one token is

        C_hi - C_lo = sum_{kept (i, j)} (w_i - w_j) E^hi_i E^lo_j / (sum E^hi  sum E^lo),

    the dropped terms (``i, j`` both shared) cancelling exactly. Ball arithmetic keeps its relative
    accuracy however small the terms are (exponents are unbounded), so a few dozen digits certify
    differences like ``1e-40000`` that a direct evaluation needs 40,000 digits for; undecided signs
    are redone with doubled digits. The pairs are those adjacent in the asymptotic order; if one is
    certainly negative (``lam`` below the last crossing), those adjacent in the float64 order of
    the values instead. When every adjacent difference is certainly positive the values of each
    token are strictly increasing in that order, so the smallest adjacent difference is the
    smallest over all same-token pairs.
    """
    c_float = values_float(cx, lam)
    c = c_float * cx.sign
    cross = cross_token_min(ds, cx, c, alpha, u)
    base = {"delta_cross": cross, "max_norm": max_output_norm(ds, cx, c, alpha, u)}
    lo, hi = cx.adjacent_pairs()
    asymptotic = True
    ln_gap, used = (_certified_log_gaps(ds, cx, v, lam, lo, hi, digits, max_doublings)
                    if len(lo) else ({}, digits))
    if ln_gap is None:
        asymptotic = False
        order = np.lexsort((np.arange(cx.n_contexts), c_float, cx.token))
        same = cx.token[order][1:] == cx.token[order][:-1]
        lo, hi = order[:-1][same], order[1:][same]
        ln_gap, used = _certified_log_gaps(ds, cx, v, lam, lo, hi, digits, max_doublings)
    out = {**base, "asymptotic_order": asymptotic, "digits": used}
    if ln_gap is None:
        return {**out, "certified": False, "log10_delta_same": math.nan,
                "log10_delta": math.nan, "digits_needed": math.nan}
    if not ln_gap:
        return {**out, "certified": True, "log10_delta_same": math.inf,
                "log10_delta": math.log10(cross), "digits_needed": math.nan}
    lowest = min(ln_gap.values(), key=lambda a: float(a.lower()))
    log10_same = math.log10(alpha) + float(lowest.lower()) / LN10
    wmax = float(np.abs(cx.w).max())
    return {**out, "certified": True, "log10_delta_same": log10_same,
            "log10_delta": min(log10_same, math.log10(cross)) if cross > 0 else -math.inf,
            "digits_needed": float(math.ceil(math.log10(wmax) - float(lowest.mid()) / LN10 + 2))}


# --------------------------------------------------------------------------- stage rows


def _setup(rng: np.random.Generator, vocab_size: int, d: int, n: int, N: int, n_classes: int,  # noqa: N803
           r_min: float, r_max: float, eps: float, max_draws: int):
    from expressivity.datasets import token_separated_dataset

    ds = token_separated_dataset(rng, vocab_size, d, n, N, n_classes, r_min=r_min, r_max=r_max,
                                 eps=eps)
    v, draws, ratio = draw_projection(rng, ds.vocab, max_draws)
    return ds, v, {"d": d, "V": vocab_size, "n": n, "N": N, "eps": ds.eps, "r_min": r_min,
                   "r_max": r_max, "v_draws": draws, "v_ratio": ratio,
                   "v_bound": projection_constant(vocab_size, d)}


def _memorize_row(ds, v, lam, alpha, prefix: str) -> dict:
    from expressivity.memorization import memorize

    sep = separation_certified(ds, contexts(ds, v), v, lam, alpha, v)
    if not sep["certified"]:
        return {f"{prefix}lam": lam, f"{prefix}correct": math.nan}
    res = memorize(ds, v, lam, int(sep["digits_needed"]))
    return {f"{prefix}lam": lam, "points": res.n_points, "correct": res.n_correct,
            "accuracy": res.n_correct / res.n_points, "max_abs_error": res.max_abs_error,
            "n_parameters": res.n_parameters, "n_attention": res.n_attention, "n_ffn": res.n_ffn,
            "feature_digits": res.feature_digits, "ffn_digits": res.ffn_digits}


def theory_row(rng: np.random.Generator, vocab_size: int, d: int, n: int, N: int,  # noqa: N803
               n_classes: int, r_min: float, r_max: float, eps: float, max_digits: int,
               max_draws: int = 100_000, margin: float = 0.01) -> dict:
    """Regime (i): the layer at ``lam_theory``, in arbitrary precision when
    ``digits_bound(lam_theory) <= max_digits`` (else only the digits needed are reported).

    Records the certified lower bound of ``delta`` from the direct ``arb`` evaluation at the
    derived digits, the normalised ``arb`` cross-check, the naive float64 value (0 when it has
    collapsed), ``lam_min`` by search, and the memorizer built at ``lam_theory``.
    """
    N = min(N, math.comb(vocab_size, n))  # noqa: N806
    ds, v, row = _setup(rng, vocab_size, d, n, N, n_classes, r_min, r_max, eps, max_draws)
    alpha = ds.eps / (4 * r_max)
    lt = lam_theory(n, d, vocab_size, ds.eps, r_min)
    digits = digits_bound(lt, r_max)
    cx = contexts(ds, v)
    row.update({"regime": "theory", "lam_theory": lt, "digits_theory": digits,
                "log10_delta_theory": log10_delta_theory(n, d, vocab_size, ds.eps, r_min, r_max),
                "r_bound": r_max + ds.eps / 4, "computed": digits <= max_digits})
    search = lam_min_search(cx)
    lam_star = search["lam_min"] * (1 + margin)
    star = separation_certified(ds, cx, v, lam_star, alpha, v)
    row.update({"lam_min": search["lam_min"], "lam_star": lam_star,
                "lam_ratio": lt / search["lam_min"] if search["lam_min"] > 0 else math.inf,
                "log10_delta_star": star["log10_delta"], "certified_star": star["certified"],
                "digits_star": star["digits_needed"]})
    norm = separation_certified(ds, cx, v, lt, alpha, v)
    row.update({"log10_delta_normalised": norm["log10_delta"],
                "digits_needed": norm["digits_needed"]})
    if row["computed"]:
        direct = separation_arb(ds, cx, v, lt, alpha, v, digits)
        flt = separation_float(ds, cx, lt, alpha, v)
        row.update({"log10_delta": direct["log10_delta"], "certified": direct["certified"],
                    "asymptotic_order": direct["asymptotic_order"],
                    "delta_cross": direct["delta_cross"], "max_norm": direct["max_norm"],
                    "float64_log10_delta": flt["log10_delta"], "precision": f"arb-{digits}"})
        row.update(_memorize_row(ds, v, lt, alpha, "mem_"))
    else:
        row.update({"log10_delta": math.nan, "certified": math.nan, "precision": "not computed"})
    return row


def search_row(rng: np.random.Generator, vocab_size: int, d: int, n: int, N: int,  # noqa: N803
               n_classes: int, r_min: float, r_max: float, eps: float, lam_mem: float,
               max_draws: int = 100_000, margin: float = 0.01, n_grid: int = 64) -> dict:
    """Regime (ii): ``lam_min`` by search, the certified separation at
    ``lam_star = lam_min (1 + margin)``, and the memorizer at ``lam_mem`` (where its features need
    few digits; the parameter count does not depend on ``lam``)."""
    ds, v, row = _setup(rng, vocab_size, d, n, N, n_classes, r_min, r_max, eps, max_draws)
    alpha = ds.eps / (4 * r_max)
    lt = lam_theory(n, d, vocab_size, ds.eps, r_min)
    cx = contexts(ds, v)
    search = lam_min_search(cx, n_grid=n_grid)
    lam_star = search["lam_min"] * (1 + margin)
    star = separation_certified(ds, cx, v, lam_star, alpha, v)
    flt = separation_float(ds, cx, lam_star, alpha, v)
    row.update({"regime": "search", "lam_theory": lt, "digits_theory": digits_bound(lt, r_max),
                "log10_delta_theory": log10_delta_theory(n, d, vocab_size, ds.eps, r_min, r_max),
                "r_bound": r_max + ds.eps / 4, "lam_min": search["lam_min"],
                "pairs": search["pairs"], "crossing_pairs": search["crossing_pairs"],
                "lam_star": lam_star,
                "lam_ratio": lt / search["lam_min"] if search["lam_min"] > 0 else math.inf,
                "log10_delta": star["log10_delta"], "certified": star["certified"],
                "asymptotic_order": star["asymptotic_order"], "delta_cross": star["delta_cross"],
                "max_norm": star["max_norm"], "digits_star": star["digits_needed"],
                "float64_log10_delta": flt["log10_delta"],
                "precision": f"arb-{star['digits']} (normalised differences)"})
    row.update(_memorize_row(ds, v, lam_mem, alpha, "mem_"))
    return row


def curve_rows(rng: np.random.Generator, vocab_size: int, d: int, n: int, n_classes: int,
               r_min: float, r_max: float, eps: float, n_lams: int, decades: float,
               max_digits: int, max_draws: int = 100_000) -> list[dict]:
    """``delta`` against ``lam`` from 0 to ``lam_theory`` on one dataset (every token set):
    naive float64, direct ``arb`` at ``digits_bound(lam)`` (when within ``max_digits``) and the
    certified normalised differences. ``lam`` runs over 0 and a log grid of ``decades`` decades
    up to ``lam_theory``."""
    N = math.comb(vocab_size, n)  # noqa: N806
    ds, v, base = _setup(rng, vocab_size, d, n, N, n_classes, r_min, r_max, eps, max_draws)
    alpha = ds.eps / (4 * r_max)
    lt = lam_theory(n, d, vocab_size, ds.eps, r_min)
    cx = contexts(ds, v)
    lam_min = lam_min_search(cx)["lam_min"]
    lams = np.concatenate([[0.0], lt * np.logspace(-decades, 0, n_lams - 1)])
    rows = []
    for lam in lams:
        flt = separation_float(ds, cx, lam, alpha, v)
        cert = separation_certified(ds, cx, v, lam, alpha, v)
        digits = digits_bound(lam, r_max)
        row = {**base, "lam": lam, "lam_theory": lt, "lam_min": lam_min,
               "log10_delta_theory": log10_delta_theory(n, d, vocab_size, ds.eps, r_min, r_max),
               "float64_log10_delta": flt["log10_delta"],
               "certified_log10_delta": cert["log10_delta"], "certified": cert["certified"],
               "digits_needed": cert["digits_needed"], "digits_bound": digits,
               "arb_log10_delta": math.nan}
        if digits <= max_digits:
            row["arb_log10_delta"] = separation_arb(ds, cx, v, lam, alpha, v, digits)["log10_delta"]
        rows.append(row)
    return rows


def hardmax_contrast_rows(rng: np.random.Generator, d: int, draws: int,
                          margin: float = 0.01) -> list[dict]:
    """The rank-1 layer on the Theorem 1 pattern (``expressivity.counterexamples``): tokens
    ``t e`` for ``t`` in {1, 2, 2.5, 3.5, 4, 5}, sequences (1, 2, 4, 5) e and (1, 2.5, 3.5, 5) e.

    Per draw of ``e`` and of ``v`` (accepted by the lemma's bound): with hardmax the outputs at the
    shared tokens 1 and 5 are equal in exact rational arithmetic, so ``delta = 0`` exactly and the
    layer is not a contextual mapping; with softmax at ``lam_star`` the certified ``delta > 0``.
    """
    from expressivity.counterexamples import (
        THEOREM1_LABELS,
        THEOREM1_TOKENS,
        shared_tokens_equal_exactly,
    )
    from expressivity.datasets import TokenDataset, validate_dataset

    ts = np.unique(np.concatenate(THEOREM1_TOKENS))
    seqs = np.array([[int(np.flatnonzero(ts == t)[0]) for t in seq] for seq in THEOREM1_TOKENS])
    rows = []
    for draw in range(draws):
        e = rng.standard_normal(d)
        e /= np.linalg.norm(e)
        vocab = np.outer(ts, e)
        ds = TokenDataset(vocab=vocab, sequences=seqs, labels=np.array(THEOREM1_LABELS),
                          r_min=float(ts.min()), r_max=float(ts.max()),
                          eps=float(np.diff(ts).min()))
        validate_dataset(ds)
        v, n_draws, _ = draw_projection(rng, vocab)
        alpha = ds.eps / (4 * ds.r_max)
        cx = contexts(ds, v)
        lam_star = lam_min_search(cx)["lam_min"] * (1 + margin) or 1.0
        soft = separation_certified(ds, cx, v, lam_star, alpha, v)
        layer = Rank1Layer.for_dataset(ds, v, lam_star)
        equal = shared_tokens_equal_exactly([layer.head], e)
        X1, X2 = (vocab[s] for s in seqs)
        hard_gap = float(np.max(np.abs(layer(X1, "hardmax")[[0, 3]] - layer(X2, "hardmax")[[0, 3]])))
        rows.append({"d": d, "draw": draw, "v_draws": n_draws, "lam": lam_star,
                     "hardmax_equal_exact": bool(equal),
                     "hardmax_delta_exact": 0.0 if equal else math.nan,
                     "hardmax_gap_float64": hard_gap,
                     "softmax_log10_delta": soft["log10_delta"],
                     "softmax_certified": soft["certified"]})
    return rows
