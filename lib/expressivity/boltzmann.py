"""Properties of the Boltzmann operator, checked vector by vector with certified decisions.

``boltz(a) = sum_i a_i e^{a_i} / sum_j e^{a_j}`` (Kajitsuka & Sato 2024, Sec. 3; the operator's
role is [V], the properties below are [D] in ``shared/papers/kajitsuka_sato.md`` Sec. 1.2):

1. bounds: ``max(a) - log n <= boltz(a) <= max(a)``, because ``boltz(a) = LSE(a) - H(softmax(a))``;
2. hardmax limit: ``g(beta) = boltz(beta a) / beta = <a, softmax(beta a)>`` is non-decreasing in
   ``beta`` (its derivative is the variance of ``a`` under ``softmax(beta a)``) and, by 1.,
   ``max(a) - log(n) / beta <= g(beta) <= max(a)``, so ``g(beta) -> max(a)``. It is checked at
   ``beta = c / (max(a) - min(a))`` for the configured products ``c``, so the score spread
   ``beta (max - min) = c`` bounds the digits any decision needs (about ``c / ln 10``);
3. appending ``t``: ``boltz(a + [t]) = (S_0 boltz(a) + e^t t) / (S_0 + e^t)``, a convex combination,
   so ``boltz`` moves towards ``t``: ``(boltz(a + [t]) - boltz(a)) sign(t - boltz(a)) > 0``. Checked
   for ``|t - boltz(a)|`` log-uniform in ``[1e-8, 30]``, the regime of the paper's difference lemma;
4. rank-1 attention: with ``W_K = w^T``, ``W_Q = lam w^T``, ``W_V = w^T`` and ``z_j = w^T x_j``, the
   attention value of query ``k`` is ``sum_j softmax_j(lam z_k z) z_j = boltz(lam z_k z) / (lam z_k)``.

Every inequality of 1-3 is decided by a certificate. ``float64``: the float64 margin exceeds the
rounding bound of its computation (``rounding_slack``). Otherwise ``arb-<digits>``: the margin is
recomputed in ball arithmetic (python-flint's ``arb``, ``expressivity.ball_arithmetic``) from the
exact float64 inputs, at ``digits = dps, 2 dps, 4 dps, ...`` until the ball excludes 0 (its sign
is then certain) or is exactly 0 (ties, where every operation is exact: the equality case). A
margin of a vector whose scores ``beta a`` spread over ``s`` nats can be as small as about ``e^{-s}``
relative to ``max|a|``, so the ladder goes on to at least twice ``dps + s / ln 10`` digits. The
row's ``precision`` names the certificate of its hardest decision; a margin that no precision
decides is recorded as undecided (NaN), never as a pass or a failure.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
from flint import arb, ctx

from expressivity.arguments import integer
from expressivity.attention import Head, attention_weights, boltz
from expressivity.ball_arithmetic import exact

EPS = np.finfo(float).eps



def rounding_slack(a: np.ndarray) -> float:
    """A bound on the float64 error of ``boltz(a)``: ``16 n eps (max|a| + log n + 1)`` (for rows
    ``a: (m, n)``, the largest of the rows' bounds).

    ``softmax`` carries a relative error of order ``n eps`` (the shifted exponent ``a_i - max a``
    is rounded, but a weight ``e^{-x}`` with an error ``x eps`` contributes at most ``eps / e``),
    and the weighted sum adds ``n eps max|a|``; the factor 16 covers the constants.
    """
    n = a.shape[-1]
    return 16 * n * EPS * (float(np.max(np.abs(a))) + math.log(n) + 1)


def boltz_ball(a: Sequence[float], beta: float = 1.0) -> arb:
    """``g(beta) = <a, softmax(beta a)> = boltz(beta a) / beta`` as a ball at the working precision.

    ``sum_i a_i e^{beta (a_i - max a)} / sum_j e^{beta (a_j - max a)}`` from the exact doubles
    ``a_i`` and ``beta``; with equal entries every operation is exact (``e^0 = 1``), so the
    equality cases of properties 1 and 2 give exact zeros."""
    vals = [exact(x) for x in a]
    top, b = exact(max(a)), exact(beta)
    weights = [(b * (x - top)).exp() for x in vals]
    return sum((x * w for x, w in zip(vals, weights, strict=True)), arb(0)) / sum(weights, arb(0))


def ball_value(x: arb) -> float:
    """The midpoint of ``x`` as a float, keeping the sign of a certified nonzero value too small
    for float64 (``+-`` the smallest normal double instead of 0)."""
    f = float(x.mid())
    if f == 0 and not x.is_zero():
        return np.finfo(float).tiny if x > 0 else -np.finfo(float).tiny
    return f


def _precision_digits(precision: str) -> int:
    """Digits of a precision label (``float64`` counts as 16)."""
    return 16 if precision == "float64" else int(precision.split("-")[1])


def precision_ladder(dps: int, spread: float) -> list[int]:
    """Digits tried in turn: ``dps, 2 dps, 4 dps, ...``, the last the first at or above
    ``max(8 dps, 2 (dps + spread / ln 10))`` (``spread``: the score spread in nats)."""
    limit = max(8 * dps, 2 * (dps + spread / math.log(10)))
    ladder = [dps]
    while ladder[-1] < limit:
        ladder.append(2 * ladder[-1])
    return ladder


def decide(margin: float, slack: float, ball: Callable[[], arb], dps: int,
           spread: float) -> tuple[float, str]:
    """``(margin, certificate)`` of one inequality ``margin >= 0``.

    ``float64`` when ``|margin| > slack`` (the rounding bound of its computation). Otherwise
    ``ball()`` is evaluated at the digits of ``precision_ladder(dps, spread)`` until the ball
    excludes 0 or is exactly 0; the certificate is ``arb-<digits>``. ``(nan, "undecided")`` when no
    precision decides."""
    if abs(margin) > slack:
        return margin, "float64"
    for digits in precision_ladder(dps, spread):
        with ctx.workdps(digits):
            value = ball()
            if value > 0 or value < 0 or (value.is_exact() and value.is_zero()):
                return ball_value(value), f"arb-{digits}"
    return math.nan, "undecided"


def _check_inputs(a: np.ndarray, spreads: np.ndarray, dps: int) -> tuple[np.ndarray, np.ndarray]:
    a = np.asarray(a, dtype=float)
    if a.ndim != 1 or a.size < 1 or not np.all(np.isfinite(a)):
        raise ValueError(f"a must be a non-empty finite vector, got shape {a.shape}")
    spreads = np.asarray(spreads, dtype=float)
    if spreads.ndim != 1 or spreads.size < 1 or not (np.all(np.isfinite(spreads))
                                                     and np.all(spreads > 0)):
        raise ValueError(f"spreads must be positive finite numbers, got {spreads.tolist()}")
    if np.any(np.diff(spreads) <= 0):
        raise ValueError(f"spreads must be strictly increasing, got {spreads.tolist()}")
    integer("dps", dps, 1)
    return a, spreads


def check_vector(
    rng: np.random.Generator, a: np.ndarray, spreads: np.ndarray, dps: int
) -> dict[str, object]:
    """Check properties 1-4 on ``a``; returns one row with the worst margin of each property.

    ``spreads`` are the increasing products ``c = beta (max(a) - min(a))`` at which property 2 is
    checked; ``dps`` the digits of the first ball-arithmetic attempt. A margin is >= 0 when the
    property holds (the append margin > 0); ``precision`` is the certificate of the hardest
    decision (``float64``, ``arb-<digits>`` or ``undecided``).
    """
    a, spreads = _check_inputs(a, spreads, dps)
    n = a.size
    top = float(a.max())
    width = float(top - a.min()) or 1.0
    betas = spreads / width
    slack = rounding_slack(a)
    used = {"float64"}

    # 1. bounds
    b = float(boltz(a))
    upper, p = decide(top - b, slack, lambda: exact(top) - boltz_ball(a), dps, width)
    used.add(p)
    lower, p = decide(b - (top - math.log(n)), slack,
                      lambda: boltz_ball(a) - exact(top) + arb(n).log(), dps, width)
    used.add(p)

    # 2. hardmax limit: g(beta) within log(n)/beta below the maximum, and non-decreasing
    g = [float(boltz(beta * a)) / beta for beta in betas]
    margins = []
    for i, beta in enumerate(betas):
        tol = rounding_slack(beta * a) / beta
        spread = float(spreads[i])
        margins.append(decide(top - g[i], tol, lambda beta=beta: exact(top) - boltz_ball(a, beta),
                              dps, spread))
        margins.append(decide(
            g[i] - top + math.log(n) / beta, tol,
            lambda beta=beta: boltz_ball(a, beta) - exact(top) + arb(n).log() / exact(beta), dps,
            spread))
        if i:
            lo = betas[i - 1]
            tol = max(tol, rounding_slack(lo * a) / lo)
            margins.append(decide(g[i] - g[i - 1], tol,
                                  lambda lo=lo, hi=beta: boltz_ball(a, hi) - boltz_ball(a, lo), dps,
                                  spread))
    used.update(p for _, p in margins)
    limit_margin = float(np.min([m for m, _ in margins]))  # nan when any margin is undecided

    # 3. appending t moves boltz towards t
    t = b + rng.choice([-1.0, 1.0]) * 10 ** rng.uniform(-8, math.log10(30))
    longer = np.append(a, t)
    spread = float(longer.max() - longer.min())
    rise, p_rise = decide(float(boltz(longer)) - b, 2 * rounding_slack(longer),
                          lambda: boltz_ball(longer) - boltz_ball(a), dps, spread)
    below, p_below = decide(t - b, 2 * slack, lambda: exact(t) - boltz_ball(a), dps, spread)
    used.update((p_rise, p_below))
    append_margin = rise * math.copysign(1.0, below) if below == below else math.nan

    # 4. rank-1 attention value equals boltz(lam z_k z) / (lam z_k)
    d = int(rng.integers(1, 5))
    X = rng.standard_normal((n, d))
    w = rng.standard_normal((d, 1))
    lam = float(10 ** rng.uniform(-2, 1))
    head = Head(W_Q=lam * w, W_K=w, W_V=w, W_O=np.ones((1, d)))
    z = (X @ w)[:, 0]
    value = attention_weights(head.scores(X), "softmax") @ z
    scores = (lam * z)[:, None] * z[None, :]  # row k: lam z_k z
    direct = boltz(scores)
    rank1_err = float(np.max(np.abs(lam * z * value - direct)))
    rank1_tol = float(rounding_slack(scores))

    return {
        "n": n,
        "scale": float(np.max(np.abs(a))),
        "upper_margin": upper,
        "lower_margin": lower,
        "limit_margin": limit_margin,
        "append_margin": append_margin,
        "rank1_abs_error": rank1_err,
        "rank1_tolerance": rank1_tol,
        "precision": "undecided" if "undecided" in used else max(used, key=_precision_digits),
    }
