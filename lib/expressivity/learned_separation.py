"""The separation a trained rank-1 layer reaches: the smallest gap between a token's context ids.

A tied rank-1 layer (``W_Q = W_K = W_V = w^T``, temperature ``lam``) gives query token ``t`` of a
sequence with token set ``S`` the context id ``c = sign(z_t) C(lam |z_t|, w_S)`` with ``z = vocab w``
(``expressivity.rank1.contexts``: softmax; hardmax gives ``C = max``, uniform attention the mean).
Kajitsuka & Sato 2024, Theorem 2, make these ids ``delta``-separated for every token across the
token sets it occurs in; Reviewer 1 asked how the FFN's size depends on that ``delta``
(notes ``kajitsuka_sato.md`` Sec. 8, item 2). ``learned_separation`` measures it on trained weights:

    delta_learned = min over tokens t, over sets S != S' containing t, of |c(t, S) - c(t, S')|

in units of the projection ``z`` (exhaustive: per token, the ids of its distinct sets sorted, the
adjacent differences). Evaluated in float64: a softmax gap of exactly 0 between different sets means
the softmax collapsed to hardmax in float64 (reported as such, ``collapsed``), while hardmax and
uniform attention can tie exactly (a true 0).
"""

from __future__ import annotations

import math

import numpy as np

from expressivity.datasets import TokenDataset
from expressivity.rank1.contexts import contexts, values_float

#: The attention normalisers the context id is defined for.
NORMALISERS = ("softmax", "hardmax", "uniform")


def context_ids(ds: TokenDataset, w: np.ndarray, lam: float, sigma: str) -> tuple:
    """``(token, set key, C)`` of every context of ``ds`` under ``w`` (``(d,)``) and ``lam``."""
    if sigma not in NORMALISERS:
        raise ValueError(f"sigma must be one of {NORMALISERS}, got {sigma!r}")
    cx = contexts(ds, w)
    if sigma == "hardmax":
        values = cx.w[:, 0].copy()
    else:
        values = values_float(cx, 0.0 if sigma == "uniform" else lam)
    return cx.token, cx.members, values


def learned_separation(ds: TokenDataset, w: np.ndarray, lam: float, sigma: str) -> dict:
    """``{"separation", "separation_log10", "collapsed"}``: the smallest gap between context ids
    of one token in different token sets (module docstring); ``inf`` (log10 ``inf``) when no token
    occurs in two sets; ``collapsed`` when a softmax gap rounds to 0 in float64."""
    token, members, values = context_ids(ds, w, lam, sigma)
    best = math.inf
    for t in np.unique(token):
        rows = np.flatnonzero(token == t)
        _, first = np.unique(members[rows], axis=0, return_index=True)
        ids = np.sort(values[rows[first]])
        if ids.size > 1:
            best = min(best, float(np.diff(ids).min()))
    collapsed = sigma == "softmax" and best == 0.0
    log10 = math.log10(best) if best > 0 else -math.inf
    return {"separation": best, "separation_log10": log10, "collapsed": collapsed}
