"""The dimension-norm frontier: the smallest d that inputs reach under a bound Lam on the logits,
against n and Lam / gamma, for the per-entry and the mass criterion; and the unbounded
constructions (the circle, d = 2, and the moment curve, d = 2k) with the smallest scale that meets
the criterion.

Likhosherstov, Choromanski & Weller 2021 (arXiv 2106.03764; AAAI 2023) prove d = O(log n) for a
fixed module with bounded inputs [V]; module and criterion are our reconstruction [R]. What a
bound on the inputs costs in dimension is our question [D]: the packing bound of ``norm_bounds``,
``d >= ln n / ln(1 + 2 Lam / gamma)`` (gamma = log(1/eps_zero)), predicts a frontier along which
``d ln(1 + 2 Lam / gamma) / ln n`` stays bounded; without a bound d = 2 (circle) or 2k (moment
curve) suffices, at logits that grow like a power of n.

A job is one k at every n (``frontier_table``; ``frontier_rows`` is one (n, k)): for each trial
(a target drawn as the sweep draws its targets, from its own stream), each budget ``Lam / gamma``
and each criterion (``per-entry``: eps_zero; ``mass``: eps_zero = mass_eps / n, which bounds the
mass off the pattern by mass_eps) one problem: rows of X1 and X2 in balls of radius
``sqrt(Lam)`` each (only the product matters). The problems of one (n, k) are scanned together
(``optimised_inputs.smallest_d_batch``: at each d one batch), on the grid
``d_grid(d_start, min(d_max, n), resolution, 1)`` walked in steps of a factor ``1 + coarse`` and
then bisected; d = n never needs more (the logits have rank at most n, and projecting the queries
onto the keys' span only shortens them).
"""

from __future__ import annotations

import logging
import math

import numpy as np
import pandas as pd

from expressivity.approximation_check import check_tolerances
from expressivity.arguments import integer
from expressivity.joblog import Progress
from expressivity.moment_curve import moment_check
from expressivity.norm_bounds import circle_check, lower_bound
from expressivity.optimised_inputs import Attempt, Problem, rounding_tolerance, smallest_d_batch
from expressivity.rng import generator
from expressivity.sparse_target import SparseTarget, make_target

STAGE = "sparse_approximation"
CRITERIA = ("per-entry", "mass")


def criterion_eps_zero(criterion: str, n: int, eps_zero: float, mass_eps: float) -> float:
    """eps_zero of a criterion: the per-entry tolerance, or ``mass_eps / n`` (the mass off the
    pattern is then at most (n - k) mass_eps / n < mass_eps)."""
    if criterion not in CRITERIA:
        raise ValueError(f"criterion must be one of {CRITERIA}, got {criterion!r}")
    value = eps_zero if criterion == "per-entry" else mass_eps / n
    if not 0 < value < 1:
        raise ValueError(f"eps_zero of the {criterion} criterion must lie in (0, 1), got {value}")
    return value


def frontier_target(*, seed: int, target: str, n: int, k: int, R: float,
                    trial: int) -> SparseTarget:
    """The target of one trial at (n, k), from its own stream (the frontier job and the
    constructions' job use the same targets)."""
    return make_target(target, n, k, R, generator(seed, f"{STAGE}.frontier", n=n, k=k,
                                                  trial=trial))


def _budgets(budgets) -> list[float]:
    if isinstance(budgets, (str, bytes)) or not hasattr(budgets, "__len__") or not budgets:
        raise ValueError(f"budgets must be a non-empty list of numbers > 1/2, got {budgets!r}")
    for b in budgets:
        if not (isinstance(b, (int, float)) and math.isfinite(b) and b > 0.5):
            raise ValueError(f"every budget Lam / gamma must be a finite number > 1/2 (below it "
                             f"no two rows can be separated), got {b!r}")
    return [float(b) for b in budgets]


def _criteria(criteria) -> list[str]:
    if isinstance(criteria, str) or not criteria or any(c not in CRITERIA for c in criteria):
        raise ValueError(f"criteria must be a non-empty list of {CRITERIA}, got {criteria!r}")
    return list(criteria)


def frontier_table(*, n: list[int], k: int, budgets, criteria, slice_budget: float, trials: int,
                   seed: int,
                   target: str, R: float, eps_ratio: float, eps_zero: float, mass_eps: float,
                   d_start: int, d_max: int, resolution: float, coarse: float, restarts: int,
                   steps: int, patience: int, check_every: int, lr: float, margin: float,
                   device: str = "cpu", log: logging.Logger | None = None) -> pd.DataFrame:
    """The frontier's rows at one k and every n of ``n`` (``frontier_rows`` of each, smallest n
    first), with progress weighted by n^2."""
    k = integer("k", k, 1)
    if isinstance(n, (str, bytes)) or not hasattr(n, "__len__") or not n:
        raise ValueError(f"n must be a non-empty list of sequence lengths, got {n!r}")
    ns = sorted(integer("n", v, max(2, k)) for v in n)
    check_tolerances(eps_ratio, eps_zero)
    budgets, criteria = _budgets(budgets), _criteria(criteria)
    progress = Progress(log, f"frontier k={k}, n weighted by n^2", sum(v * v for v in ns)) \
        if log else None
    parts, done = [], 0
    for n_ in ns:
        parts.append(frontier_rows(
            n=n_, k=k, budgets=budgets, criteria=criteria, slice_budget=slice_budget,
            trials=trials, seed=seed,
            target=target, R=R, eps_ratio=eps_ratio, eps_zero=eps_zero, mass_eps=mass_eps,
            d_start=d_start, d_max=d_max, resolution=resolution, coarse=coarse,
            restarts=restarts, steps=steps, patience=patience, check_every=check_every, lr=lr,
            margin=margin, device=device, log=log))
        done += n_ * n_
        if progress is not None:
            progress.update(done, n=n_, d_opt=float(parts[-1]["d_opt"].median()))
    return pd.concat(parts, ignore_index=True)


def frontier_rows(*, n: int, k: int, budgets, criteria, slice_budget: float, trials: int,
                  seed: int, target: str, R: float, eps_ratio: float, eps_zero: float,
                  mass_eps: float, d_start: int, d_max: int, resolution: float, coarse: float,
                  restarts: int, steps: int, patience: int, check_every: int, lr: float,
                  margin: float, device: str = "cpu", log: logging.Logger | None = None) -> pd.DataFrame:
    """One row per (trial, criterion, budget) at (n, k): the optimised d under the budget
    (``d_opt``, NaN when no grid d up to min(d_max, n) met the criterion: censored), the lower
    bounds the budget implies (``norm_bounds.lower_bound``; ``packing_curve`` is the packing bound
    before rounding up), the search's record and ``normalised = d_opt ln(1 + 2 Lam / gamma) / ln n``."""
    n, k, trials = integer("n", n, 2), integer("k", k, 1), integer("trials", trials, 1)
    check_tolerances(eps_ratio, eps_zero)
    budgets, criteria = _budgets(budgets), _criteria(criteria)
    if k > n:
        raise ValueError(f"k = {k} exceeds n = {n}")
    if slice_budget not in budgets:
        raise ValueError(f"slice_budget {slice_budget!r} must be one of the budgets {budgets}")
    top = min(integer("d_max", d_max, 1), n)  # d = n never needs more: the logits' rank is <= n
    problems, keys, roots, starts = [], [], [], []
    for trial in range(trials):
        A = frontier_target(seed=seed, target=target, n=n, k=k, R=R, trial=trial)
        for criterion in criteria:
            ez = criterion_eps_zero(criterion, n, eps_zero, mass_eps)
            gamma = math.log(1 / ez)
            for b in budgets:
                radius = math.sqrt(b * gamma)
                problems.append(Problem(A, radius, radius, ez))
                keys.append((trial, criterion, ez, gamma, b))
                roots.append(int(generator(seed, f"{STAGE}.frontier.start", n=n, k=k,
                                           trial=trial, criterion=criterion, budget=b)
                                 .integers(0, 2**63)))
                starts.append(min(d_start, top))

    def line(p: int, a: Attempt) -> None:
        if log is not None:
            trial, criterion, _, _, b = keys[p]
            log.info("n=%d k=%d trial %d %s Lam/gamma=%g: d=%d %s after %d steps (slack %.3g)",
                     n, k, trial, criterion, b, a.d, "meets the criterion" if a.ok else "fails",
                     a.steps, a.slack)

    scans = smallest_d_batch(problems, eps_ratio=eps_ratio, roots=roots, d_start=starts,
                             d_max=top, resolution=resolution, coarse=coarse, restarts=restarts,
                             steps=steps, lr=lr, margin=margin, check_every=check_every,
                             patience=patience, device=device, progress=line)
    rows = []
    for (trial, criterion, ez, gamma, b), prob, scan in zip(keys, problems, scans, strict=True):
        best = scan.best
        lam = prob.radius_q * prob.radius_k
        bounds = lower_bound(prob.target, lam, ez)
        m = bounds["sub_identity_rows"]
        rows.append({
            "kind": target, "n": n, "k": k, "trial": trial, "criterion": criterion,
            "eps_zero": ez, "gamma": gamma, "budget": b, "logit_bound": lam,
            "radius_q": prob.radius_q, "radius_k": prob.radius_k,
            "d_opt": scan.d_opt, "opt_found": best is not None,
            "slice": b == slice_budget, "d_first": int(scan.grid[0]),
            "d_max": int(scan.grid[-1]), "d_tried": len(scan.tried),
            "largest_failed_d": scan.largest_failed_d,
            "opt_slack": best.slack if best else math.nan,
            "opt_steps": best.steps if best else math.nan,
            "steps_total": int(sum(a.steps for a in scan.attempts)),
            "opt_norm_q": float(np.linalg.norm(best.X1, axis=1).max()) if best else math.nan,
            "opt_norm_k": float(np.linalg.norm(best.X2, axis=1).max()) if best else math.nan,
            "rounding_tol": best.rounding_tol if best else math.nan,
            "precision": "float64" if best else f"not found up to d = {top}",
            **bounds, "packing_curve": math.log(m) / math.log1p(2 * b) if m > 1 else 1.0,
            "normalised": scan.d_opt * math.log1p(2 * b) / math.log(n),
            "device": device,
        })
    return pd.DataFrame(rows)


def unbounded_table(*, n: list[int], k: list[int], moment_k: list[int], trials: int, criteria,
                    seed: int, target: str, R: float, eps_ratio: float, eps_zero: float,
                    mass_eps: float, scale_margin: float,
                    log: logging.Logger | None = None) -> pd.DataFrame:
    """The unbounded constructions on the frontier's targets, at every n of ``n``, trial and
    criterion: the circle (d = 2, ``norm_bounds.circle_check``) on the permutations when 1 is in
    ``k``, and the moment curve (d = 2k, ``moment_curve.moment_check``) on the targets of every
    ``moment_k``, each at its smallest scale that meets the criterion times ``1 + scale_margin``
    and at a tenth of it. ``budget_needed`` is the construction's norm product over gamma: the
    smallest budget Lam / gamma at which it is a feasible point of the frontier's problem."""
    check_tolerances(eps_ratio, eps_zero)
    criteria, trials = _criteria(criteria), integer("trials", trials, 1)
    ks = ([1] if 1 in k else []) + sorted(integer("moment_k", v, 2) for v in moment_k)
    cases = [(n_, k_) for n_ in n for k_ in ks if k_ <= n_]
    if not cases:
        raise ValueError(f"no construction to build: k = {k!r}, moment_k = {moment_k!r} at "
                         f"n = {n!r}")
    progress = Progress(log, "unbounded constructions, (n, k) weighted by n^2 k",
                        sum(n_ * n_ * k_ for n_, k_ in cases)) if log else None
    rows, done = [], 0
    for n_, k_ in cases:
        for trial in range(trials):
            A = frontier_target(seed=seed, target=target, n=n_, k=k_, R=R, trial=trial)
            for criterion in criteria:
                ez = criterion_eps_zero(criterion, n_, eps_zero, mass_eps)
                gamma = math.log(1 / ez)
                rec = (_circle_record if k_ == 1 else _moment_record)(A, eps_ratio, ez,
                                                                      scale_margin)
                rows.append({"kind": target, "n": n_, "k": k_, "trial": trial,
                             "criterion": criterion, "eps_zero": ez, "gamma": gamma, **rec,
                             "budget_needed": rec["logit_bound"] / gamma})
        done += n_ * n_ * k_
        if progress is not None:
            progress.update(done, n=n_, k=k_)
    return pd.DataFrame(rows)


def _circle_record(A: SparseTarget, eps_ratio: float, eps_zero: float, margin: float) -> dict:
    c = circle_check(A, eps_ratio, eps_zero, margin)
    decided = abs(c["circle_slack"]) > rounding_tolerance(2, c["circle_scale"], 1.0)
    return {"construction": "circle", "d": 2, "scale_min": c["circle_scale_min"],
            "scale": c["circle_scale"], "logit_bound": c["circle_logit_bound"],
            "ok": c["circle_ok"], "tenth_ok": c["circle_tenth_ok"], "slack": c["circle_slack"],
            "float64_decided": decided, "float64_ok": c["circle_ok"] and decided,
            "precision": "float64" if decided else "float64 cannot decide"}


def _moment_record(A: SparseTarget, eps_ratio: float, eps_zero: float, margin: float) -> dict:
    c = moment_check(A, eps_ratio, eps_zero, margin)
    return {"construction": "moment curve", "d": c["d"], "scale_min": c["scale_min"],
            "scale": c["scale"], "logit_bound": c["logit_bound"], "ok": c["at_scale_ok"],
            "tenth_ok": c["at_tenth_ok"], "slack": c["at_scale_slack"],
            "float64_decided": c["float64_decided"], "float64_ok": c["float64_ok"],
            "precision": "ball arithmetic; " + ("float64 agrees" if c["float64_decided"]
                                                else "float64 cannot decide")}
