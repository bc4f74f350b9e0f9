"""Properties of the Boltzmann operator, checked vector by vector with honest rounding.

``boltz(a) = sum_i a_i e^{a_i} / sum_j e^{a_j}`` (Kajitsuka & Sato 2024, Sec. 3; the operator's
role is [V], the properties below are [D] in ``shared/papers/kajitsuka_sato.md`` Sec. 1.2):

1. bounds: ``max(a) - log n <= boltz(a) <= max(a)``, because ``boltz(a) = LSE(a) - H(softmax(a))``;
2. hardmax limit: ``g(beta) = boltz(beta a) / beta = <a, softmax(beta a)>`` is non-decreasing in
   ``beta`` (its derivative is the variance of ``a`` under ``softmax(beta a)``) and, by 1.,
   ``max(a) - log(n) / beta <= g(beta) <= max(a)``, so ``g(beta) -> max(a)``. It is checked at
   ``beta = c / (max(a) - min(a))`` for the configured products ``c``, so the score spread
   ``beta (max - min) = c`` bounds the digits any decision needs (about ``c / ln 10``);
3. appending ``t``: ``boltz(a + [t]) = (S_0 boltz(a) + e^t t) / (S_0 + e^t)``, a convex combination,
   so ``boltz`` decreases exactly when ``t < boltz(a)``. Checked for ``|t - boltz(a)|`` log-uniform in
   ``[1e-8, 30]``, the regime of the paper's difference lemma, where the change is at least about
   ``e^{-35}`` relative and a few dozen digits decide it;
4. rank-1 attention: with ``W_K = w^T``, ``W_Q = lam w^T``, ``W_V = w^T`` and ``z_j = w^T x_j``, the
   attention value of query ``k`` is ``sum_j softmax_j(lam z_k z) z_j = boltz(lam z_k z) / (lam z_k)``.

Every inequality is decided from a float64 margin when the margin exceeds a rounding slack; inside
the slack the quantity is recomputed in mpmath, at rising precision until the margin exceeds the
slack at that precision, and the row records the precision used. A margin neither float64 nor
mpmath resolves is recorded as undecided, never as a pass or a failure.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import mpmath
import numpy as np

from expressivity.attention import Head, attention_weights, boltz, boltz_mp

EPS = np.finfo(float).eps


def rounding_slack(a: np.ndarray) -> float:
    """A bound on the float64 error of ``boltz(a)``: ``16 n eps (max|a| + log n + 1)``.

    ``softmax`` carries a relative error of order ``n eps`` and the weighted sum adds
    ``n eps max|a|``; the factor 16 covers the constants.
    """
    n = a.size
    return 16 * n * EPS * (float(np.max(np.abs(a))) + math.log(n) + 1)


def signed_float(x: mpmath.mpf) -> float:
    """``float(x)``, except that a negative ``x`` too small for float64 stays negative."""
    f = float(x)
    return -np.finfo(float).tiny if x < 0 and f == 0 else f


#: Precisions tried in turn, as multiples of the configured digits, before a margin is undecided.
ESCALATION = (1, 2, 4, 8)


def decide(
    margin: float, slack: float, exact: Callable[[int], mpmath.mpf], dps: int
) -> tuple[float, str]:
    """``(margin, precision)``: the float64 margin if ``|margin| > slack``; otherwise the margin
    recomputed by ``exact(digits)`` in mpmath, with ``digits = dps, 2 dps, 4 dps, 8 dps`` until it
    exceeds the same slack scaled to that precision (``slack * 10^(1 - digits) / eps``). An exact
    zero (ties: every operation exact) is the equality case and decides. A margin no precision
    resolves is ``(nan, "undecided")``, never a pass or a failure."""
    if abs(margin) > slack:
        return margin, "float64"
    for digits in (factor * dps for factor in ESCALATION):
        value = exact(digits)
        if value == 0 or abs(value) > slack * 10.0 ** (1 - digits) / EPS:
            return signed_float(value), f"mpmath-{digits}"
    return math.nan, "undecided"


def _digits(precision: str) -> int:
    """Digits of a precision label ("float64" counts as 16)."""
    return 16 if precision == "float64" else int(precision.split("-")[1])


def check_vector(
    rng: np.random.Generator, a: np.ndarray, spreads: np.ndarray, dps: int
) -> dict[str, object]:
    """Check properties 1-4 on ``a``; returns one row with the worst margin of each property.

    ``spreads`` are the products ``c = beta (max(a) - min(a))`` at which property 2 is checked.
    A margin is >= 0 when the property holds; ``precision`` is the highest precision any decision
    needed.
    """
    n = a.size
    top = float(a.max())
    width = float(top - a.min()) or 1.0
    betas = np.asarray(spreads, dtype=float) / width
    slack = rounding_slack(a)
    used = {"float64"}

    def mp(x: float) -> mpmath.mpf:
        return mpmath.mpf(float(x))

    # 1. bounds
    b = float(boltz(a))
    upper, p = decide(top - b, slack, lambda digits: mp(top) - boltz_mp(a, digits), dps)
    used.add(p)
    lower, p = decide(
        b - (top - math.log(n)), slack,
        lambda digits: boltz_mp(a, digits) - mp(top) + mpmath.log(n), dps,
    )
    used.add(p)

    # 2. hardmax limit: g(beta) within log(n)/beta below the maximum, and non-decreasing
    def g_mp(beta: float, digits: int) -> mpmath.mpf:
        with mpmath.workdps(digits):  # scale in mpmath: float64 products beta * a_i would round
            return boltz_mp([mp(beta) * mp(x) for x in a], digits) / mp(beta)

    g = [float(boltz(beta * a)) / beta for beta in betas]
    margins = []
    for i, beta in enumerate(betas):
        tol = rounding_slack(beta * a) / beta
        margins.append(decide(top - g[i], tol, lambda k, beta=beta: mp(top) - g_mp(beta, k), dps))
        margins.append(decide(
            g[i] - top + math.log(n) / beta, tol,
            lambda k, beta=beta: g_mp(beta, k) - mp(top) + mpmath.log(n) / beta, dps,
        ))
        if i:
            lo = betas[i - 1]
            tol = max(tol, rounding_slack(lo * a) / lo)
            margins.append(decide(g[i] - g[i - 1], tol,
                                  lambda k, lo=lo, hi=beta: g_mp(hi, k) - g_mp(lo, k), dps))
    used.update(p for _, p in margins)
    limit_margin = float(np.min([m for m, _ in margins]))  # nan when any margin is undecided

    # 3. appending t lowers boltz exactly when t < boltz(a)
    t = b + rng.choice([-1.0, 1.0]) * 10 ** rng.uniform(-8, math.log10(30))
    rise = float(boltz(np.append(a, t))) - b
    below = t - b
    if abs(rise) <= 2 * slack or abs(below) <= 2 * slack:
        with mpmath.workdps(dps):
            rise = signed_float(boltz_mp(np.append(a, t), dps) - boltz_mp(a, dps))
            below = signed_float(mp(t) - boltz_mp(a, dps))
        used.add(f"mpmath-{dps}")
    append_ok = np.sign(rise) == np.sign(below)

    # 4. rank-1 attention value equals boltz(lam z_k z) / (lam z_k)
    d = int(rng.integers(1, 5))
    X = rng.standard_normal((n, d))
    w = rng.standard_normal((d, 1))
    lam = float(10 ** rng.uniform(-2, 1))
    head = Head(W_Q=lam * w, W_K=w, W_V=w, W_O=np.ones((1, d)))
    z = (X @ w)[:, 0]
    value = attention_weights(head.scores(X), "softmax") @ z
    direct = np.array([boltz(lam * zk * z) for zk in z])
    rank1_err = float(np.max(np.abs(lam * z * value - direct)))
    rank1_tol = max(rounding_slack(lam * zk * z) for zk in z)

    return {
        "n": n,
        "scale": float(np.max(np.abs(a))),
        "upper_margin": upper,
        "lower_margin": lower,
        "limit_margin": limit_margin,
        "append_ok": bool(append_ok),
        "rank1_abs_error": rank1_err,
        "rank1_tolerance": rank1_tol,
        "precision": "undecided" if "undecided" in used else max(used, key=_digits),
    }
