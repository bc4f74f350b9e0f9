"""The cost model of the sparse stage's search jobs: predicted seconds on one CPU core and on a GPU,
and peak bytes, from the job's settings. The rules plan with it (``runtime``, ``mem_mb``, which
jobs of ``device: auto`` go to the GPU, how trials are split into jobs); apart from the jobs and
from torch so that every Snakemake start stays cheap.

One trial (``searches.trial_record``) draws the prefix-coupled factors (``2 n d_max`` normals and
the support's gathers: ``drawn`` entries), runs the one-pass search up to the horizon d_max
(``2 n^2 d_max`` flops of products; the checks read ``checked`` logits: the tracked rows at every
grid point, the other rows at the grid points from d_min on) and measures the attention mass of
the tracked rows at d_min (``2 m n d_min`` flops). A horizon too short for d_min is extended x1.5
and the trial redone, so the work depends on d_min, which is planned as ``D_MIN_OVER_PRED`` times
the parameter-free prediction (``random_projection.typical_dimension``; here every row has the
median row norm of a small target of the same kind, and the Gaussian maximum is the median of
``n^2`` of them).

On the CPU (numpy, one core) the constants below were measured on this project's machine
(``benchmarks/records/``; ``tests/unit/test_plan.py`` checks them against those records). On a GPU
the products and checks run at the GPU's measured search rate, the drawing and the mass stay on
the CPU, and a job pays the GPU's start once (``workflow/device_rates.py``: ``rates`` below is
its ``{quantity: value}``).
"""

from __future__ import annotations

import inspect
import math
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from expressivity.approximation_check import logit_values
from expressivity.d_min_reference import RowModel
from expressivity.experiments.sparse_approximation.reference import DRAWS
from expressivity.experiments.sparse_approximation.searches import sweep_points
from expressivity.one_pass_search import coarse_indices, d_grid
from expressivity.random_projection import jl_dimension
from expressivity.sparse_target import KINDS, make_target

#: A search job's start (interpreter, numpy, scipy, pandas: seconds) and its resident bytes
#: besides the factors and the logits (Python, numpy, the tables).
START_SECONDS = 2.0
JOB_BASE_BYTES = 500 * 2**20
#: One CPU core: seconds per trial besides the terms below (target, B, d_pred, the table row), per
#: factor entry formed (a normal or a gather), per logit checked, and the sustained rate of the
#: products (dgemm in place). Fitted to the CPU times of the default run's 33 sweep and mass jobs
#: (``benchmarks/records/``): measured / predicted median 0.99, total 0.99.
TRIAL_SECONDS = 0.01
DRAW_SECONDS = 5e-9
CHECK_SECONDS = 5e-10
CPU_FLOPS = 2.7e10
#: d_min / d_pred (``planned_d_min``): medians 0.50 over the default run's 278 sweep trials (0.47
#: to 0.55 across n = 64 .. 16384; 0.54, 0.49, 0.48 at k = 1, 2, 4) and 0.56 over its 33 mass
#: trials. Near 1.1 x the first horizon a 10 % error decides whether a trial is extended (a pass
#: at 1.5 times the horizon more).
D_MIN_OVER_PRED = 0.5
#: The torch process of a job (measured: 406 MB resident on the CI config) and the seconds to start
#: it (interpreter, numpy, pandas, torch), for the optimised-inputs job.
TORCH_BASE_BYTES = 450 * 2**20
TORCH_START_SECONDS = 5.0
#: Planning constants of one step of ``optimised_inputs.optimise_inputs`` on one CPU core: a fixed
#: overhead (about 20 small torch operations) and the sustained flop rate of the step's products.
STEP_OVERHEAD_S = 8e-4
STEP_FLOPS_PER_S = 2.0e10
#: The exact-rule reference (``reference_table``) on one CPU core: drawing a point's rows (targets
#: of size n: seconds per row and per support entry), then ``REFERENCE_EVALS`` evaluations of the
#: row model per point (galloping from the previous n's grid index, then bisection: 6.9, 5.7 and
#: 5.8 at k = 2, 4, 8 on the paper config, 6.5 and 7.1 at k = 2, 4 on the default; its set-up adds
#: about a fifth of one), each over the model's quadrature nodes x eta draws x rows at seconds per
#: such entry growing with k (the probability's sum included). CPU times measured on this
#: project's machine: the default config's 30 points 13.9 s, the paper config's 63 points 45.7 s.
SAMPLE_ROW_SECONDS = 3e-6
SAMPLE_ENTRY_SECONDS = 5e-7
REFERENCE_EVALS = 6.7
MODEL_ENTRY_SECONDS = 1.9e-7
MODEL_ENTRY_K_SECONDS = 2.2e-8
_MODEL = inspect.signature(RowModel).parameters
#: The optimised inputs' smallest d grows like n ** D_OPT_POWER: measured d_opt 4, 6, 8, 12 at
#: n = 16, 32, 64, 128 (k = 1; 3 to 8 at k = 2) on the default run.
D_OPT_POWER = 0.5
#: The frontier's smallest d is planned at FRONTIER_D_OPT ln n / ln(1 + 2 Lam / gamma) (at least
#: 2): the median of d ln(1 + 2 Lam / gamma) / ln n over the default run's 80 problems is 3.0
#: (2.3 to 4.9; 8 to 10.6 at Lam / gamma = 1.5, k = 2, where the plan is low).
FRONTIER_D_OPT = 3.0
#: The largest batch of ``optimised_inputs.smallest_d_batch`` in bytes of one hinge array (its
#: ``BATCH_BYTES``, restated here without importing torch; a test keeps the two equal); a step
#: holds about HINGE_ARRAYS such arrays.
BATCH_BYTES = 2**28
HINGE_ARRAYS = 6
#: Planned seconds of one float64 check of one member of a batch (``check_logits`` on the module's
#: logits, numpy, every ``check_every`` steps), and of one logit entry of the moment curve in ball
#: arithmetic (a product of two length-2k rows of 256-bit balls and its rounding to float64).
CHECK_OVERHEAD_S = 3e-4
BALL_ENTRY_S = 3e-6


@dataclass(frozen=True)
class TrialWork:
    """The work of one trial: flops of the search's products and of the mass measurement, normals
    drawn and factor entries formed (normals and the support's gathers), logits checked, the
    horizon of each pass, and the peak bytes of the factors and one block of logits on the CPU."""

    search_flops: float
    mass_flops: float
    normals: float
    drawn: float
    checked: float
    horizons: tuple[int, ...]
    peak_bytes: int

    def cpu_seconds(self) -> float:
        """Seconds on one CPU core (numpy)."""
        return (TRIAL_SECONDS + DRAW_SECONDS * self.drawn + CHECK_SECONDS * self.checked
                + (self.search_flops + self.mass_flops) / CPU_FLOPS)

    def gpu_seconds(self, rates: dict[str, float]) -> float:
        """Seconds with the search on a GPU of measured ``rates``: G is drawn on the CPU (``drawn
        / (k + 1)`` normals), the factors, the search and the mass logits are formed on the GPU."""
        return (rates["sweep_trial_fixed_s"] + DRAW_SECONDS * self.normals
                + (self.search_flops + self.mass_flops) / rates["search_kernel_flops"])


def planned_d_min(*, n: int, k: int, R: float, eps_ratio: float, eps_zero: float,
                  target: str = "permutations") -> float:
    """The d_min a plan expects: ``D_MIN_OVER_PRED * (2 t / eps_ratio)^2`` with t the median of the
    largest of n^2 Gaussian logit errors of sd the median row norm ``||B_i||`` of a target of this
    kind (drawn at min(n, 256) rows: the norms do not depend on n)."""
    small = make_target(target, min(n, 256), min(k, min(n, 256)), R, np.random.default_rng(0))
    norm = float(np.median(np.sqrt((np.where(small.real, logit_values(small, eps_ratio, eps_zero),
                                             0.0) ** 2).sum(axis=1))))
    z = -NormalDist().inv_cdf(math.log(2) / (2.0 * n * n))
    return D_MIN_OVER_PRED * (2 * norm * z / eps_ratio) ** 2


def trial_work(*, n: int, k: int, R: float, eps_ratio: float, eps_zero: float, delta: float,
               search: dict, horizon_fraction: float, mass_rows: int,
               target: str = "permutations") -> TrialWork:
    """The work of one ``trial_record`` at (n, k): passes from the first horizon ``d_0 =
    max(d_start, ceil(horizon_fraction d_JL))``, extended x1.5 (at most ``max_extensions`` times)
    while ``horizon_factor * d_min`` exceeds it, with d_min from ``planned_d_min``."""
    d_min = planned_d_min(n=n, k=k, R=R, eps_ratio=eps_ratio, eps_zero=eps_zero, target=target)
    d_max = max(search["d_start"], math.ceil(horizon_fraction
                                             * jl_dimension(n, k, R, eps_ratio, eps_zero, delta)))
    m = min(n, mass_rows)
    horizons, checked = [], 0.0
    for ext in range(search["max_extensions"] + 1):
        grid = d_grid(search["d_start"], d_max, search["resolution"], search["min_step"])
        horizons.append(int(grid[-1]))
        found = search["horizon_factor"] * d_min <= grid[-1]
        # the tracked rows at every grid point; the others at the points from d_min on, where
        # they are candidates (a pass that ends before d_min leaves almost none)
        checked += m * n * len(grid) + (n - m) * n * float((grid >= d_min).sum() if found else 0)
        if found or ext == search["max_extensions"]:
            break
        d_max = math.ceil(d_max * 1.5)
    d_top = horizons[-1]
    return TrialWork(search_flops=2.0 * n * n * sum(horizons),
                     mass_flops=2.0 * m * n * min(d_min, d_top),
                     normals=float(n * sum(horizons)), drawn=float(n * (k + 1) * sum(horizons)),
                     checked=checked, horizons=tuple(horizons),
                     peak_bytes=16 * n * d_top + 8 * n * min(n, search["block"]))


def series_trial_work(cfg: dict, series: str, n: int, k: int) -> TrialWork:
    """``trial_work`` at (n, k) of the sweep-like section ``series`` of the stage's config ``cfg``:
    ``sweep`` searches at ``eps_zero``, ``mass`` at ``mass.eps / n``, each from its own first
    horizon."""
    if series == "sweep":
        eps_zero, fraction = cfg["eps_zero"], cfg["search"]["horizon_fraction"]
    elif series == "mass":
        eps_zero, fraction = cfg["mass"]["eps"] / n, cfg["mass"]["horizon_fraction"]
    else:
        raise ValueError(f"unknown series {series!r}; use sweep or mass")
    return trial_work(n=n, k=k, R=cfg["R"], eps_ratio=cfg["eps_ratio"], eps_zero=eps_zero,
                      delta=cfg["delta"], search=cfg["search"], horizon_fraction=fraction,
                      mass_rows=cfg["mass_rows"], target=cfg["target"])


def chunk_cost(cfg: dict, series: str, n: int, k: int, trials: int,
               rates: dict[str, float] | None = None) -> tuple[float, int, float | None]:
    """``(CPU seconds, peak bytes, GPU seconds)`` of a job of ``trials`` trials at (n, k) of
    ``series``: its start and its trials on one CPU core, and on the GPU of measured ``rates``
    (None without: no GPU plan). A GPU job also holds the factors and a block of
    ``torch_search.BLOCK_BYTES`` on the device, not counted here (host memory)."""
    work = series_trial_work(cfg, series, n, k)
    gpu = None if rates is None else rates["gpu_job_start_s"] + trials * work.gpu_seconds(rates)
    return START_SECONDS + trials * work.cpu_seconds(), JOB_BASE_BYTES + work.peak_bytes, gpu


def vary_cost(*, varied: str, value, n: int, k: int, trials: int, R: float, eps_ratio: float,
              eps_zero: float, delta: float, search: dict,
              target: str = "permutations") -> tuple[float, int]:
    """``(CPU seconds, peak bytes)`` of a ``vary_table`` job: ``trials`` trials at (n, k) with the
    setting ``varied`` at ``value`` (the form changes neither the work nor the memory)."""
    tolerances = {"R": R, "eps_ratio": eps_ratio, "eps_zero": eps_zero}
    if varied in tolerances:
        tolerances[varied] = value
    work = trial_work(n=n, k=k, delta=delta, search=search,
                      horizon_fraction=search["horizon_fraction"], mass_rows=256, target=target,
                      **tolerances)
    return START_SECONDS + trials * work.cpu_seconds(), JOB_BASE_BYTES + work.peak_bytes


def _pass_seconds(n: int, k: int, d: int, checks: float = 0.0) -> float:
    """One draw of the factors at d with the full n x n logits: drawing, ``2 n^2 d`` flops of
    products, and ``checks`` passes over the logits."""
    return DRAW_SECONDS * n * (k + 1) * d + 2.0 * n * n * d / CPU_FLOPS + CHECK_SECONDS * checks * n * n


def jl_cost(*, n: list[int], k: list[int], trials: int, R: float, eps_ratio: float,
            eps_zero: float, delta: float) -> tuple[float, int]:
    """``(CPU seconds, peak bytes)`` of the ``jl_table`` job: every (n, k, trial) one Las Vegas
    draw at the JL bound (with the union bound's smaller delta): the Gram logits (``dsyrk``, half a
    general product) and the check; a second round is rare (probability <= delta)."""
    delta_each = delta / (len(n) * len(k) * trials)
    seconds, peak = START_SECONDS, 0
    for n_ in n:
        for k_ in k:
            d = jl_dimension(n_, k_, R, eps_ratio, eps_zero, delta_each)
            # G alone is drawn (n d normals), C = G G^T by dsyrk (n^2 d flops)
            seconds += trials * (DRAW_SECONDS * n_ * d + n_ * n_ * d / CPU_FLOPS
                                 + CHECK_SECONDS * 3 * n_ * n_)
            peak = max(peak, 3 * 8 * n_ * n_)
    return seconds, JOB_BASE_BYTES + peak


def error_cost(*, n: int, k: int, trials: int, R: float, eps_ratio: float, eps_zero: float,
               delta: float, d_start: int, min_step: int) -> tuple[float, int]:
    """``(CPU seconds, peak bytes)`` of an ``error_table`` job: per trial one pass up to the JL
    bound with every row checked at every point of its 10 % grid, the logit error tracked (two
    passes over the logits a point)."""
    d = jl_dimension(n, k, R, eps_ratio, eps_zero, delta)
    points = len(d_grid(d_start, d, 0.1, min_step))
    return (START_SECONDS + trials * _pass_seconds(n, k, d, 2 * points),
            JOB_BASE_BYTES + 16 * n * d + 8 * n * n)


def module_cost(*, n: int, d: int, k: list[int], trials: int) -> tuple[float, int]:
    """``(CPU seconds, peak bytes)`` of the ``module_table`` job: per target (every kind of
    ``sparse_target.KINDS``, every k, ``trials``) one Las Vegas round at d checked through the
    explicit weights (the logits at twice the Gram's cost), its attention's exponentials and the
    check."""
    seconds = START_SECONDS + len(KINDS) * trials * sum(
        _pass_seconds(n, k_, 2 * d, 4) for k_ in k)
    return seconds, JOB_BASE_BYTES + 16 * n * d + 5 * 8 * n * n


def example_cost(*, kind: str, n: int, k: int, window: int, R: float, eps_ratio: float,
                 eps_zero: float, delta: float, search: dict) -> tuple[float, int]:
    """``(CPU seconds, peak bytes)`` of the ``example_table`` job: one trial of a target of
    ``kind`` at (n, k) and the window's rows of the logits at its d_min."""
    work = trial_work(n=n, k=k, R=R, eps_ratio=eps_ratio, eps_zero=eps_zero, delta=delta,
                      search=search, horizon_fraction=search["horizon_fraction"], mass_rows=256,
                      target=kind)
    seconds = START_SECONDS + work.cpu_seconds() + 2.0 * window * n * work.horizons[-1] / CPU_FLOPS
    return seconds, JOB_BASE_BYTES + work.peak_bytes


def reference_cost(*, sweep: dict, mass: dict, draws: int = DRAWS) -> tuple[float, int]:
    """``(CPU seconds, peak bytes)`` of the ``reference_table`` job: for every (n, k) point of the
    sweep and of the mass-calibrated sweep, ``draws`` rows of targets of size n drawn (at least
    one whole target) and ``REFERENCE_EVALS`` evaluations of ``RowModel`` over its quadrature
    nodes, eta draws (k > 1; one for k = 1) and ``draws`` rows. Memory: about ten float64 arrays
    of nodes x eta draws x rows x k, and the largest target's logits."""
    nodes = _MODEL["nodes"].default
    seconds, peak = START_SECONDS, 0
    for n, k, _ in sweep_points(sweep) + sweep_points(mass):
        etas = _MODEL["draws"].default if k > 1 else 1
        entries = nodes * etas * draws
        rows = max(n, draws)
        seconds += (SAMPLE_ROW_SECONDS * rows + SAMPLE_ENTRY_SECONDS * rows * k
                    + REFERENCE_EVALS * entries * (MODEL_ENTRY_SECONDS + MODEL_ENTRY_K_SECONDS * k))
        peak = max(peak, 10 * 8 * entries * k, 3 * 8 * n * k)
    return seconds, JOB_BASE_BYTES + peak


def step_seconds(n: int, k: int, d: int) -> float:
    """Planned seconds of one optimisation step at (n, k, d): three n x n x d products (S and the
    two gradients, 6 n^2 d flops) and about 30 n^2 k elementwise operations, plus the overhead."""
    return STEP_OVERHEAD_S + (6.0 * n * n * d + 30.0 * n * n * k) / STEP_FLOPS_PER_S


def scan_seconds(n: int, k: int, *, d_start: int, d_max: int, resolution: float, restarts: int,
                 steps: int, patience: int, check_every: int) -> float:
    """The planned seconds of one ``smallest_d``: every restart fails at each grid d below the
    planned ``d_opt = n ** D_OPT_POWER``, stopping at its plateau after about ``patience +
    check_every`` steps (all ``steps`` at most), then one attempt succeeds at d_opt."""
    grid = d_grid(d_start, d_max, resolution, 1)
    d_opt = n ** D_OPT_POWER
    attempt = min(steps, patience + check_every)
    failing = [int(d) for d in grid if d < d_opt]
    seconds = sum(restarts * attempt * step_seconds(n, k, d) for d in failing)
    if len(failing) < len(grid):
        seconds += attempt * step_seconds(n, k, int(grid[len(failing)]))
    return float(seconds)


def optimised_cost(*, n: list[int], k: int, trials: int, R: float, eps_ratio: float,
                   eps_zero: float, delta: float, search: dict, optimise: dict,
                   target: str = "permutations") -> tuple[float, int]:
    """Planned CPU seconds and peak bytes of one ``optimised_table`` job (every n >= k of ``n`` at
    one k) on one CPU core: per trial the random search (``trial_work``, every row tracked) and the
    scan of the optimised inputs (``scan_seconds``), after ``TORCH_START_SECONDS``. Memory: the
    torch process (``TORCH_BASE_BYTES``) and the largest n's search factors or about 12 n x n x k
    float64 arrays of the hinge."""
    peak, seconds = 0, TORCH_START_SECONDS
    for n_ in (n_ for n_ in n if n_ >= k):
        work = trial_work(n=n_, k=k, R=R, eps_ratio=eps_ratio, eps_zero=eps_zero, delta=delta,
                          search=search, horizon_fraction=search["horizon_fraction"],
                          mass_rows=n_, target=target)
        scan = scan_seconds(n_, k, **{key: optimise[key] for key in (
            "d_start", "d_max", "resolution", "restarts", "steps", "patience", "check_every")})
        peak = max(peak, work.peak_bytes, 12 * 8 * n_ * n_ * k)
        seconds += trials * (work.cpu_seconds() + scan)
    return seconds, TORCH_BASE_BYTES + peak


def frontier_cost(*, n: list[int], k: int, budgets: list[float], criteria: list[str],
                  trials: int, restarts: int, d_start: int, d_max: int, resolution: float,
                  coarse: float, steps: int, patience: int, check_every: int) -> tuple[float, int]:
    """Planned CPU seconds and peak bytes of one ``frontier_table`` job (every n >= k at one k) on
    one CPU core. At each n the problems of a budget (trials x criteria x restarts) walk the coarse
    grid of ``d_grid(d_start, min(d_max, n), resolution, 1)`` in one batch with the other budgets'
    until their planned d (``FRONTIER_D_OPT``), each attempt stopping at its plateau after about
    ``patience + check_every`` steps (all ``steps`` at most), then bisect the last gap (log2 of it
    more attempts). A step costs one ``step_seconds`` overhead plus each active member's products
    and a check of each member every ``check_every`` steps. Memory: the torch process and
    ``HINGE_ARRAYS`` arrays of the largest batch (at most ``BATCH_BYTES`` each, as
    ``optimised_inputs`` splits larger batches)."""
    per_budget = trials * len(criteria) * restarts
    attempt = min(steps, patience + check_every)
    seconds, peak = TORCH_START_SECONDS, 0
    for n_ in (v for v in n if v >= k):
        top = min(d_max, n_)
        grid = d_grid(min(d_start, top), top, resolution, 1)
        walk = [int(grid[i]) for i in coarse_indices(grid, coarse)]
        plan = [min(top, max(2.0, FRONTIER_D_OPT * math.log(n_) / math.log1p(2 * b)))
                for b in budgets]

        def batch(d: int, members: int, n_: int = n_) -> float:
            one = step_seconds(n_, k, d) - STEP_OVERHEAD_S
            return attempt * (STEP_OVERHEAD_S + members * (one + CHECK_OVERHEAD_S / check_every))

        last = 0
        for d in walk:
            active = per_budget * sum(p > last for p in plan)
            if active:
                seconds += batch(d, active)
            last = d
        for p in plan:  # bisection of the gap of the walk around the planned d
            gap = max([b - a for a, b in zip(walk, walk[1:], strict=False) if a < p <= b] or [1])
            seconds += math.ceil(math.log2(gap)) * batch(round(p), per_budget)
        per_batch = max(1, BATCH_BYTES // (8 * n_ * n_ * k))
        peak = max(peak, HINGE_ARRAYS * 8 * n_ * n_ * k * min(per_budget * len(budgets),
                                                              per_batch))
    return seconds, TORCH_BASE_BYTES + peak


def unbounded_cost(*, n: list[int], k: list[int], moment_k: list[int], trials: int,
                   criteria: list[str]) -> tuple[float, int]:
    """Planned CPU seconds and peak bytes of the ``unbounded_table`` job: the moment curve's two
    n x n logit matrices in ball arithmetic per (n, k, trial, criterion) (``BALL_ENTRY_S`` an
    entry; the float64 circle and the float64 copy are negligible beside them). Memory: the
    interpreter and the n x n ball matrices (about 100 bytes an entry)."""
    seconds, peak = TORCH_START_SECONDS, 0
    for n_ in n:
        for k_ in (v for v in moment_k if v <= n_):
            seconds += 2 * trials * len(criteria) * n_ * n_ * BALL_ENTRY_S * (1 + k_ / 4)
            peak = max(peak, 100 * n_ * n_)
    return seconds, TORCH_BASE_BYTES + peak
