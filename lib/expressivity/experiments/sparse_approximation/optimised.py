"""The job that asks how far the random construction is from optimal: inputs optimised for the fixed
module under the construction's own norm bound, against the construction's d_min on the same
targets, with the lower bounds on d and the unbounded d = 2 circle inputs (Likhosherstov,
Choromanski & Weller 2021/2023 fix W_Q, W_K [V]; the optimisation and the bounds are ours [D]).

The mathematics is in ``optimised_inputs`` (projected Adam, the ascending scan), ``norm_bounds``
(packing and perturbed-identity lower bounds, the circle) and ``one_pass_search`` (the random
construction's d_min, as the sweep searches it).
"""

from __future__ import annotations

import logging
import math

import numpy as np
import pandas as pd

from expressivity.approximation_check import check_tolerances
from expressivity.d_min_search import host_factors, search_d_min
from expressivity.experiments.sparse_approximation.searches import (
    OPTIMISE_KEYS,
    SEARCH_KEYS,
    sweep_target,
)
from expressivity.joblog import Progress
from expressivity.norm_bounds import circle_check, lower_bound
from expressivity.one_pass_search import SearchResult
from expressivity.optimised_inputs import Attempt, construction_radii, smallest_d
from expressivity.random_projection import jl_dimension
from expressivity.sparse_target import SparseTarget

#: Columns of ``norm_bounds.circle_check`` (missing values where the target is not a permutation).
CIRCLE_COLUMNS = ("circle_scale_min", "circle_scale", "circle_scale_over_n2", "circle_ok",
                  "circle_slack", "circle_tenth_ok", "circle_tenth_slack", "circle_logit_bound")
#: Columns of a row after the random search's (missing values when it found no d_min).
RECORD_COLUMNS = ("radius_q", "radius_k", "logit_bound", "logit_bound_over_gamma", "d_opt",
                  "opt_found", "d_max", "d_first", "d_tried", "largest_failed_d", "opt_slack",
                  "opt_steps", "opt_restart", "steps_total", "opt_norm_q", "opt_norm_k",
                  "rounding_tol", "precision", "random_over_opt", "sub_identity_rows",
                  "alon_eps", "d_lower_alon", "d_lower_packing", "d_lower", "opt_over_lower")
def random_search(target: SparseTarget, rng: np.random.Generator, *, R: float, eps_ratio: float,
                  eps_zero: float, delta: float, search: dict,
                  device: str = "cpu") -> SearchResult:
    """The random construction's one-pass search on ``target`` exactly as the sweep runs it
    (``searches.trial_record``): first horizon ``horizon_fraction`` times the JL bound (*), at
    least d_start, extended until it reaches past d_min. The factors are kept in ``factors``."""
    missing = [key for key in SEARCH_KEYS if key not in search]
    if missing:
        raise KeyError(f"search settings lack {', '.join(missing)}")
    d_jl = jl_dimension(target.n, target.k, R, eps_ratio, eps_zero, delta)
    d_max = max(search["d_start"], math.ceil(search["horizon_fraction"] * d_jl))
    return search_d_min(target, rng, eps_ratio, eps_zero, d_max, d_start=search["d_start"],
                        resolution=search["resolution"], min_step=search["min_step"],
                        horizon_factor=search["horizon_factor"],
                        max_extensions=search["max_extensions"], block=search["block"],
                        device=device)


def optimised_record(target: SparseTarget, rng: np.random.Generator, *, R: float,
                     eps_ratio: float, eps_zero: float, delta: float, search: dict,
                     optimise: dict, circle_margin: float, device: str = "cpu",
                     progress=None) -> dict:
    """One target as one table row: the random construction's d_min, the norm balls taken from it
    (``optimised_inputs.construction_radii`` at d_min), the optimised d under them, the lower bounds
    on d for the same logit bound (``norm_bounds.lower_bound``), and for a permutation the d = 2
    circle inputs at their derived scale and at a tenth of it (``norm_bounds.circle_check``)."""
    missing = [key for key in OPTIMISE_KEYS if key not in optimise]
    if missing:
        raise KeyError(f"optimise settings lack {', '.join(missing)}")
    gamma = math.log(1 / eps_zero)
    res = random_search(target, rng, R=R, eps_ratio=eps_ratio, eps_zero=eps_zero, delta=delta,
                        search=search, device=device)
    row = {"n": target.n, "k": target.k, "R": R, "eps_ratio": eps_ratio, "eps_zero": eps_zero,
           "d_random": res.d_min, "d_random_stable": res.d_stable,
           "random_precision": "float64" if res.decided else "undecided in float64"}
    circle = circle_check(target, eps_ratio, eps_zero, circle_margin) \
        if int(target.count.max()) == 1 else dict.fromkeys(CIRCLE_COLUMNS, math.nan)
    if math.isnan(res.d_min):  # no radius to bound the inputs by: every other column missing
        return {**row, **dict.fromkeys(RECORD_COLUMNS, math.nan), "opt_found": False,
                "precision": "no random d_min", **circle}
    r_q, r_k = construction_radii(*host_factors(res), int(res.d_min))
    scan = smallest_d(target, radius_q=r_q, radius_k=r_k, eps_ratio=eps_ratio,
                      eps_zero=eps_zero, rng=rng, device=device, progress=progress,
                      **{key: optimise[key] for key in OPTIMISE_KEYS})
    best = scan.best
    bounds = lower_bound(target, r_q * r_k, eps_zero)
    norms = (math.nan, math.nan) if best is None else (
        float(np.linalg.norm(best.X1, axis=1).max()), float(np.linalg.norm(best.X2, axis=1).max()))
    return {
        **row, "radius_q": r_q, "radius_k": r_k, "logit_bound": r_q * r_k,
        "logit_bound_over_gamma": r_q * r_k / gamma,
        "d_opt": scan.d_opt, "opt_found": best is not None, "d_max": int(scan.grid[-1]),
        "d_first": int(scan.grid[0]), "d_tried": len(scan.tried),
        "largest_failed_d": scan.largest_failed_d,
        "opt_slack": best.slack if best else math.nan,
        "opt_steps": best.steps if best else math.nan,
        "opt_restart": best.restart if best else math.nan,
        "steps_total": int(sum(a.steps for a in scan.attempts)),
        "opt_norm_q": norms[0], "opt_norm_k": norms[1],
        "rounding_tol": best.rounding_tol if best else math.nan,
        "precision": "float64" if best is not None else "not found up to d_max",
        "random_over_opt": res.d_min / scan.d_opt,
        **bounds, "opt_over_lower": scan.d_opt / bounds["d_lower"],
        **circle,
    }


def optimised_table(*, n: list[int], k: int, trials: int, seed: int, target: str, R: float,
                    eps_ratio: float, eps_zero: float, delta: float, search: dict,
                    optimise: dict, circle_margin: float, device: str = "cpu",
                    log: logging.Logger | None = None) -> pd.DataFrame:
    """Optimised inputs against the random construction on the sweep's targets at every n of
    ``n`` (those >= k) and one k (trial t is the sweep's trial t at (n, k): same target, same G, so
    the same d_min where the sweep has this n): one row per (n, trial) (``optimised_record``)."""
    check_tolerances(eps_ratio, eps_zero)
    if trials < 1:
        raise ValueError(f"trials must be >= 1, got {trials}")
    ns = [n_ for n_ in n if n_ >= k]
    if not ns:
        raise ValueError(f"no n >= k = {k} in {n}")
    # progress counted in trials weighted by n (a trial's cost grows at least like n)
    progress = Progress(log, f"optimised k={k}, trials weighted by n", trials * sum(ns)) \
        if log else None
    rows, done = [], 0
    for n_ in ns:
        for trial in range(trials):
            A, rng = sweep_target(seed=seed, target=target, n=n_, k=k, R=R, trial=trial)

            def attempt_line(a: Attempt, n_=n_, trial=trial):
                if log is not None:
                    log.info("n=%d k=%d trial %d: d=%d restart %d %s after %d steps (slack "
                             "%.3g, %d rows failing)", n_, k, trial, a.d, a.restart,
                             "meets the criterion" if a.ok else "fails", a.steps, a.slack,
                             a.failing_rows)

            row = optimised_record(A, rng, R=R, eps_ratio=eps_ratio, eps_zero=eps_zero,
                                   delta=delta, search=search, optimise=optimise,
                                   circle_margin=circle_margin, device=device,
                                   progress=attempt_line)
            rows.append({"kind": target, "trial": trial, **row, "device": device})
            done += n_
            if progress is not None:
                progress.update(done, n=n_, d_random=row["d_random"], d_opt=row["d_opt"])
    return pd.DataFrame(rows)
