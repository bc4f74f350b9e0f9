"""How d_min grows with n: the log model against its alternatives, tested out of sample.

Likhosherstov, Choromanski & Weller 2021 (arXiv 2106.03764; AAAI 2023) state d = O(log n) [V]. Over
a finite range of n a small power n^p or a power of the logarithm fits the same points almost as
well (R^2 does not separate them), so the models are compared on what they PREDICT [D]:

    log        d = a + b ln n            (the paper's rate; JL gives d ~ ln(n^2 / delta))
    power      d = c n^p                 (the alternative d = O(log n) rules out)
    log_power  d = c (ln n)^q            (faster than log for q > 1)

each with two parameters, fitted by least squares in the coordinates where it is a line
(``expressivity.fit.line_fit``: d on ln n; ln d on ln n; ln d on ln ln n) to the LOWER part of the
n range and evaluated on the upper part: relative error pred / median - 1 at every upper n, where
the median is over the trials at that n. Fits use the medians per n (``fit_on="median"``) or every
trial (``"all"``). The spread comes from a bootstrap over trials (resampled within each n, the whole
procedure repeated).

Also here: the local log-log slope between consecutive n (a power law keeps it constant, the log
model makes it fall like 1 / ln n), the crossover n* where a median falls below n with its bootstrap
interval, and what the claims' power simulations draw: series from a fitted model with the measured
spread resampled within each n (``replicates_of``; every function here also takes many series at
once, trials on the last axis), and the drift per unit ln n a factor (ln n)^a adds (``drift``, an
equivalence margin).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np

from expressivity.arguments import finite_array, finite_number, finite_vectors, integer
from expressivity.fit import LineFit, line_fit
from expressivity.slope_tests import lines

#: The equivalence margin of a flat ratio: the relative drift per unit ln n that a factor
#: (ln n)^MARGIN_EXPONENT adds over the series' own n, i.e. d = O(log^(3/2) n) against a reference
#: that grows like ln n: the geometric middle between the paper's O(log n) and O(log^2 n).
MARGIN_EXPONENT = 0.5
#: The measured quantities of a d_min search (columns of a sweep table).
QUANTITIES = ("d_min", "d_stable")


def usable(df, quantity: str):
    """The trials of the sweep table ``df`` whose ``quantity`` is decided (finite and decided in
    float64)."""
    ok = np.isfinite(df[quantity].to_numpy(dtype=float)) & (df["precision"] == "float64")
    return df[ok]

MODELS = ("log", "power", "log_power")
FORMULA = {"log": "a + b ln n", "power": "c n^p", "log_power": "c (ln n)^q"}
FITS_ON = ("median", "all")


def _model(model: str) -> str:
    if model not in MODELS:
        raise ValueError(f"unknown model {model!r}; models are {', '.join(MODELS)}")
    return model


def _above(name: str, values: np.ndarray, low: float) -> np.ndarray:
    """``values``, refused unless every entry exceeds ``low`` (the message shows the first that does
    not)."""
    bad = np.flatnonzero(values <= low)
    if bad.size:
        raise ValueError(f"need {name} > {low:g} at every point, got {name}[{bad[0]}] = "
                         f"{values.flat[bad[0]]}")
    return values


def _increasing(name: str, values: np.ndarray) -> np.ndarray:
    if (np.diff(values) <= 0).any():
        raise ValueError(f"{name} must be increasing, got {values.tolist()}")
    return values


def _x(model: str, n) -> np.ndarray:
    n = np.asarray(n, dtype=float)
    return np.log(np.log(n)) if model == "log_power" else np.log(n)


@dataclass(frozen=True)
class GrowthFit:
    """One model fitted to (n, d): ``fit`` is the straight line in the model's coordinates."""

    model: str
    fit: LineFit

    def predict(self, n) -> np.ndarray:
        return predict(self.model, self.fit.intercept, self.fit.slope, n)


def predict(model: str, intercept: float, slope: float, n) -> np.ndarray:
    """``model``'s d at n (> 1) from its line ``intercept + slope x`` (x = ln n, or ln ln n)."""
    model = _model(model)
    _above("n", finite_array("n", np.atleast_1d(n)), 1)
    intercept, slope = finite_number("intercept", intercept), finite_number("slope", slope)
    y = intercept + slope * _x(model, n)
    return y if model == "log" else np.exp(y)


def fit_growth(model: str, n, d) -> GrowthFit:
    """Fit ``model`` (one of ``MODELS``) to points (n, d): n > 1, d > 0, at least two distinct n."""
    model = _model(model)
    n, d = finite_vectors(n=n, d=d)
    n, d = _above("n", n, 1), _above("d", d, 0)
    if np.unique(n).size < 2:
        raise ValueError(f"n must hold at least two distinct values, got {np.unique(n).tolist()}")
    y = d if model == "log" else np.log(d)
    return GrowthFit(model, line_fit(_x(model, n), y))


def split(n_values) -> tuple[np.ndarray, np.ndarray]:
    """The distinct n, sorted, cut into the lower ceil(m/2) (fitted) and the rest (predicted)."""
    ns = np.unique(np.asarray(n_values))
    if len(ns) < 4:
        raise ValueError(f"an out-of-sample test needs at least 4 distinct n, got {ns.tolist()}")
    cut = math.ceil(len(ns) / 2)
    return ns[:cut], ns[cut:]


def medians(n, d, ns) -> np.ndarray:
    """The median of d over the trials at each n of ``ns`` (each an n of some trial)."""
    (n, d), ns = finite_vectors(n=n, d=d), finite_vectors(ns=ns)[0]
    if not np.isin(ns, n).all():
        raise ValueError(f"ns must be values of n, got {ns[~np.isin(ns, n)][0]:g} (no trial there)")
    return np.array([np.median(d[n == v]) for v in ns])


def out_of_sample_errors(n, D, fit_on: str) -> dict[str, np.ndarray]:
    """Per model: ``(..., upper n)`` relative errors ``pred / median - 1`` at the upper n
    (``split``) of the model fitted to the lower n (medians, or every trial), for every data set
    ``D[..., :]`` (the trials on the last axis, their n in ``n``) at once."""
    if fit_on not in FITS_ON:
        raise ValueError(f"fit_on must be one of {', '.join(FITS_ON)}, got {fit_on!r}")
    n, D = np.asarray(n), np.asarray(D, dtype=float)
    lower, upper = split(n)
    target = np.stack([np.median(D[..., n == v], axis=-1) for v in upper], axis=-1)
    if fit_on == "median":
        x_n, Y = lower.astype(float), np.stack([np.median(D[..., n == v], axis=-1)
                                                for v in lower], axis=-1)
    else:
        keep = n <= lower[-1]
        x_n, Y = n[keep].astype(float), D[..., keep]
    out = {}
    for m in MODELS:
        a, b, _ = lines(_x(m, x_n), Y if m == "log" else np.log(Y))
        pred = a[..., None] + b[..., None] * _x(m, upper)
        out[m] = (pred if m == "log" else np.exp(pred)) / target - 1
    return out


def prediction_errors(n, d, fit_on: str) -> dict[str, np.ndarray]:
    """Per model: the relative errors ``pred / median - 1`` at the upper n (``split``) of the model
    fitted to the lower n (medians, or every trial) of one series."""
    n, d = finite_vectors(n=n, d=d)
    return out_of_sample_errors(n, d, fit_on)


def resamples_of(n, d, rng: np.random.Generator, count: int) -> np.ndarray:
    """``(..., count, len(n))`` bootstrap resamples of the trials ``d[..., :]``, each drawing the
    trials at every n with replacement among themselves (n stays where it is)."""
    n = finite_vectors(n=n)[0]
    d = finite_array("d", d)
    if d.shape[-1] != n.size:
        raise ValueError(f"d must hold one trial per n ({n.size}) on its last axis, got {d.shape}")
    count = integer("count", count, 1)
    lead = d.shape[:-1]
    out = np.empty((*lead, count, d.shape[-1]))
    for v in np.unique(n):
        idx = np.flatnonzero(n == v)
        pick = rng.integers(0, idx.size, size=(*lead, count, idx.size))
        group = np.broadcast_to(d[..., None, idx], pick.shape)
        out[..., idx] = np.take_along_axis(group, pick, axis=-1)
    return out


def bootstrap_errors(n, d, fit_on: str, rng: np.random.Generator,
                     resamples: int) -> dict[str, np.ndarray]:
    """Per model: ``(..., resamples, upper n)`` relative errors of ``out_of_sample_errors`` on
    bootstrap resamples of the trials ``d[..., :]`` (the fits of every resample at once)."""
    resamples = integer("resamples", resamples, 1)
    return out_of_sample_errors(n, resamples_of(n, d, rng, resamples), fit_on)


def replicates_of(model: str, n, d, rng: np.random.Generator, count: int,
                  exponent: float | None = None) -> np.ndarray:
    """``(count, len(n))`` data sets drawn from ``model`` fitted to every trial (n, d): each trial
    the fitted curve at its n times a relative residual ``d / median`` drawn with replacement from
    the trials at the same n. ``exponent`` fixes p (``power``) or q (``log_power``) and fits c
    alone. The same design as the measured series (the same n and trials per n): what a claim's
    test would see if the series followed ``model`` with the measured spread."""
    model = _model(model)
    n, d = finite_vectors(n=n, d=d)
    _above("d", d, 0)
    if exponent is None:
        curve = fit_growth(model, n, d).predict(n)
    elif model == "log":
        raise ValueError("the log model has no exponent to fix")
    else:
        x = _x(model, n)
        curve = np.exp(np.mean(np.log(d) - exponent * x) + exponent * x)
    ns = np.unique(n)
    relative = d / medians(n, d, ns)[np.searchsorted(ns, n)]
    return curve * resamples_of(n, relative, rng, count)


def drift(n, exponent: float) -> float:
    """The relative slope against ln n, over the points ``n``, of ``(ln n)^exponent`` divided by
    its mean: how fast a ratio drifts per unit ln n when a series grows like ``(ln n)^exponent``
    times the reference it is divided by (the margin of an equivalence test of flatness)."""
    n = _above("n", finite_vectors(n=n)[0], 1)
    x = np.log(n)
    y = x**exponent
    return float(lines(x, y / y.mean())[1])


def rms(errors: np.ndarray) -> np.ndarray:
    """Root mean square over the last axis (the upper n)."""
    errors = finite_array("errors", errors)
    return np.sqrt(np.mean(np.square(errors), axis=-1))


def local_slopes(ns, values) -> tuple[np.ndarray, np.ndarray]:
    """Local log-log slopes ``ln(v_{i+1} / v_i) / ln(n_{i+1} / n_i)`` between consecutive n
    (increasing, at least two; n and v positive), placed at the geometric mean of the two n. A power
    law n^p gives p everywhere; a + b ln n gives b / (a + b ln n), which falls like 1 / ln n."""
    ns, values = finite_vectors(2, ns=ns, values=values)
    ns, values = _increasing("ns", _above("ns", ns, 0)), _above("values", values, 0)
    mid = np.sqrt(ns[1:] * ns[:-1])
    return mid, np.diff(np.log(values)) / np.diff(np.log(ns))


def crossover(ns, ratio) -> float:
    """n* where ``ratio`` (a median d / n over increasing n) falls below 1 for good: interpolated
    linearly in (ln n, ln ratio) between the last n with ratio >= 1 and the next; ``ns[0]`` when
    every ratio is below 1 (n* at or below the range), NaN when the last one is not. ``ns``
    increasing and positive, ``ratio`` positive."""
    ns, ratio = finite_vectors(ns=ns, ratio=ratio)
    ns, ratio = _increasing("ns", _above("ns", ns, 0)), _above("ratio", ratio, 0)
    return float(crossovers(ns, ratio))


def crossovers(ns: np.ndarray, ratios: np.ndarray) -> np.ndarray:
    """``crossover`` of every row ``ratios[..., :]`` at once (no argument checks)."""
    x, y = np.log(ns), np.log(ratios)
    above = y >= 0
    last = np.where(above.any(axis=-1), ns.size - 1 - np.argmax(above[..., ::-1], axis=-1), -1)
    i = np.clip(last, 0, ns.size - 2)
    y0 = np.take_along_axis(y, i[..., None], axis=-1)[..., 0]
    y1 = np.take_along_axis(y, (i + 1)[..., None], axis=-1)[..., 0]
    with np.errstate(divide="ignore", invalid="ignore"):
        inside = np.exp(x[i] + (x[i + 1] - x[i]) * y0 / (y0 - y1))
    return np.where(last < 0, ns[0], np.where(above[..., -1], np.nan, inside))


def crossover_interval(n, d, rng: np.random.Generator, resamples: int,
                       level: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(n_star, lo, hi)`` of the series ``d[..., :]`` (trials at ``n``): the crossover of the
    medians and its bootstrap percentile interval at ``level`` over trials resampled within each n
    (``lo`` NaN when no resample crosses, ``hi`` NaN when some does not), each of shape
    ``d.shape[:-1]``."""
    n = finite_vectors(n=n)[0]
    d = finite_array("d", d)
    ns = np.unique(n)
    if ns.size < 2:
        raise ValueError(f"a crossover needs at least two distinct n, got {ns.tolist()}")
    point = crossovers(ns, np.stack([np.median(d[..., n == v], axis=-1) for v in ns], -1) / ns)
    D = resamples_of(n, d, rng, resamples)
    boot = crossovers(ns, np.stack([np.median(D[..., n == v], axis=-1) for v in ns], -1) / ns)
    tail = 100 * (1 - level) / 2
    crossed = np.isfinite(boot)
    with warnings.catch_warnings():  # a series no resample crosses: its lo is NaN, as it should
        warnings.simplefilter("ignore", RuntimeWarning)
        lo, hi = np.nanpercentile(boot, [tail, 100 - tail], axis=-1)
    return point, np.where(crossed.any(axis=-1), lo, np.nan), np.where(
        crossed.all(axis=-1), hi, np.nan)
