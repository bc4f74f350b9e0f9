"""Exact memorization of finitely many labelled points by a two-layer ReLU network.

Zhang, Bengio, Hardt, Recht & Vinyals 2017, Theorem 1: there is a two-layer ReLU network with
``2m + d`` weights that represents any function on a sample of ``m`` points in ``R^d``.
Construction (their proof): project the points to one dimension, ``z_i = a^T x_i`` (all distinct),
sort them, interleave biases ``b_1 < z_1 < b_2 < z_2 < ... < b_m < z_m`` and set

    c(x) = sum_j w_j ReLU(a^T x - b_j),

where ``w`` solves the lower-triangular system ``sum_{j <= i} w_j (z_i - b_j) = y_i``.

The functions here work on the projected values and are generic in the number type: floats,
``fractions.Fraction`` or ``mpmath.mpf`` all work, so the same code runs at the precision the
points need (the rank-1 contextual mapping separates points by far less than float64 resolves).

``memorize`` builds the whole one-layer transformer of Kajitsuka & Sato 2024, Corollary 1 ([R]: the
corollary's statement is recalled, the assembly below is ours [D]): the rank-1 attention layer of
``expressivity.contextual_mapping`` followed by Zhang et al.'s network reading ``a^T y`` with
``a = v``, i.e. the token id ``v^T x_t`` plus ``alpha (v^T u)`` times the context id ``c``. The
features are computed in ball arithmetic at the digits their separation needs, the interpolant is
solved in mpmath at twice that, and every label is checked.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Sequence
from dataclasses import dataclass

import mpmath
import numpy as np


@dataclass(frozen=True)
class ReluInterpolant:
    """``c(z) = sum_j w_j ReLU(z - b_j)`` on projected inputs ``z = a^T x``."""

    b: tuple
    w: tuple

    @property
    def n_weights(self) -> int:
        """Biases plus output weights, ``2m`` (the projection ``a`` adds ``d``)."""
        return len(self.b) + len(self.w)

    def __call__(self, z):
        return sum(wj * max(z - bj, 0) for bj, wj in zip(self.b, self.w, strict=True))

    def evaluate_many(self, zs: Sequence) -> list:
        """``c(z)`` for many points in O((m + k) log m): the units with ``b_j < z`` are active
        (found by binary search in the increasing biases), so ``c(z) = z W_k - B_k`` with prefix
        sums ``W_k = sum_{j<k} w_j`` and ``B_k = sum_{j<k} w_j b_j``. Same number type as the
        inputs; equal to ``__call__`` up to rounding."""
        if any(not self.b[i] < self.b[i + 1] for i in range(len(self.b) - 1)):
            raise ValueError("biases are not increasing; use __call__")
        W, B = [0], [0]
        for bj, wj in zip(self.b, self.w, strict=True):
            W.append(W[-1] + wj)
            B.append(B[-1] + wj * bj)
        out = []
        for z in zs:
            k = bisect.bisect_left(self.b, z)  # b_j < z for j < k
            out.append(z * W[k] - B[k])
        return out


def fit_relu_interpolant(z: Sequence, y: Sequence) -> ReluInterpolant:
    """Solve Zhang et al.'s triangular system for distinct projected points ``z`` and labels ``y``.

    Biases: ``b_1 = z_(1) - 1`` and ``b_i = (z_(i-1) + z_(i)) / 2`` (midpoints of the sorted values).
    On the segment ``[b_i, b_{i+1}]`` the network has slope ``s_i = w_1 + ... + w_i``; walking the
    sorted points gives ``s_i = (y_i - y_{i-1} - s_{i-1}(b_i - z_{i-1})) / (z_i - b_i)``, so the
    solve is O(m) and exact in exact arithmetic.
    """
    if len(z) != len(y):
        raise ValueError(f"{len(z)} points but {len(y)} labels")
    if not z:
        raise ValueError("no points to memorize")
    order = sorted(range(len(z)), key=lambda i: z[i])
    zs = [z[i] for i in order]
    ys = [y[i] for i in order]
    for i in range(1, len(zs)):
        if not zs[i] > zs[i - 1]:
            raise ValueError(
                f"projected points {order[i - 1]} and {order[i]} coincide ({zs[i]}); "
                "the projection must separate every point"
            )
    b = [zs[0] - 1] + [(zs[i - 1] + zs[i]) / 2 for i in range(1, len(zs))]
    slopes = [ys[0] / (zs[0] - b[0])]
    for i in range(1, len(zs)):
        rise = ys[i] - ys[i - 1] - slopes[-1] * (b[i] - zs[i - 1])
        slopes.append(rise / (zs[i] - b[i]))
    w = [slopes[0]] + [slopes[i] - slopes[i - 1] for i in range(1, len(slopes))]
    return ReluInterpolant(b=tuple(b), w=tuple(w))


@dataclass(frozen=True)
class MemorizationResult:
    """The one-layer transformer on a dataset and its exact check.

    ``n_parameters = 4 d`` (``W_K, W_Q, W_V, W_O``, one vector each) ``+ d`` (the FFN's projection
    ``a``) ``+ 2 m`` (biases and output weights, ``m = N n`` points): Zhang et al.'s ``2m + d``.
    """

    n_points: int
    n_correct: int
    max_abs_error: float
    n_parameters: int
    n_attention: int
    n_ffn: int
    feature_digits: int
    ffn_digits: int
    log10_min_feature_gap: float


def memorize(ds, v: np.ndarray, lam: float, digits_needed: int, u: np.ndarray | None = None,
             guard: int = 40) -> MemorizationResult:
    """Build and check the one-layer, single-head, rank-1 transformer memorizing ``ds``.

    ``digits_needed``: decimal digits that resolve the layer's smallest context difference at
    ``lam`` (from ``contextual_mapping.separation_certified``). The features
    ``f = v^T (x_t + alpha c u)`` are computed in ``arb`` with ``digits_needed + guard`` digits and
    certified distinct (adjacent differences of the sorted balls positive); the interpolant is
    solved and evaluated in mpmath with ``2 (digits_needed + guard)`` digits, because its weights
    are about ``1 / gap`` and its evaluation cancels as many digits. A label counts as reproduced
    when the output is within 1/4 of it (it is exact in exact arithmetic).
    """
    from flint import arb, ctx

    from expressivity.contextual_mapping import Rank1Layer, _arb, arb_log10, contexts, values_arb

    layer = Rank1Layer.for_dataset(ds, v, lam, u)
    cx = contexts(ds, v)
    fdig = int(digits_needed) + guard
    C = values_arb(ds, cx, v, lam, fdig)
    old = ctx.prec
    ctx.dps = fdig
    try:
        va = [_arb(x) for x in v]
        vu = sum((a * _arb(x) for a, x in zip(va, layer.u, strict=True)), arb(0))
        z = [sum((a * _arb(x) for a, x in zip(va, row, strict=True)), arb(0)) for row in ds.vocab]
        alpha = _arb(layer.alpha)
        feats = [z[t] + alpha * (c * int(s)) * vu for t, c, s in zip(cx.token, C, cx.sign,
                                                                     strict=True)]
        order = sorted(range(len(feats)), key=lambda i: feats[i].mid())
        gaps = [feats[order[i + 1]] - feats[order[i]] for i in range(len(order) - 1)]
        if gaps and not all(g > 0 for g in gaps):
            raise ValueError(f"features not certified distinct at {fdig} digits; raise digits_needed")
        log10_gap = min(arb_log10(g) for g in gaps) if gaps else math.inf
        ffn_dig = 2 * fdig
        with mpmath.workdps(ffn_dig):
            def to_mp(x):
                m, e = x.mid().man_exp()
                return mpmath.ldexp(mpmath.mpf(int(m)), int(e))

            fm = [to_mp(f) for f in feats]
    finally:
        ctx.prec = old
    labels = [int(y) for y in ds.labels[cx.seq, cx.pos]]
    with mpmath.workdps(ffn_dig):
        net = fit_relu_interpolant(fm, labels)
        out = net.evaluate_many(fm)
        err = [abs(o - y) for o, y in zip(out, labels, strict=True)]
        correct = sum(1 for e in err if e < mpmath.mpf(1) / 4)
        max_err = float(max(err))
    d, m = ds.d, len(fm)
    return MemorizationResult(
        n_points=m, n_correct=correct, max_abs_error=max_err, n_parameters=4 * d + d + 2 * m,
        n_attention=4 * d, n_ffn=d + net.n_weights, feature_digits=fdig, ffn_digits=ffn_dig,
        log10_min_feature_gap=log10_gap)


def loglog_slope(x: Sequence[float], y: Sequence[float]) -> float:
    """Least-squares slope of ``log y`` against ``log x`` (NaN with fewer than two distinct x)."""
    lx, ly = np.log(np.asarray(x, float)), np.log(np.asarray(y, float))
    if len(np.unique(lx)) < 2:
        return math.nan
    return float(np.polyfit(lx, ly, 1)[0])


def parameter_table(df):
    """Parameter counts against ``N`` with reference orders of growth (constants set to 1).

    ``df`` has columns ``d, V, n, N, n_parameters`` (ours: ``4d + d + 2nN``). Adds Kim et al.
    2023's ``d + n + sqrt(nN)`` and the optimal ``sqrt(nN)`` of Kajitsuka & Sato 2025 as orders of
    growth (their constants and log factors are unknown here), and each ``(d, V, n)`` series'
    log-log slope of ours in ``N``.
    """
    out = df[["d", "V", "n", "N", "n_parameters"]].copy()
    out["kim2023_order"] = out["d"] + out["n"] + np.sqrt(out["n"] * out["N"])
    out["optimal_order"] = np.sqrt(out["n"] * out["N"])
    slopes = {key: loglog_slope(g["N"], g["n_parameters"])
              for key, g in out.groupby(["d", "V", "n"], sort=True)}
    out["series_slope"] = [slopes[(d, V, n)] for d, V, n in zip(out["d"], out["V"], out["n"],  # noqa: N806
                                                               strict=True)]
    return out.sort_values(["d", "V", "n", "N"]).reset_index(drop=True)
