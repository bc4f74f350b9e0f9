"""Straight-line fits with their uncertainty: ``y = a + b x`` by least squares.

One helper for every fit the claims and figures quote (a log-log slope, d_min against ln n, an error
against delta), on ``scipy.stats.linregress``: slope and intercept with their standard errors, R^2,
and a confidence interval for the slope from Student's t with ``n - 2`` degrees of freedom.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class LineFit:
    """``y = intercept + slope x`` over ``n`` points."""

    slope: float
    intercept: float
    slope_se: float
    intercept_se: float
    r2: float
    n: int

    def slope_interval(self, level: float = 0.95) -> tuple[float, float]:
        """The two-sided ``level`` confidence interval of the slope (nan when n < 3)."""
        if self.n < 3:
            return (float("nan"), float("nan"))
        from scipy import stats  # here, not at the top: see line_fit

        half = stats.t.ppf(0.5 + level / 2, self.n - 2) * self.slope_se
        return (self.slope - half, self.slope + half)

    def predict(self, x) -> np.ndarray:
        return self.intercept + self.slope * np.asarray(x, dtype=float)


def line_fit(x, y) -> LineFit:
    """Least-squares line through the points ``(x, y)`` (at least two distinct x)."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError(f"line_fit: x and y must be 1-d of one length, got {x.shape} and {y.shape}")
    if not (np.isfinite(x).all() and np.isfinite(y).all()):
        raise ValueError("line_fit: x and y must be finite")
    if len(np.unique(x)) < 2:
        raise ValueError(f"line_fit: needs at least two distinct x, got {np.unique(x).tolist()}")
    # scipy.stats here, not at the top: the workflow imports the claims registry (and so this
    # module) at every start, where a second of imports would be paid by every Snakemake command
    from scipy import stats

    res = stats.linregress(x, y)
    n = len(x)
    se = (float(res.stderr), float(res.intercept_stderr)) if n > 2 else (float("nan"),) * 2
    return LineFit(float(res.slope), float(res.intercept), *se, float(res.rvalue**2), n)


def loglog_fit(x, y) -> LineFit:
    """The line through ``(log x, log y)``: its slope is the exponent of a power law ``y ~ x^b``."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if (x <= 0).any() or (y <= 0).any():
        raise ValueError("loglog_fit: x and y must be positive")
    return line_fit(np.log(x), np.log(y))
