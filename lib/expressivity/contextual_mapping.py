"""The contextual mapping of Yun et al. 2020a (Lemma 6), measured on a network's outputs.

A contextual mapping ``q`` gives every token of every input a number (its code) such that
(Lemma 6, properties 1-4, on the grid inputs ``G~`` with distinct tokens): the codes of one input
are distinct; two inputs that are not permutations of each other share no code; every code lies in
``[t_l, t_r]``; an input with a repeated token has every code outside it. The networks that compute
it are in ``selective_shift`` (provenance there: our reconstruction of the construction).

Softmax instead of hardmax (Yun et al. 2020a, step 3: ``sigma_H`` is the limit of
``softmax(beta .)``). The value mapping after Lemma 6 reads each token's code; it still works when
every softmax output stays within ``margin`` = half the smallest gap between distinct codes of the
hardmax output (``code_separation``), since a step function with breakpoints at the midpoints then
returns the right value. ``softmax_deviation`` measures the distance and counts the collisions
(entries closer to another code than to their own); ``selective_shift.softmax_beta`` derives an
inverse temperature that keeps it below the margin.
"""

from __future__ import annotations

import math

import numpy as np

from expressivity.arguments import finite_array as _finite_array
from expressivity.selective_shift import ShiftNetwork, check_outputs, input_codes


def contextual_properties(net: ShiftNetwork, digits: np.ndarray, q: np.ndarray) -> dict:
    """Properties 1-4 of Lemma 6 on inputs ``digits: (N, n, d)`` with outputs ``q: (N, n)``.

    ``G~`` = inputs with distinct tokens. 1: entries of ``q(L)`` distinct for ``L in G~``;
    2: entries of ``q(L)``, ``q(L')`` disjoint when ``L, L' in G~`` are not permutations of each
    other (checked with the canonical class = sorted codes), plus permutation equivariance;
    3: ``t_l = min q``, ``t_r = max q`` over ``G~``; 4: every entry of an input with a repeated
    token lies outside ``[t_l, t_r]``. Returns counts of violations and ``t_l``, ``t_r``.
    """
    c = input_codes(net, digits)
    check_outputs(q, c.shape)
    cs = np.sort(c, axis=1)
    distinct = np.all(cs[:, 1:] != cs[:, :-1], axis=1)
    qd, cd = q[distinct], c[distinct]
    qs = np.sort(qd, axis=1)
    p1 = int(np.sum(np.any(qs[:, 1:] == qs[:, :-1], axis=1)))
    # class of an input = its sorted codes; prop 2: no value is shared by two classes.
    cls = [tuple(row) for row in np.sort(cd, axis=1).tolist()]
    owner: dict = {}
    p2 = 0
    for row, k in zip(qd.tolist(), cls, strict=True):
        for v in row:
            prev = owner.setdefault(v, k)
            if prev != k:
                p2 += 1
    # permutation equivariance: q sorted by code equals the class representative's q.
    order = np.argsort(cd, axis=1, kind="stable")
    q_by_code = np.take_along_axis(qd, order, axis=1).tolist()
    rep: dict = {}
    equi = 0
    for row, k in zip(q_by_code, cls, strict=True):
        if rep.setdefault(k, row) != row:
            equi += 1
    if qd.size:
        t_l, t_r = qd.min(), qd.max()
        rest = q[~distinct]
        p4 = int(np.sum(np.any((rest >= t_l) & (rest <= t_r), axis=1))) if rest.size else 0
    else:
        t_l = t_r = None
        p4 = 0
    return {
        "inputs": int(len(q)),
        "inputs_distinct": int(distinct.sum()),
        "inputs_repeated": int((~distinct).sum()),
        "classes": len(rep),
        "prop1_violations": p1,
        "prop2_violations": p2,
        "equivariance_violations": equi,
        "prop3_t_l": t_l,
        "prop3_t_r": t_r,
        "prop4_violations": p4,
    }


def code_separation(q) -> tuple[np.ndarray, float]:
    """The distinct codes of ``q`` (every entry of every input), sorted, and the ``margin``: half
    the smallest gap between two of them (``inf`` for a single code). A value mapping reads a code
    correctly from any output within ``margin`` of it."""
    codes = np.unique(np.asarray(q, dtype=float).ravel())
    if codes.size == 0:
        raise ValueError("q holds no code")
    if not np.isfinite(codes).all():
        raise ValueError("q must hold finite codes, got NaN or an infinity")
    if not np.array_equal(codes, np.unique(np.asarray(q).ravel()).astype(float)):
        raise ValueError("codes are not distinct in float64 (values beyond 2^53)")
    gaps = np.diff(codes)
    return codes, (float(gaps.min()) / 2 if gaps.size else math.inf)


def softmax_deviation(qa: np.ndarray, q, codes: np.ndarray) -> dict:
    """How far softmax outputs ``qa: (N, n)`` lie from the hardmax codes ``q``: the largest
    absolute error, the entries decoded to another code by the nearest-code rule over ``codes``
    (``collided_entries``), and the inputs with at least one such entry (``collided_inputs``).
    A non-finite output counts as an infinite error and a collision."""
    qa = np.asarray(qa, dtype=float)
    qf = np.asarray(q, dtype=float)
    if qa.shape != qf.shape:
        raise ValueError(f"qa has shape {qa.shape}, q has {qf.shape}")
    codes = _finite_array("codes", codes)
    if codes.ndim != 1 or np.any(np.diff(codes) <= 0):
        raise ValueError("codes must be the increasing list of distinct codes (code_separation)")
    finite = np.isfinite(qa)
    err = np.where(finite, np.abs(qa - qf), np.inf)
    pos = np.clip(np.searchsorted(codes, np.where(finite, qa, 0.0)), 1, max(1, len(codes) - 1))
    lo, hi = codes[pos - 1], codes[np.minimum(pos, len(codes) - 1)]
    nearest = np.where(np.abs(qa - lo) <= np.abs(hi - qa), lo, hi)
    wrong = ~finite | (nearest != qf)
    return {"max_abs_error": float(err.max()) if err.size else 0.0,
            "collided_entries": int(wrong.sum()),
            "collided_inputs": int(np.any(wrong, axis=-1).sum())}


def contextual_all_distinct(q) -> int:
    """Number of repeated values among all entries of all inputs (0: a contextual mapping that
    separates every input from every other, as needed with positional encodings)."""
    flat = np.asarray(q).ravel()
    if flat.dtype == object:
        return len(flat) - len(set(flat.tolist()))
    return int(flat.size - np.unique(flat).size)
