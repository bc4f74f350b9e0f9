"""Exhaustive separation of the rank-1 layer's outputs: ``delta`` in float64, ball arithmetic, or
certified from the normalised differences.

Kajitsuka & Sato 2024, Theorem 2 (``expressivity.rank1``): outputs whose query tokens differ, or
whose token sets differ, must be at least ``delta`` apart. Checked exhaustively, per query token in
1-D: outputs with the same token differ by ``alpha |c - c'|``, so sorting the context values of a
token and taking adjacent differences gives the minimum over *all* pairs. Outputs with different
tokens are at least ``eps/2`` apart and are checked in float64 by minimising a quadratic over the
sorted differences (``cross_token_min``).

Three ways to get the same-token differences ([D], ours):

- ``separation_float``: compute every ``C`` in float64 and subtract. It collapses once the softmax
  is numerically a hardmax: the values tie and ``delta`` reads 0.
- ``separation_arb``: every ``C`` directly in ball arithmetic at ``digits_bound(lam)`` digits
  (about ``2 lam r_max^2 / ln 10``), which certifies a lower bound.
- ``separation_certified``: the normalised differences of ``expressivity.rank1.pair_sums`` in ball
  arithmetic: a few dozen digits certify differences like ``1e-40000``.

And the layer's two limits in exact rational arithmetic (``separation_exact``): uniform averaging
(``lam = 0``) and hardmax, where outputs of two token sets can coincide exactly (``delta = 0``).

Each takes the layer (``Rank1Layer``: ``v``, ``lam``, ``W_O = alpha u``) and returns a
``Separation``.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np
from flint import arb, ctx

from expressivity.arguments import integer
from expressivity.ball_arithmetic import arb_log10, exact, exact_projections
from expressivity.datasets import TokenDataset
from expressivity.rank1.contexts import (
    Contexts,
    check_lam,
    context_terms,
    values_arb,
    values_exact,
    values_float,
)
from expressivity.rank1.layer import LN10, Rank1Layer
from expressivity.rank1.pair_sums import PairSums


@dataclass(frozen=True)
class Separation:
    """The exhaustive separation of a layer's outputs on one dataset (Theorem 2's ``delta``).

    ``log10_delta``: ``log10 min(alpha min |C - C'|, delta_cross)`` over same-token pairs of
    contexts and outputs of different tokens (``-inf`` when two outputs coincide, NaN when the
    certification failed); ``delta_cross``: the cross-token minimum (float64, at least ``eps/2``);
    ``precision``: how it was computed. The rest is what some methods know: the same-token part
    (``log10_delta_same``, certified lower bound, and its midpoint ``log10_delta_same_mid``),
    whether the bound is rigorous (``certified``), whether the asymptotic order held, the digits
    used and those a direct evaluation needs, the largest output norm (compare with
    ``r_max + eps/4``), and the exactly coinciding pairs (``collisions``, exact limits).
    """

    log10_delta: float
    delta_cross: float
    precision: str
    certified: bool
    log10_delta_same: float = math.nan
    log10_delta_same_mid: float = math.nan
    asymptotic_order: bool | None = None
    max_norm: float = math.nan
    digits: int | None = None
    digits_needed: float = math.nan
    collisions: int | None = None


def _check_scale(alpha: float, u, d: int) -> None:
    """``alpha > 0`` finite and ``u`` a finite vector of length ``d`` (``W_O = alpha u``)."""
    if not (isinstance(alpha, (int, float, np.floating)) and math.isfinite(alpha) and alpha > 0):
        raise ValueError(f"alpha must be a finite number > 0, got {alpha!r}")
    u = np.asarray(u, dtype=float)
    if u.shape != (d,) or not np.isfinite(u).all():
        raise ValueError(f"u must be a finite vector of shape ({d},), got shape {u.shape}")


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


def _pair_min(ds: TokenDataset, ca: np.ndarray, cb: np.ndarray, a: int, b: int, alpha: float,
              u: np.ndarray) -> float:
    """``min ||y - y'||^2`` over the outputs of tokens ``a`` and ``b`` (sorted values ``ca, cb``)."""
    dx = ds.vocab[a] - ds.vocab[b]
    D2, g = float(dx @ dx), float(dx @ u)
    target = ca + g / alpha  # c' nearest to c - s*
    idx = np.searchsorted(cb, target)
    cand = np.stack([np.clip(idx - 1, 0, len(cb) - 1), np.clip(idx, 0, len(cb) - 1)])
    s = ca[None, :] - cb[cand]
    return float((D2 + 2 * alpha * g * s + alpha**2 * s**2).min())


def cross_token_min(ds: TokenDataset, cx: Contexts, c: np.ndarray, alpha: float,
                    u: np.ndarray) -> float:
    """``min ||y - y'||`` over outputs of *different* tokens, ``y = x_t + alpha c u`` (float64).

    For tokens ``a != b`` the squared distance is ``D^2 + 2 alpha g s + alpha^2 s^2`` with
    ``s = c - c'``, ``D = ||x_a - x_b||``, ``g = <x_a - x_b, u>``: a parabola in ``s`` whose minimum
    over the finite set ``{c - c'}`` is at the element nearest ``s* = -g / alpha``, found by binary
    search in the sorted values of ``b``. Exhaustive over all pairs of tokens, in increasing order
    of a lower bound (the parabola's minimum over ``[min c_a - max c_b, max c_a - min c_b]``); the
    pairs whose bound exceeds the minimum found cannot hold it and are skipped. float64 is adequate
    because these distances are at least ``eps / 2``.
    """
    toks = np.unique(cx.token)
    if len(toks) < 2:
        return math.inf
    groups = [np.sort(c[cx.token == t]) for t in toks]
    X = ds.vocab[toks]
    sq = (X * X).sum(1)
    proj = X @ u
    D2 = sq[:, None] + sq[None, :] - 2 * (X @ X.T)  # Gram form: only for the bounds
    G = proj[:, None] - proj[None, :]
    lo = np.array([g[0] for g in groups])
    hi = np.array([g[-1] for g in groups])
    s = np.clip(-G / alpha, lo[:, None] - hi[None, :], hi[:, None] - lo[None, :])
    bound = D2 + 2 * alpha * G * s + alpha**2 * s**2 - 1e-9 * (sq[:, None] + sq[None, :] + 1)
    ia, ib = np.triu_indices(len(toks), 1)
    best = math.inf
    for q in np.argsort(bound[ia, ib], kind="stable"):
        a, b = int(ia[q]), int(ib[q])
        if bound[a, b] >= best:
            break
        best = min(best, _pair_min(ds, groups[a], groups[b], int(toks[a]), int(toks[b]), alpha, u))
    return math.sqrt(max(best, 0.0))


def max_output_norm(ds: TokenDataset, cx: Contexts, c: np.ndarray, alpha: float,
                    u: np.ndarray) -> float:
    """``max ||x_t + alpha c u||`` over all contexts (float64; compare with ``r_max + eps/4``)."""
    y = ds.vocab[cx.token] + alpha * c[:, None] * u[None, :]
    return float(np.linalg.norm(y, axis=1).max())


def separation_float(ds: TokenDataset, cx: Contexts, layer: Rank1Layer) -> Separation:
    """The naive float64 check: compute the context values, subtract. ``delta`` reads 0 once the
    softmax has collapsed to hardmax (ties created by rounding)."""
    lam, alpha, u = layer.lam, layer.alpha, layer.u
    _check_scale(alpha, u, ds.d)
    c = values_float(cx, lam) * cx.sign
    same = float_same_token_gap(cx, values_float(cx, lam))
    cross = cross_token_min(ds, cx, c, alpha, u)
    delta = min(alpha * same, cross)
    return Separation(log10_delta=math.log10(delta) if delta > 0 else -math.inf,
                      delta_cross=cross, precision="float64", certified=False,
                      max_norm=max_output_norm(ds, cx, c, alpha, u))


def separation_arb(ds: TokenDataset, cx: Contexts, layer: Rank1Layer, digits: int) -> Separation:
    """Exhaustive separation at the layer's ``lam`` from context values computed directly in
    ``arb`` at ``digits`` digits: the certified lower bound of the same-token minimum
    ``alpha min |C - C'|`` (and its midpoint), the cross-token minimum, the max output norm,
    whether the asymptotic order held."""
    lam, alpha, u = layer.lam, layer.alpha, layer.u
    _check_scale(alpha, u, ds.d)
    C = values_arb(ds, cx, layer.v, lam, digits)
    same = certified_same_token_gap(cx, C)
    c = np.array([float(x.mid()) for x in C]) * cx.sign
    cross = cross_token_min(ds, cx, c, alpha, u)
    log10_same = math.log10(alpha) + same["log10_lower"]
    return Separation(log10_delta=min(log10_same, math.log10(cross)) if cross > 0 else -math.inf,
                      delta_cross=cross, precision=f"arb-{digits}", certified=same["certified"],
                      log10_delta_same=log10_same,
                      log10_delta_same_mid=math.log10(alpha) + same["log10_mid"],
                      asymptotic_order=same["asymptotic_order"],
                      max_norm=max_output_norm(ds, cx, c, alpha, u), digits=digits)


def _certified_log_gaps(ds: TokenDataset, cx: Contexts, v: np.ndarray, lam: float,
                        lo: np.ndarray, hi: np.ndarray, digits: int, max_doublings: int):
    """``ln(C_hi - C_lo)`` as ``arb`` for every pair, or ``None`` if some pair is certainly
    negative or stays undecided after ``max_doublings`` doublings of ``digits``.
    Returns ``(log_gaps, digits_used)``."""
    ps = PairSums.build(cx, lo, hi)
    n = cx.w.shape[1]
    keep = ps.coef.reshape(len(lo), n, n) != 0  # which (i, j) terms survive
    ln_gap: dict[int, arb] = {}
    todo = list(range(len(lo)))
    level = 0
    while todo:
        if level > max_doublings:
            return None, digits * 2**max_doublings
        with ctx.workdps(digits * 2**level):
            z = exact_projections(ds.vocab, v)
            lam_a = exact(lam)
            cache: dict[int, tuple[list, list, arb]] = {}
            undecided = []
            for q in todo:
                for p in (int(hi[q]), int(lo[q])):
                    if p not in cache:
                        w, E = context_terms(cx, z, lam_a, p)
                        cache[p] = (w, E, sum(E, arb(0)).log())
                wh, Eh, lzh = cache[int(hi[q])]
                wl, El, lzl = cache[int(lo[q])]
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
    return ln_gap, digits * 2**max(level - 1, 0)


def _value_order_pairs(ds: TokenDataset, cx: Contexts, v: np.ndarray, lam: float,
                       c_float: np.ndarray, digits: int, max_doublings: int):
    """Pairs ``(lo, hi)`` of contexts adjacent in the order of their values, per token.

    The float64 order where it resolves every adjacent difference (by more than ``1e-12 max|w|``,
    far above its rounding); else the order of ``arb`` values whose adjacent balls are disjoint
    (near ``lam = 0`` the values differ by ``O(lam^k)``, below float64 resolution, when the token
    sets share ``k`` power sums), at ``digits`` doubled as needed; the float64 order when even that
    fails (the certification then fails on the unresolved pair)."""
    def adjacent(order):
        same = cx.token[order][1:] == cx.token[order][:-1]
        return order[:-1][same], order[1:][same]

    order = np.lexsort((np.arange(cx.n_contexts), c_float, cx.token))
    lo, hi = adjacent(order)
    if np.all(c_float[hi] - c_float[lo] > 1e-12 * float(np.abs(cx.w).max())):
        return lo, hi
    for level in range(max_doublings + 1):
        C = values_arb(ds, cx, v, lam, digits * 2**level)
        keys = sorted(range(cx.n_contexts), key=lambda p: (int(cx.token[p]), C[p].mid()))
        lo, hi = adjacent(np.array(keys))
        if all(C[j] > C[i] for i, j in zip(lo, hi, strict=True)):
            return lo, hi
    return adjacent(order)


def separation_certified(ds: TokenDataset, cx: Contexts, layer: Rank1Layer, digits: int = 40,
                         max_doublings: int = 6) -> Separation:
    """Certified exhaustive separation at the layer's ``lam`` from the normalised differences in
    ``arb``.

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
    smallest over all same-token pairs. ``digits_needed``: the digits a direct evaluation needs
    (``-log10`` of the smallest difference relative to ``max |w|``, plus 2).
    """
    v, lam, alpha, u = layer.v, check_lam(layer.lam), layer.alpha, layer.u
    _check_scale(alpha, u, ds.d)
    integer("digits", digits, 10)
    integer("max_doublings", max_doublings, 0)
    c_float = values_float(cx, lam)
    c = c_float * cx.sign
    cross = cross_token_min(ds, cx, c, alpha, u)
    max_norm = max_output_norm(ds, cx, c, alpha, u)
    lo, hi = cx.adjacent_pairs()
    asymptotic = True
    # float64 values accurate to ~1e-15 |w| that are clearly out of the asymptotic order: the arb
    # check of those pairs would find a negative difference, so go to the float64 order at once
    clearly_out = np.any(c_float[hi] - c_float[lo] < -1e-9 * float(np.abs(cx.w).max()))
    ln_gap, used = ((None, digits) if clearly_out else
                    _certified_log_gaps(ds, cx, v, lam, lo, hi, digits, max_doublings)
                    if len(lo) else ({}, digits))
    if ln_gap is None:
        asymptotic = False
        lo, hi = _value_order_pairs(ds, cx, v, lam, c_float, digits, max_doublings)
        ln_gap, used = _certified_log_gaps(ds, cx, v, lam, lo, hi, digits, max_doublings)
    known = {"delta_cross": cross, "max_norm": max_norm, "asymptotic_order": asymptotic,
             "digits": used, "precision": f"arb-{used} (normalised differences)"}
    if ln_gap is None:
        return Separation(log10_delta=math.nan, certified=False, **known)
    if not ln_gap:
        return Separation(log10_delta=math.log10(cross), certified=True,
                          log10_delta_same=math.inf, **known)
    lowest = min(ln_gap.values(), key=lambda a: float(a.lower()))
    log10_same = math.log10(alpha) + float(lowest.lower()) / LN10
    wmax = float(np.abs(cx.w).max())
    return Separation(
        log10_delta=min(log10_same, math.log10(cross)) if cross > 0 else -math.inf,
        certified=True, log10_delta_same=log10_same,
        digits_needed=float(math.ceil(math.log10(wmax) - float(lowest.mid()) / LN10 + 2)),
        **known)


def separation_exact(ds: TokenDataset, cx: Contexts, layer: Rank1Layer, arm: str) -> Separation:
    """Exhaustive separation of one limit of the layer (``arm``: ``"uniform"``, ``lam = 0``, or
    ``"hardmax"``; the layer's own ``lam`` is not used) in exact rational arithmetic
    (``contexts.values_exact``).

    Outputs of one token differ by ``alpha |C - C'|``, so two contexts with different token sets
    collide exactly when their rational values are equal. ``collisions``: same-token pairs of
    contexts that coincide (the dataset's token sets are distinct); ``log10_delta``: ``-inf`` when
    any collide, else ``log10 min(alpha min |C - C'|, cross-token minimum)``; the cross-token
    minimum in float64 (at least ``eps / 2``).
    """
    alpha, u = layer.alpha, layer.u
    _check_scale(alpha, u, ds.d)
    K, scale = values_exact(ds, cx, layer.v, arm)
    collisions = _colliding_pairs(K, cx.token)
    cross = cross_token_min(ds, cx, np.array([float(x * scale) for x in K]) * cx.sign, alpha, u)
    if collisions:
        log10_delta = -math.inf
    else:
        gaps = [b - a for t in np.unique(cx.token)
                for a, b in itertools.pairwise(sorted(K[p] for p in np.flatnonzero(cx.token == t)))]
        gap = min(gaps, default=None)
        same = (math.log10(alpha) + math.log10(gap) + math.log10(scale.numerator)
                - math.log10(scale.denominator) if gap is not None else math.inf)
        log10_delta = min(same, math.log10(cross)) if cross > 0 else -math.inf
    return Separation(log10_delta=log10_delta, delta_cross=cross, precision="exact rational",
                      certified=True, collisions=collisions)


def _colliding_pairs(C: list, token: np.ndarray) -> int:
    """Pairs of contexts of one token with equal values."""
    counts: dict[tuple, int] = {}
    for t, x in zip(token.tolist(), C, strict=True):
        counts[(t, x)] = counts.get((t, x), 0) + 1
    return sum(r * (r - 1) // 2 for r in counts.values())
