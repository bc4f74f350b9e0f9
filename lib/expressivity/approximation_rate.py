"""The rate at which the constructed Transformers' ``L^p`` error falls with the grid spacing.

Yun et al. (2020a), Proposition 4 (recalled [M]; shared/papers/yun_fang.md 1.4), for the routes of
``expressivity.universal``. On the cells of grid inputs with distinct tokens every route returns
``f_bar`` (``f`` at the cube centre), whose error is ``O(delta)`` for a Lipschitz ``f``. Yun et
al.'s equivariant route maps the inputs with two tokens in one grid cell to 0; they fill the
measure

    P_rep(delta) = 1 - prod_{i=1}^{n-1} (1 - i delta^d)  ~  C(n, 2) delta^d      (repeated_measure)

so that

    L^p error ~ C_1 delta + C_2 (n^2 delta^d)^(1/p),   log-log slope min(1, d/p) as delta -> 0

(``derived_slope``): 1 (``L^1``) and 1/2 (``L^2``) for ``d = 1``; 1 for both at ``d = 2``.
Kajitsuka & Sato's route memorizes the repeated-token inputs too and the positional route has
none (positions make the tokens distinct), so both have slope 1. While ``P_rep`` is not small
the error saturates at ``||f||_p`` and the slope is lower: the fit for the rate uses the
``delta`` with ``C(n, 2) delta^d <= 1/4`` (``in_asymptotic_range``; there the next term of
``P_rep`` is below 10% of the leading one for ``n <= 4``).

Before the limit, Yun et al.'s error is the two-term mixture ``L_p^p = (1 - P_rep) A^p + P_rep
B^p`` (``two_term_error``), with ``A`` the ``L^p`` error of ``f_bar`` on distinct-token inputs
(``~ delta``) and ``B`` the ``L^p`` norm of ``f`` on repeated-token inputs (the route returns 0
there; ``B`` tends to a constant). Its log-log slope is a weighted mean of the two terms' slopes and
tends to ``min(1, d/p)``; at ``d > p`` the exceptional term falls faster and the slope approaches 1
from above; at ``d < p`` from the other side. ``A`` and ``B`` are the target's own: measured on the
sample without running any route, they give the slope the model predicts at the deltas of a fit,
weights included. The other routes return ``f_bar`` on every cell, so their model is ``f_bar``'s
error itself, whose slope is 1 only in the limit (the target's curvature bends it before).

``slope_verdict`` fits the slope (``expressivity.fit.loglog_fit``) with a confidence interval and
says whether it supports the derived slope, or before the limit the model's, against the
alternatives (``alternative_slopes``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from expressivity.arguments import finite_number, finite_vectors, integer

#: The routes: Yun et al.'s equivariant one, Kajitsuka & Sato's three layers, Yun et al.'s with
#: positional encoding under dense attention and under the sparse patterns of Yun et al. 2020b
#: (``yun_sparse_<pattern>``, the same rate as the positional route).
SPARSE_ROUTES = ("yun_sparse_star", "yun_sparse_strided")
ROUTES = ("yun", "kajitsuka_sato", "yun_positional", *SPARSE_ROUTES)
#: Largest leading term ``C(n, 2) delta^d`` of the repeated-token measure in the asymptotic range.
ASYMPTOTIC_MEASURE = 0.25
#: Fewest ``delta`` in the asymptotic range for a slope with an interval (two degrees of freedom).
MIN_FIT_POINTS = 4


def check_route(route: str) -> str:
    if route not in ROUTES:
        raise ValueError(f"unknown route {route!r}; routes: {', '.join(ROUTES)}")
    return route


def _delta(delta) -> float:
    """``delta`` as a float grid spacing in (0, 1]."""
    value = finite_number("delta", delta)
    if not 0 < value <= 1:
        raise ValueError(f"delta must lie in (0, 1], got {value!r}")
    return value


def repeated_measure(delta: float, n: int, d: int) -> float:
    """``P_rep = 1 - prod_{i=1}^{n-1} (1 - i delta^d)``: the probability that a uniform input of
    ``[0, 1)^{n x d}`` has two tokens in one grid cell (``1`` once ``n > delta^-d``)."""
    n, d, delta = integer("n", n, 1), integer("d", d, 1), _delta(delta)
    cell = delta ** d
    return 1.0 - math.prod(max(0.0, 1.0 - i * cell) for i in range(1, n))


def two_term_error(delta, distinct, repeated, n: int, d: int, p: int) -> np.ndarray:
    """The two-term model of Yun et al.'s ``L^p`` error at each ``delta``: ``((1 - P_rep) A^p +
    P_rep B^p)^(1/p)``, ``A = distinct`` (``f_bar``'s error on distinct-token inputs), ``B =
    repeated`` (``f``'s norm on repeated-token inputs; NaN where a sample had none gives NaN)."""
    n, d, p = integer("n", n, 1), integer("d", d, 1), integer("p", p, 1)
    deltas = [_delta(x) for x in np.atleast_1d(delta).tolist()]
    A, B = np.asarray(distinct, dtype=float), np.asarray(repeated, dtype=float)
    if A.shape != (len(deltas),) or B.shape != A.shape:
        raise ValueError(f"distinct and repeated must hold one value per delta ({len(deltas)}), "
                         f"got {A.shape} and {B.shape}")
    P = np.array([repeated_measure(x, n, d) for x in deltas])
    return ((1 - P) * A**p + P * B**p) ** (1 / p)


def in_asymptotic_range(delta: float, n: int, d: int) -> bool:
    """Whether ``C(n, 2) delta^d <= ASYMPTOTIC_MEASURE`` (module docstring)."""
    delta, n, d = _delta(delta), integer("n", n, 1), integer("d", d, 1)
    return math.comb(n, 2) * delta ** d <= ASYMPTOTIC_MEASURE


def derived_slope(route: str, d: int, p: int) -> float:
    """The log-log slope of the ``L^p`` error against ``delta`` as ``delta -> 0``:
    ``min(1, d/p)`` for Yun et al.'s equivariant route, 1 for the others."""
    check_route(route)
    d, p = integer("d", d, 1), integer("p", p, 1)
    return min(1.0, d / p) if route == "yun" else 1.0


def alternative_slopes(route: str, d: int, p: int) -> list[float]:
    """The slopes the data must rule out to support ``derived_slope``: for Yun et al.'s route, no
    exceptional set (1) and an exceptional set of measure ``~ delta`` rather than ``delta^d``
    (``min(1, 1/p)``); for the others, Yun et al.'s rate ``min(1, d/p)`` (as if the
    repeated-token inputs were lost). Slopes equal to the derived one are left out."""
    s = derived_slope(route, d, p)
    alts = {1.0, min(1.0, 1 / p)} if route == "yun" else {min(1.0, d / p)}
    return sorted(a for a in alts if a != s)


@dataclass(frozen=True)
class SlopeVerdict:
    """A fitted rate against the derived one.

    ``verdict``: ``"consistent"`` (the derived slope lies in the interval), ``"pre-asymptotic"``
    (it does not, but the interval meets ``band``, the interval of the model's slope over the
    fitted ``delta``: the slope the model predicts before the limit) or ``"inconsistent"``;
    ``decisive``: the interval excludes every alternative slope (``None`` when there is none to
    exclude)."""

    slope: float
    slope_se: float
    low: float
    high: float
    points: int
    derived: float
    band: tuple[float, float]
    alternatives: tuple[float, ...]
    verdict: str
    decisive: bool | None


def model_slope(delta, model, level: float) -> tuple[float, float]:
    """The ``level`` interval of the model's log-log slope over ``delta`` (its finite positive
    values; ``(nan, nan)`` with fewer than three)."""
    from expressivity.fit import loglog_fit

    delta, model = np.asarray(delta, dtype=float), np.asarray(model, dtype=float)
    ok = np.isfinite(model) & (model > 0)
    if ok.sum() < 3:
        return math.nan, math.nan
    return loglog_fit(delta[ok], model[ok]).slope_interval(level)


def slope_verdict(delta, error, model, *, route: str, n: int, d: int, p: int,
                  level: float = 0.95) -> SlopeVerdict | None:
    """Fit ``log error`` against ``log delta`` over the asymptotic range (``None`` with fewer than
    ``MIN_FIT_POINTS`` points there) and judge the slope against ``derived_slope`` with its ``level``
    interval (Student's t on ``points - 2`` degrees of freedom), and against ``model_slope`` of the
    route's model at the same deltas (``two_term_error`` for Yun et al.'s route, ``f_bar``'s error
    for the others)."""
    # scipy (through expressivity.fit) is imported on use: the compute jobs that import this module
    # for repeated_measure then start a second faster
    from expressivity.fit import loglog_fit

    delta, error = np.asarray(delta, dtype=float), np.asarray(error, dtype=float)
    model = np.asarray(model, dtype=float)
    if delta.shape != error.shape or delta.shape != model.shape or delta.ndim != 1:
        raise ValueError(f"delta, error and model must be 1-d of one length, got {delta.shape}, "
                         f"{error.shape} and {model.shape}")
    if not 0 < level < 1:
        raise ValueError(f"level must lie in (0, 1), got {level!r}")
    keep = np.array([in_asymptotic_range(x, n, d) for x in delta], dtype=bool)
    if keep.sum() < MIN_FIT_POINTS:
        return None
    fit = loglog_fit(delta[keep], error[keep])
    low, high = fit.slope_interval(level)
    s = derived_slope(route, d, p)
    band = model_slope(delta[keep], model[keep], level)
    alts = tuple(alternative_slopes(route, d, p))
    if low <= s <= high:
        verdict = "consistent"
    elif low <= band[1] and high >= band[0]:
        verdict = "pre-asymptotic"
    else:
        verdict = "inconsistent"
    decisive = None if not alts else all(not low <= a <= high for a in alts)
    return SlopeVerdict(fit.slope, fit.slope_se, low, high, int(keep.sum()), s, band, alts,
                        verdict, decisive)


def slope_verdicts(series: dict, family_level: float = 0.95) -> tuple[dict, float]:
    """``slope_verdict`` for every series ``key -> (delta, error, model, route, n, d, p)`` with
    positive errors and ``MIN_FIT_POINTS`` deltas in the asymptotic range, each interval at the
    Bonferroni level ``1 - (1 - family_level) / k`` for ``k`` such series. Returns the verdicts and
    the level."""
    usable = {}
    for key, (delta, error, model, route, n, d, p) in series.items():
        delta, error = np.asarray(delta, dtype=float), np.asarray(error, dtype=float)
        if np.all(error > 0) and sum(in_asymptotic_range(x, n, d) for x in delta) \
                >= MIN_FIT_POINTS:
            usable[key] = (delta, error, model, route, n, d, p)
    level = 1 - (1 - family_level) / max(1, len(usable))
    return {key: slope_verdict(delta, error, model, route=route, n=n, d=d, p=p, level=level)
            for key, (delta, error, model, route, n, d, p) in usable.items()}, level


def decrease_p_value(error, se) -> float:
    """One-sided p-value of "no decrease" between the largest and the smallest ``delta`` of a
    series (``error``, ``se`` ordered by increasing ``delta``), from independent Monte-Carlo
    standard errors: ``z = (error_coarse - error_fine) / hypot(se_coarse, se_fine)``."""
    from scipy import stats  # imported on use, as in slope_verdict

    error, se = finite_vectors(2, error=error, se=se)
    if (se < 0).any():
        raise ValueError(f"se must be >= 0, got {se.tolist()}")
    diff, scale = error[-1] - error[0], math.hypot(se[-1], se[0])
    if scale == 0:
        return 0.0 if diff > 0 else 1.0
    return float(stats.norm.sf(diff / scale))
