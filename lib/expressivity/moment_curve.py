"""Inputs on the moment curve: the fixed module with d = 2k for every target with at most k
nonzeros per row, when the inputs' norms are not bounded.

Likhosherstov, Choromanski & Weller 2021 (arXiv 2106.03764; AAAI 2023) need d = O(log n) for
bounded inputs [V]; the module and the criterion are our reconstruction [R] (``fixed_module``,
``approximation_check``). This construction is ours [D] (shared/papers/likhosherstov.md, section 7,
observation 1); for k = 1 the circle of ``norm_bounds`` does the same with d = 2.

Row form. Nodes ``t_j = -1 + 2 j / (n - 1)`` (j = 0..n-1), keys on the moment curve
``X2_j = (t_j, t_j^2, ..., t_j^(2k))``. Row i with support S_i (``c = |S_i| <= k``) gets the
polynomial

    f_i(t) = -lam prod_{s in S_i} (t - t_s)^2 + r_i(t),

``r_i`` the polynomial of degree < c with ``r_i(t_s) = log A_is``; its query ``X1_i`` holds the
coefficients of ``t^1 .. t^(2k)`` of f_i (degree 2c <= 2k), so the logits are
``S_ij = X1_i . X2_j = f_i(t_j) - f_i(0)`` (a shift per row, which the criterion ignores).
Condition (1) holds exactly (``S_is - log A_is`` is the same for every s in S_i) and condition (2),
``S_ij <= S_is - gamma`` for j off the support, holds iff lam is at least

    lam* = max_i max_{j not in S_i} (r_i(t_j) - min_s log A_is + gamma) / prod_s (t_j - t_s)^2

(``moment_scale``; gamma = log(1/eps_zero)). Close nodes make the product small: lam* grows like a
power of n (up to n^(2k) when a row's support holds neighbouring nodes), and with it the
coefficients: the logits must resolve gamma against values of size lam*, which float64 cannot
once the norm product nears 1e12 (k = 3 from about n = 200 on, k = 2 near n = 1000, depending on
how close the supports' nodes are). ``moment_check`` therefore builds the inputs in ball arithmetic
(python-flint's ``arb``, exact nodes and values) and decides the criterion on logits certified to
far below its slack, and separately says whether the float64 inputs decide it in float64.
"""

from __future__ import annotations

import math

import numpy as np
from flint import arb, arb_mat, ctx

from expressivity.approximation_check import check_logits, check_tolerances
from expressivity.optimised_inputs import module_logits, rounding_tolerance
from expressivity.sparse_target import SparseTarget

#: Bits of the ball arithmetic (the logits reach about 2^60 at k = 3, n = 1024; 256 bits leave
#: radii below 1e-30 of the criterion's slack).
PREC_BITS = 256


def nodes(n: int) -> np.ndarray:
    """``t_j = -1 + 2 j / (n - 1)``, ``(n,)``."""
    if n < 2:
        raise ValueError(f"n must be >= 2, got {n}")
    return -1 + 2 * np.arange(n) / (n - 1)


def _supports(target: SparseTarget) -> list[np.ndarray]:
    return [target.cols[i, : target.count[i]] for i in range(target.n)]


def moment_scale(target: SparseTarget, eps_zero: float) -> float:
    """``lam*`` of the module docstring, in float64 (the ratios have no cancellation: the nodes'
    differences are exact to a rounding, and a larger lam only adds slack)."""
    if not 0 < eps_zero < 1:
        raise ValueError(f"eps_zero must be in (0, 1), got {eps_zero}")
    t, gamma = nodes(target.n), math.log(1 / eps_zero)
    worst = 0.0
    for i, support in enumerate(_supports(target)):
        ts, y = t[support], np.log(target.vals[i, : target.count[i]])
        prod, r = np.ones(target.n), np.zeros(target.n)
        for a, (ta, ya) in enumerate(zip(ts, y, strict=True)):
            prod *= (t - ta) ** 2
            basis = np.ones(target.n)
            for b, tb in enumerate(ts):
                if b != a:
                    basis *= (t - tb) / (ta - tb)
            r += ya * basis
        off = np.ones(target.n, dtype=bool)
        off[support] = False
        worst = max(worst, float(np.max((r[off] - y.min() + gamma) / prod[off])))
    if not worst > 0:
        raise ValueError("no off-support entry constrains lam: the target has full rows")
    return worst


def _poly_mul(p: list, q: list) -> list:
    out = [arb(0)] * (len(p) + len(q) - 1)
    for a, x in enumerate(p):
        for b, y in enumerate(q):
            out[a + b] = out[a + b] + x * y
    return out


def _row_coefficients(t: list, support, values, lam: arb, degree: int) -> list:
    """Coefficients ``c_0 .. c_degree`` of f_i (balls) for nodes ``t`` (balls)."""
    ts = [t[j] for j in support]
    f = [arb(1)]
    for ta in ts:
        f = _poly_mul(f, [-ta, arb(1)])
        f = _poly_mul(f, [-ta, arb(1)])
    f = [-lam * c for c in f]
    for a, (ta, ya) in enumerate(zip(ts, values, strict=True)):  # Lagrange basis times log A
        basis = [arb(ya)]
        for b, tb in enumerate(ts):
            if b != a:
                basis = _poly_mul(basis, [-tb / (ta - tb), 1 / (ta - tb)])
        for m, c in enumerate(basis):
            f[m] = f[m] + c
    return f + [arb(0)] * (degree + 1 - len(f))


def moment_inputs(target: SparseTarget, lam: float) -> tuple[arb_mat, arb_mat]:
    """``X1: (n, 2k)``, ``X2: (n, 2k)`` as ball matrices at ``PREC_BITS`` (the exact nodes
    ``-1 + 2 j / (n - 1)``, the float64 values of log A and of lam taken exactly)."""
    if not lam > 0:
        raise ValueError(f"lam must be > 0, got {lam}")
    n, d = target.n, 2 * target.k
    with ctx.workprec(PREC_BITS):
        t = [arb(2 * j) / (n - 1) - 1 for j in range(n)]
        X2 = arb_mat(n, d, [t[j] ** m for j in range(n) for m in range(1, d + 1)])
        rows = []
        for i, support in enumerate(_supports(target)):
            values = np.log(target.vals[i, : target.count[i]]).tolist()
            rows += _row_coefficients(t, support, values, arb(lam), d)[1:]
        return arb_mat(n, d, rows), X2


def _shifted_logits(X1: arb_mat, X2: arb_mat, target: SparseTarget) -> tuple[np.ndarray, float]:
    """The logits ``X1 X2^T`` shifted per row by their first support entry, as float64 (rounded
    once), and the largest ball radius before rounding."""
    n = target.n
    with ctx.workprec(PREC_BITS):
        S = X1 * X2.transpose()
        out, radius = np.empty((n, n)), 0.0
        for i in range(n):
            ref = S[i, int(target.cols[i, 0])]
            for j in range(n):
                v = S[i, j] - ref
                out[i, j] = float(v.mid())
                radius = max(radius, float(v.rad()))
    return out, radius


def moment_check(target: SparseTarget, eps_ratio: float, eps_zero: float,
                 margin: float = 1e-3) -> dict:
    """The moment-curve inputs at ``lam = (1 + margin) lam*`` and at ``lam* / 10`` (where (2) must
    fail), decided on certified logits (ball arithmetic, ``_shifted_logits``: the ball radii must
    lie below 1e-6 of the slack, else the row says undecided), and the float64 inputs
    (coefficients rounded to doubles) decided in float64 through the fixed module where their
    slack clears ``optimised_inputs.rounding_tolerance``. ``logit_bound`` is the norm product
    ``max ||X1_i|| max ||X2_j||`` at lam, comparable with a budget Lam."""
    check_tolerances(eps_ratio, eps_zero)
    if not margin > 0:
        raise ValueError(f"margin must be > 0, got {margin}")
    lam_star = moment_scale(target, eps_zero)
    lam = (1 + margin) * lam_star
    out = {"d": 2 * target.k, "scale_min": lam_star, "scale": lam}
    for name, value in (("at_scale", lam), ("at_tenth", lam_star / 10)):
        X1, X2 = moment_inputs(target, value)
        S, radius = _shifted_logits(X1, X2, target)
        chk = check_logits(target, S, eps_ratio, eps_zero)
        slack = float(chk.slack.min())
        out[f"{name}_ok"] = chk.ok if radius < 1e-6 * abs(slack) else math.nan
        out[f"{name}_slack"] = slack
        if name == "at_scale":
            A1 = np.array([[float(X1[i, m].mid()) for m in range(X1.ncols())]
                           for i in range(X1.nrows())])
            A2 = np.array([[float(X2[j, m].mid()) for m in range(X2.ncols())]
                           for j in range(X2.nrows())])
            r_q, r_k = np.linalg.norm(A1, axis=1).max(), np.linalg.norm(A2, axis=1).max()
            f64 = check_logits(target, module_logits(A1, A2), eps_ratio, eps_zero)
            tol = rounding_tolerance(2 * target.k, r_q, r_k)
            out.update(logit_bound=float(r_q * r_k), radius_q=float(r_q), radius_k=float(r_k),
                       float64_slack=float(f64.slack.min()), float64_tolerance=tol,
                       float64_decided=bool(abs(float(f64.slack.min())) > tol),
                       float64_ok=bool(f64.ok and float(f64.slack.min()) > tol))
    return out
