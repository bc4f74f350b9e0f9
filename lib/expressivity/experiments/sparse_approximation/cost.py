"""The plan of the optimised-inputs job (``optimised.optimised_table``): planned CPU seconds and
peak bytes, and the settings it uses. Apart from the job and from ``optimised_inputs`` so that the
workflow plans it without importing torch (every Snakemake start pays for what the rules import).
"""

from __future__ import annotations

from expressivity.experiments.sparse_approximation.searches import PLAN_FLOPS, search_cost
from expressivity.one_pass_search import d_grid

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
