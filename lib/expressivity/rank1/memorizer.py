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

from expressivity.arguments import integer
from expressivity.ball_arithmetic import arb_log10, exact, exact_dot, exact_projections
from expressivity.datasets import TokenDataset
from expressivity.parameter_count import construction_parameters
from expressivity.rank1.contexts import check_lam, contexts, values_arb
from expressivity.rank1.layer import Rank1Layer
from expressivity.relu_interpolant import fit_relu_interpolant


@dataclass(frozen=True)
class MemorizationResult:
    """The one-layer transformer on a dataset at ``lam`` and its exact check.

    Parameter counts from ``expressivity.parameter_count.construction_parameters``: our compact
    count of this assembly, the free numbers it holds, ``4 d`` (``W_K, W_Q, W_V, W_O``, one vector
    each) ``+ d`` (the FFN's projection ``a``) ``+ 2 m`` (a bias and an output weight per hidden
    unit, ``m = N n`` points: Zhang et al.'s ``2m + d``). Written as the dense matrices of a
    Transformer block (``W^(1): m x d``, ``W^(2): d x m``) the same network holds ``O(d n N)``.
    ``log10_max_abs_error``: ``log10`` of the largest ``|output - label|`` (evaluated in mpmath at
    ``ffn_digits``; ``-inf`` when exactly 0), never rounded to float64.
    """

    lam: float
    n_points: int
    n_correct: int
    log10_max_abs_error: float
    n_parameters: int
    n_attention: int
    n_ffn: int
    digits_needed: int
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
    lam = check_lam(lam)
    guard = integer("guard", guard, 0)
    integer("digits_needed", digits_needed, -guard + 10)
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
            fm = [_to_mpf(feats[i]) for i in order]  # increasing: the solve and check are O(m)
    labels = [int(ds.labels[cx.seq[i], cx.pos[i]]) for i in order]
    with mpmath.workdps(ffn_dig):
        net = fit_relu_interpolant(fm, labels)
        out = net.evaluate_many(fm)
        err = max(abs(o - y) for o, y in zip(out, labels, strict=True))
        correct = sum(1 for o, y in zip(out, labels, strict=True) if abs(o - y) < mpmath.mpf(1) / 4)
        log10_err = float(mpmath.log10(err)) if err > 0 else -math.inf
    count = construction_parameters(ds.N, ds.n, ds.d)
    if count["ffn"] != ds.d + net.n_weights:
        raise AssertionError(f"built FFN holds {ds.d + net.n_weights} numbers, counted {count['ffn']}")
    return MemorizationResult(
        lam=lam, n_points=len(fm), n_correct=correct, log10_max_abs_error=log10_err,
        n_parameters=count["total"], n_attention=count["attention"], n_ffn=count["ffn"],
        digits_needed=int(digits_needed), feature_digits=fdig, ffn_digits=ffn_dig,
        log10_min_feature_gap=log10_gap)
