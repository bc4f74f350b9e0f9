"""Tests on fitted slopes, vectorised over replicates (the power simulations run hundreds at once).

* ``lines``: least-squares lines ``Y[..., :] ~ a + b x`` of many series at once, with the standard
  error of b: the estimator of ``expressivity.fit.line_fit`` (Student's t on ``points - 2``
  degrees of freedom), over the last axis.
* ``equivalence``: the two one-sided tests (TOST, Schuirmann 1987) that a slope lies within
  ``(-margin, margin)``, with a three-way verdict: ``EQUIVALENT`` when the ``1 - 2 alpha`` interval
  lies inside the margin (each one-sided test at level alpha; a claim that needs every series
  equivalent is an intersection-union test and needs no correction), ``BEYOND`` when the interval
  at the Bonferroni level over ``family`` series lies wholly outside ``[-margin, margin]`` (the
  slope is shown to exceed the margin), ``UNDECIDED`` otherwise. More data narrow the interval:
  they make a flat series easier to declare flat, never a drifting one easier to pass.
"""

from __future__ import annotations

import numpy as np

EQUIVALENT, UNDECIDED, BEYOND = 1, 0, -1


def lines(x, Y) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(intercept, slope, slope_se)`` of the least-squares lines ``Y[..., i] ~ a + b x[i]``, each
    of shape ``Y.shape[:-1]`` (``slope_se`` NaN with fewer than three points)."""
    x, Y = np.asarray(x, dtype=float), np.asarray(Y, dtype=float)
    if x.ndim != 1 or Y.shape[-1:] != x.shape or np.unique(x).size < 2:
        raise ValueError(f"need x: (m,) with two distinct values and Y: (..., m), got {x.shape} "
                         f"and {Y.shape}")
    xc = x - x.mean()
    sxx = xc @ xc
    slope = (Y - Y.mean(axis=-1, keepdims=True)) @ xc / sxx
    intercept = Y.mean(axis=-1) - slope * x.mean()
    m = x.size
    if m < 3:
        return intercept, slope, np.full(slope.shape, np.nan)
    resid = Y - intercept[..., None] - slope[..., None] * x
    se = np.sqrt((resid**2).sum(axis=-1) / (m - 2) / sxx)
    return intercept, slope, se


def equivalence(slope, se, dof, margin, alpha: float = 0.05, family: int = 1) -> np.ndarray:
    """The TOST verdict (``EQUIVALENT``, ``UNDECIDED`` or ``BEYOND``) of slopes with standard
    errors ``se`` on ``dof`` degrees of freedom against ``(-margin, margin)``; arrays broadcast."""
    from scipy import stats  # on use: the workflow imports the claims registry at every start

    if not 0 < alpha < 0.5 or family < 1:
        raise ValueError(f"need 0 < alpha < 0.5 and family >= 1, got {alpha}, {family}")
    slope, se, margin = (np.asarray(v, dtype=float) for v in (slope, se, margin))
    if (margin <= 0).any():
        raise ValueError("margin must be > 0")
    half = stats.t.ppf(1 - alpha, dof) * se
    wide = stats.t.ppf(1 - alpha / family, dof) * se
    verdict = np.full(np.broadcast(slope, se, margin).shape, UNDECIDED)
    verdict[(slope - half > -margin) & (slope + half < margin)] = EQUIVALENT
    verdict[(slope - wide > margin) | (slope + wide < -margin)] = BEYOND
    return verdict
