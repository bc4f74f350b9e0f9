"""Kajitsuka & Sato 2024, Corollary 1: a one-layer, single-head, rank-1 transformer that memorizes.

([R]: the corollary's statement is recalled, the assembly below is ours [D].) The rank-1 attention
layer (``expressivity.rank1.layer``) followed by Zhang et al.'s two-layer ReLU network
(``expressivity.relu_interpolant``) reading ``a^T y`` with ``a = v``, i.e. the token id ``v^T x_t``
plus ``alpha (v^T u)`` times the context id ``c``. The features are computed in ball arithmetic at
the digits their separation needs, the interpolant is solved in mpmath at twice that, and every
label is checked.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import mpmath
import numpy as np
from flint import ctx

from expressivity.ball_arithmetic import arb_log10, exact, exact_dot, exact_projections
from expressivity.datasets import TokenDataset
from expressivity.rank1.contexts import contexts, values_arb
from expressivity.rank1.layer import Rank1Layer
from expressivity.relu_interpolant import fit_relu_interpolant


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


def _to_mpf(x):
    """The midpoint of a ball as an ``mpmath.mpf`` (exact: both are binary floating point)."""
    m, e = x.mid().man_exp()
    return mpmath.ldexp(mpmath.mpf(int(m)), int(e))


def memorize(ds: TokenDataset, v: np.ndarray, lam: float, digits_needed: int,
             u: np.ndarray | None = None, guard: int = 40) -> MemorizationResult:
    """Build and check the one-layer, single-head, rank-1 transformer memorizing ``ds``.

    ``digits_needed``: decimal digits that resolve the layer's smallest context difference at
    ``lam`` (from ``expressivity.rank1.separation.separation_certified``). The features
    ``f = v^T (x_t + alpha c u)`` are computed in ``arb`` with ``digits_needed + guard`` digits and
    certified distinct (adjacent differences of the sorted balls positive); the interpolant is
    solved and evaluated in mpmath with ``2 (digits_needed + guard)`` digits, because its weights
    are about ``1 / gap`` and its evaluation cancels as many digits. A label counts as reproduced
    when the output is within 1/4 of it (it is exact in exact arithmetic).
    """
    layer = Rank1Layer.for_dataset(ds, v, lam, u)
    cx = contexts(ds, v)
    fdig = int(digits_needed) + guard
    C = values_arb(ds, cx, v, lam, fdig)
    ffn_dig = 2 * fdig
    with ctx.workdps(fdig):
        vu = exact_dot(v, layer.u)
        z = exact_projections(ds.vocab, v)
        alpha = exact(layer.alpha)
        feats = [z[t] + alpha * (c * int(s)) * vu for t, c, s in zip(cx.token, C, cx.sign,
                                                                     strict=True)]
        order = sorted(range(len(feats)), key=lambda i: feats[i].mid())
        gaps = [feats[order[i + 1]] - feats[order[i]] for i in range(len(order) - 1)]
        if gaps and not all(g > 0 for g in gaps):
            raise ValueError(f"features not certified distinct at {fdig} digits; raise digits_needed")
        log10_gap = min(arb_log10(g) for g in gaps) if gaps else math.inf
        with mpmath.workdps(ffn_dig):
            fm = [_to_mpf(f) for f in feats]
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
