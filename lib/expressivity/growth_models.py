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
model makes it fall like 1 / ln n) and the crossover n* where a median falls below n.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from expressivity.arguments import finite_array, finite_number, finite_vectors, integer
from expressivity.fit import LineFit, line_fit

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


def prediction_errors(n, d, fit_on: str) -> dict[str, np.ndarray]:
    """Per model: the relative errors ``pred / median - 1`` at the upper n (``split``) of the model
    fitted to the lower n (medians, or every trial)."""
    if fit_on not in FITS_ON:
        raise ValueError(f"fit_on must be one of {', '.join(FITS_ON)}, got {fit_on!r}")
    n, d = np.asarray(n), np.asarray(d, dtype=float)
    lower, upper = split(n)
    if fit_on == "median":
        x, y = lower, medians(n, d, lower)
    else:
        keep = n <= lower[-1]
        x, y = n[keep], d[keep]
    target = medians(n, d, upper)
    return {m: fit_growth(m, x, y).predict(upper) / target - 1 for m in MODELS}


def resamples_of(n, d, rng: np.random.Generator, count: int) -> np.ndarray:
    """``(count, len(d))`` bootstrap resamples of d, each drawing the trials at every n with
    replacement among themselves (n stays where it is)."""
    n, d = finite_vectors(n=n, d=d)
    count = integer("count", count, 1)
    out = np.empty((count, d.size))
    for v in np.unique(n):
        idx = np.flatnonzero(n == v)
        out[:, idx] = d[idx[rng.integers(0, idx.size, size=(count, idx.size))]]
    return out


def _lines(x: np.ndarray, Y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Least-squares lines ``Y[b] ~ intercept[b] + slope[b] x`` for every row b: the estimator of
    ``expressivity.fit.line_fit``, vectorised over bootstrap resamples."""
    xc = x - x.mean()
    slope = (Y - Y.mean(axis=1, keepdims=True)) @ xc / (xc @ xc)
    return Y.mean(axis=1) - slope * x.mean(), slope


def bootstrap_errors(n, d, fit_on: str, rng: np.random.Generator,
                     resamples: int) -> dict[str, np.ndarray]:
    """Per model: ``(resamples, upper n)`` relative errors of ``prediction_errors`` on bootstrap
    resamples of the trials (the fits of every resample at once)."""
    resamples = integer("resamples", resamples, 1)
    if fit_on not in FITS_ON:
        raise ValueError(f"fit_on must be one of {', '.join(FITS_ON)}, got {fit_on!r}")
    n, d = np.asarray(n), np.asarray(d, dtype=float)
    lower, upper = split(n)
    D = resamples_of(n, d, rng, resamples)
    target = np.stack([np.median(D[:, n == v], axis=1) for v in upper], axis=1)
    if fit_on == "median":
        x_n, Y = lower.astype(float), np.stack([np.median(D[:, n == v], axis=1)
                                                for v in lower], axis=1)
    else:
        keep = n <= lower[-1]
        x_n, Y = n[keep].astype(float), D[:, keep]
    out = {}
    for m in MODELS:
        a, b = _lines(_x(m, x_n), Y if m == "log" else np.log(Y))
        pred = a[:, None] + b[:, None] * _x(m, upper)[None, :]
        out[m] = (pred if m == "log" else np.exp(pred)) / target - 1
    return out


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
    if ratio[-1] >= 1:
        return math.nan
    above = np.flatnonzero(ratio >= 1)
    if above.size == 0:
        return float(ns[0])
    i = int(above[-1])
    x0, x1 = math.log(ns[i]), math.log(ns[i + 1])
    y0, y1 = math.log(ratio[i]), math.log(ratio[i + 1])
    return float(math.exp(x0 + (x1 - x0) * y0 / (y0 - y1)))
