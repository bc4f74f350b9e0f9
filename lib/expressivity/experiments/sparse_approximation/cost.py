"""The plans of the optimised-inputs jobs (``optimised.optimised_table``, and the frontier's
``frontier.frontier_table`` and ``frontier.unbounded_table``): planned CPU seconds and peak bytes,
and the settings they use. Apart from the jobs and from ``optimised_inputs`` so that the workflow
plans them without importing torch (every Snakemake start pays for what the rules import).
"""

from __future__ import annotations

import math

from expressivity.experiments.sparse_approximation.searches import PLAN_FLOPS, search_cost
from expressivity.one_pass_search import coarse_indices, d_grid

#: The largest batch of ``optimised_inputs.smallest_d_batch`` in bytes of one hinge array (its
#: ``BATCH_BYTES``, restated here without importing torch; a test keeps the two equal).
BATCH_BYTES = 2**28
#: The torch process of a job (measured: 406 MB resident on the CI config) and the seconds to start
#: it (interpreter, numpy, pandas, torch), for the cost model.
BASE_BYTES = 450 * 2**20
START_SECONDS = 5.0
#: Settings of the optimisation (the config's ``optimised`` section, but n, k and trials).
OPTIMISE_KEYS = ("restarts", "d_start", "d_max", "resolution", "steps", "patience",
                 "check_every", "lr", "margin")

#: Planning constants of one step of ``optimised_inputs.optimise_inputs`` on one CPU core: a fixed
#: overhead (about 20 small torch operations) and the sustained flop rate of the step's products
#: (as ``PLAN_FLOPS``).
STEP_OVERHEAD_S = 6e-4
STEP_FLOPS_PER_S = 2.0e10


def step_seconds(n: int, k: int, d: int) -> float:
    """Planned seconds of one step at (n, k, d): three n x n x d products (S and the two
    gradients, 6 n^2 d flops) and about 30 n^2 k elementwise operations, plus the overhead."""
    return STEP_OVERHEAD_S + (6.0 * n * n * d + 30.0 * n * n * k) / STEP_FLOPS_PER_S


def scan_seconds(n: int, k: int, *, d_start: int, d_max: int, resolution: float, restarts: int,
                 steps: int) -> float:
    """An upper plan of one ``smallest_d``: every grid d fails after all its steps."""
    grid = d_grid(d_start, d_max, resolution, 1)
    return float(sum(restarts * steps * step_seconds(n, k, int(d)) for d in grid))


def optimised_cost(*, n: list[int], k: int, trials: int, R: float, eps_ratio: float,
                   eps_zero: float, delta: float, search: dict, optimise: dict) -> tuple[float, int]:
    """Planned CPU seconds and peak bytes of one ``optimised_table`` job (every n >= k of ``n`` at one
    k) on one CPU core: per trial the random search (``searches.search_cost`` at ``PLAN_FLOPS``)
    and an upper plan of the scan in which every grid d fails after all its steps
    (``scan_seconds``), after ``START_SECONDS``. Memory: the torch process
    (``BASE_BYTES``) and the largest n's search factors or about 12 n x n x k float64 arrays of
    the hinge."""
    peak, seconds = 0, START_SECONDS
    for n_ in (n_ for n_ in n if n_ >= k):
        nbytes, flops = search_cost(n=n_, k=k, R=R, eps_ratio=eps_ratio, eps_zero=eps_zero,
                                    delta=delta, horizon_fraction=search["horizon_fraction"])
        scan = scan_seconds(n_, k, **{key: optimise[key] for key in
                                      ("d_start", "d_max", "resolution", "restarts", "steps")})
        peak = max(peak, nbytes, 12 * 8 * n_ * n_ * k)
        seconds += trials * (flops / PLAN_FLOPS["cpu"] + scan)
    return seconds, BASE_BYTES + peak


#: Planned seconds of one float64 check of one member of a batch (``check_logits`` on the module's
#: logits, numpy, every ``check_every`` steps) beyond its n^2 d products, and of one logit entry of
#: the moment curve in ball arithmetic (a product of two length-2k rows of 256-bit balls and its
#: rounding to float64).
CHECK_OVERHEAD_S = 3e-4
BALL_ENTRY_S = 3e-6
#: The hinge of a batch holds about six (P, n, n, k) float64 arrays at once.
HINGE_ARRAYS = 6


def frontier_cost(*, n: list[int], k: int, budgets: list[float], criteria: list[str],
                  trials: int, restarts: int, d_start: int, d_max: int, resolution: float,
                  coarse: float, steps: int, check_every: int) -> tuple[float, int]:
    """Planned CPU seconds and peak bytes of one ``frontier_table`` job (every n >= k at one k) on
    one CPU core: at each n its P = trials x criteria x budgets problems (times ``restarts``) run
    as one batch at every d of the coarse walk of ``d_grid(d_start, min(d_max, n), resolution,
    1)``, each for all its steps (an upper plan: every d fails; a success ends a problem's walk
    early and adds at most log2 of the last gap in bisection), a step costing one
    ``step_seconds`` overhead plus P times its products, and a check of each member every
    ``check_every`` steps. Memory: the torch process and ``HINGE_ARRAYS`` arrays of the largest
    batch (at most ``BATCH_BYTES`` each, as ``optimised_inputs`` splits larger batches)."""
    P = trials * len(criteria) * len(budgets) * restarts
    seconds, peak = START_SECONDS, 0
    for n_ in (v for v in n if v >= k):
        top = min(d_max, n_)
        grid = d_grid(min(d_start, top), top, resolution, 1)
        walk = [int(grid[i]) for i in coarse_indices(grid, coarse)]
        gaps = [b - a for a, b in zip(walk, walk[1:], strict=False)] or [1]
        walk += [walk[-1]] * math.ceil(math.log2(max(gaps)))  # the bisection's worst case
        for d in walk:
            step = step_seconds(n_, k, d) + (P - 1) * (step_seconds(n_, k, d) - STEP_OVERHEAD_S)
            seconds += steps * (step + P * CHECK_OVERHEAD_S / check_every)
        per_batch = max(1, BATCH_BYTES // (8 * n_ * n_ * k))
        peak = max(peak, HINGE_ARRAYS * 8 * n_ * n_ * k * min(P, per_batch))
    return seconds, BASE_BYTES + peak


def unbounded_cost(*, n: list[int], k: list[int], moment_k: list[int], trials: int,
                   criteria: list[str]) -> tuple[float, int]:
    """Planned CPU seconds and peak bytes of the ``unbounded_table`` job: the moment curve's two
    n x n logit matrices in ball arithmetic per (n, k, trial, criterion) (``BALL_ENTRY_S`` each
    entry; the float64 circle and the float64 copy are negligible beside them). Memory: the
    interpreter and the n x n ball matrices (about 100 bytes an entry)."""
    seconds, peak = START_SECONDS, 0
    for n_ in n:
        for k_ in (v for v in moment_k if v <= n_):
            seconds += 2 * trials * len(criteria) * n_ * n_ * BALL_ENTRY_S * (1 + k_ / 4)
            peak = max(peak, 100 * n_ * n_)
    return seconds, BASE_BYTES + peak
