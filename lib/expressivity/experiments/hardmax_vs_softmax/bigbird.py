"""Jobs of the BigBird study (``expressivity.bigbird``): furthest vectors at one ``n``, the
smallest inverse temperature that works on each instance against two rigorous bounds;
``bigbird_cost`` plans a job's resources."""

from __future__ import annotations

import logging
import math
from collections.abc import Callable

import numpy as np

from expressivity.bigbird import (
    beta_bounds,
    furthest_reference,
    furthest_vector_attention,
    random_unit_vectors,
    softmax_accuracy,
)
from expressivity.joblog import Progress
from expressivity.rng import generator

_LOG = logging.getLogger(__name__)
#: Bisection steps between the last failing and the first passing grid ``beta`` (geometric): a grid
#: ratio ``r`` shrinks to ``r^(1/2^10)``, e.g. 1.78 to 1.0006.
BISECTIONS = 10


def dimension(n: int) -> int:
    """``d = ceil(log2 n)^2``: BigBird's ``d = Theta(log^2 n)``."""
    return math.ceil(math.log2(n)) ** 2


def smallest_working_beta(accuracy: dict[float, float]) -> tuple[float, float]:
    """``(beta_empirical, beta_failing)`` from the accuracies at the evaluated ``beta``: the largest
    ``beta`` that misses a query, and the smallest evaluated ``beta`` above it (every evaluated
    ``beta`` from there on answers every query). ``beta_failing`` is ``nan`` when none fails (then
    ``beta_empirical`` is the smallest evaluated: an upper bound); ``beta_empirical`` is ``nan``
    when the largest evaluated ``beta`` still fails."""
    failing = [b for b, acc in accuracy.items() if acc < 1]
    if not failing:
        return min(accuracy), math.nan
    lo = max(failing)
    above = [b for b in accuracy if b > lo]
    return (min(above) if above else math.nan), lo


def evaluations(n_betas: int) -> int:
    """Softmax evaluations of one instance: the grid, both bounds and the bisection."""
    return n_betas + 2 + BISECTIONS


def instance_rows(U: np.ndarray, *, n: int, trial: int, grid: np.ndarray,
                  done: Callable[[], None] = lambda: None) -> list[dict]:
    """One instance: hardmax exactness; softmax accuracy on the ``grid``, at both bounds and at the
    bisection points that locate the smallest working ``beta``; every row carries the instance's
    ``beta_sufficient``, ``beta_sharp``, ``beta_empirical`` and ``beta_failing``. ``done()`` is
    called after each softmax evaluation (for progress lines)."""
    truth = furthest_reference(U)
    bounds = dict(zip(("sufficient", "sharp"), beta_bounds(U), strict=True))
    evaluated: list[tuple[str, float, float]] = []
    accuracy: dict[float, float] = {}

    def run(kind: str, beta: float) -> None:
        if beta not in accuracy:
            accuracy[beta] = softmax_accuracy(U, truth, beta)
        done()
        evaluated.append((kind, float(beta), accuracy[beta]))

    for beta in grid:
        run("grid", float(beta))
    for kind, beta in bounds.items():
        if math.isfinite(beta):
            run(kind, beta)
    hi, lo = smallest_working_beta(accuracy)
    if math.isfinite(lo) and math.isfinite(hi):
        for _ in range(BISECTIONS):
            mid = math.sqrt(lo * hi)
            run("bisection", mid)
            lo, hi = (lo, mid) if accuracy[mid] == 1 else (mid, hi)
    beta_emp, beta_fail = smallest_working_beta(accuracy)
    base = {"n": n, "d": U.shape[1], "trial": trial, "beta_sufficient": bounds["sufficient"],
            "beta_sharp": bounds["sharp"], "beta_empirical": beta_emp, "beta_failing": beta_fail}
    hard = furthest_vector_attention(U, "hardmax")
    rows = [{**base, "sigma": "hardmax", "kind": "hardmax", "beta": math.inf,
             "accuracy": float(np.mean(np.all(hard == U[truth], axis=1)))}]
    rows += [{**base, "sigma": "softmax", "kind": kind, "beta": beta, "accuracy": acc}
             for kind, beta, acc in sorted(evaluated, key=lambda r: (r[1], r[0]))]
    return rows


def bigbird_table(*, seed: int, n: int, trials: int, beta_min: float, beta_max: float,
                  n_betas: int, first: int = 0,
                  log: logging.Logger = _LOG) -> list[dict[str, object]]:
    """BigBird Task 1 at one ``n`` with ``d = ceil(log2 n)^2``: ``instance_rows`` for the trials
    ``first .. first + trials - 1`` (trial ``t`` has its own stream, so a job of a chunk of trials
    gives the rows of those trials in a job of all of them) on a log grid of ``n_betas`` values in
    ``[beta_min, beta_max]``."""
    if not 0 < beta_min < beta_max or not math.isfinite(beta_max):
        raise ValueError(f"need 0 < beta_min < beta_max < inf, got {beta_min}, {beta_max}")
    if n < 4 or first < 0 or trials < 1 or n_betas < 2:
        raise ValueError(f"need n >= 4, first >= 0, trials >= 1, n_betas >= 2, got {n}, {first}, "
                         f"{trials}, {n_betas}")
    grid = np.logspace(math.log10(beta_min), math.log10(beta_max), n_betas)
    total = trials * evaluations(n_betas)
    progress = Progress(log, f"BigBird softmax evaluations at n={n}, trials {first}.."
                        f"{first + trials - 1}", total)
    count = [0]

    def done() -> None:
        count[0] += 1
        progress.update(min(count[0], total))

    rows = []
    for trial in range(first, first + trials):
        rng = generator(seed, "hardmax_vs_softmax.bigbird", n=n, trial=trial)
        rows += instance_rows(random_unit_vectors(rng, n, dimension(n)), n=n, trial=trial,
                              grid=grid, done=done)
    if count[0] < total:  # a bisection that was not needed leaves the count short
        progress.update(total)
    return rows


#: CPU seconds to start the job (interpreter, numpy), for planning.
START_SECONDS = 0.7


def bigbird_cost(*, n: int, trials: int, n_betas: int) -> tuple[float, int]:
    """``(CPU seconds, peak bytes)`` of a job of ``trials`` trials at ``n``, for planning resources.

    One softmax evaluation costs about ``8 n^2 d`` flops (scores, weights times values, nearest
    vectors) and the bounds and the reference together about as much as two more; ``evaluations
    + 2`` per trial at 12 GFLOP/s (measured here on one thread, 0.07 s per evaluation at n =
    1024), after the job's start (interpreter, numpy). A prediction: the cluster's margin is
    added by the workflow (``job_resources``).
    Memory: a few ``n x n`` arrays of the softmax and the ``2^24``-double blocks of the bounds."""
    d = dimension(n)
    seconds = START_SECONDS + trials * (evaluations(n_betas) + 2) * 8 * n * n * d / 12e9
    return seconds, 400 * 2**20 + 6 * 8 * n * n + 3 * 8 * 2**24
