"""Jobs that search d_min: the sweep over (n, k) and its mass-calibrated variant, the tolerances
varied one at a time; the construction at the JL bound; the logit error against d.

The mathematics is in ``sparse_target``, ``approximation_check``, ``fixed_module``,
``random_projection``, ``one_pass_search`` (``torch_search`` on a GPU) and ``attention_mass``; the
rules plan the jobs with ``cost`` (seconds, memory, device, trials split into jobs).
"""

from __future__ import annotations

import logging
import math

import numpy as np
import pandas as pd

from expressivity.approximation_check import logit_values
from expressivity.attention_mass import (
    logit_target_mass,
    mass_calibrated_eps_zero,
    sample_rows,
)
from expressivity.d_min_search import factor_mass_at, search_d_min
from expressivity.fixed_module import coupled_factors, las_vegas
from expressivity.joblog import Progress
from expressivity.one_pass_search import d_grid, one_pass_search
from expressivity.random_projection import (
    beta,
    jl_dimension,
    jl_error_bound,
    typical_dimension,
    typical_max_error,
)
from expressivity.rng import generator
from expressivity.sparse_target import SparseTarget, make_target

#: Settings of the d grid and the horizon (the config's ``search`` section).
SEARCH_KEYS = ("d_start", "resolution", "min_step", "horizon_fraction", "horizon_factor",
               "max_extensions", "block")
#: Settings of the optimised-inputs scan (the config's ``optimised`` section, but n, k and trials).
OPTIMISE_KEYS = ("restarts", "d_start", "d_max", "resolution", "steps", "patience",
                 "check_every", "lr", "margin")
#: The settings ``vary_table`` varies, one at a time, around the config's (form "row").
VARIED = ("eps_ratio", "eps_zero", "R", "form")


def row_norms(target: SparseTarget, B: np.ndarray) -> np.ndarray:
    """``||B_i||_2: (n,)`` over each row's genuine support slots."""
    return np.sqrt((np.where(target.real, B, 0.0) ** 2).sum(axis=1))


def trial_record(target: SparseTarget, rng: np.random.Generator, *, R: float, eps_ratio: float,
                 eps_zero: float, delta: float, search: dict, form: str = "row",
                 device: str = "cpu", mass_rows: int = 256, progress=None) -> dict:
    """Search d_min for one target and describe it as one table row.

    The search starts with ``d_max = horizon_fraction * d_JL`` (the bound (*) at the nominal R) and
    extends it (see ``search_d_min``) until ``horizon_factor * d_min <= d_max``. ``censored``: no
    grid d worked (d_min is NaN); ``left_censored``: the first grid point, ``d_start``, already works,
    so d_min is only an upper bound (lower ``search.d_start``). Beside d_min and
    d_stable the row holds the parameter-free prediction ``d_pred`` (``typical_dimension``: the d
    at which the median maximum of the n^2 Gaussian logit errors is eps_ratio / 2) and the
    attention's off-support mass and row total variation at d_min (``attention_mass``) over
    ``mass_rows`` rows spread over the sequence (all rows when n <= mass_rows). The same rows are
    checked at every grid point of the search: ``row_d_min_median`` is the median over them of
    each row's own d (the grid d after its last failure), the same on the CPU and a GPU.
    """
    missing = [key for key in SEARCH_KEYS if key not in search]
    if missing:
        raise KeyError(f"search settings lack {', '.join(missing)}")
    n, k = target.n, target.k
    d_jl = jl_dimension(n, k, R, eps_ratio, eps_zero, delta)
    d_max = max(search["d_start"], math.ceil(search["horizon_fraction"] * d_jl))
    rows = sample_rows(n, mass_rows)
    res = search_d_min(target, rng, eps_ratio, eps_zero, d_max, d_start=search["d_start"],
                       resolution=search["resolution"], min_step=search["min_step"],
                       horizon_factor=search["horizon_factor"],
                       max_extensions=search["max_extensions"], form=form,
                       block=search["block"], device=device, tracked=rows, progress=progress)
    d_min, d_stable = res.d_min, res.d_stable
    B = logit_values(target, eps_ratio, eps_zero)
    d_pred = typical_dimension(row_norms(target, B), n, eps_ratio)
    off, tv = (np.full(1, np.nan),) * 2
    if not math.isnan(d_min):
        off, tv = factor_mass_at(target, res, int(d_min), rows, search["block"])
    return {
        "n": n, "k": k, "form": form, "R": R, "R_actual": target.ratio,
        "eps_ratio": eps_ratio, "eps_zero": eps_zero, "delta": delta,
        "d_min": d_min, "d_stable": d_stable,
        "row_d_min_median": float(np.nanmedian(res.row_d_min)),
        "d_max": int(res.grid[-1]), "grid_points": len(res.grid), "resolution": search["resolution"],
        "extensions": res.extensions,
        "censored": bool(math.isnan(d_min)),
        "d_start": int(res.grid[0]),
        "left_censored": bool(d_min == res.grid[0]),
        "horizon_ok": bool(not math.isnan(d_min)
                           and search["horizon_factor"] * d_min <= res.grid[-1]),
        "d_jl": d_jl, "d_min_over_n": d_min / n, "d_pred": d_pred,
        "d_min_over_pred": d_min / d_pred, "d_stable_over_pred": d_stable / d_pred,
        "off_mass_mean": float(off.mean()), "off_mass_max": float(off.max()),
        "tv_mean": float(tv.mean()), "tv_max": float(tv.max()), "mass_rows": len(rows),
        "expB_off_mass_mean": float(logit_target_mass(target, B).mean()),
        "decision_margin": res.decision_margin, "rounding_tol": res.rounding_tol,
        "precision": "float64" if res.decided else "undecided in float64",
        "identity_error": res.meta["identity_error"], "device": res.meta["device"],
    }


def sweep_points(section: dict) -> list[tuple[int, int, int]]:
    """``(n, k, trials)`` of a sweep-like config section (``sweep``, ``mass``): every n up to the
    ``n_max`` of its k (every n when ``n_max`` is empty), with ``trials`` trials, but at the
    largest n, which take ``trials_at_largest_n`` (aligned with the end of the list of n)."""
    ns = section["n"]
    n_max = section["n_max"] or [max(ns)] * len(section["k"])
    tail = section["trials_at_largest_n"]
    trials = [section["trials"]] * (len(ns) - len(tail)) + list(tail)
    return [(n, k, t) for k, top in zip(section["k"], n_max, strict=True)
            for n, t in zip(ns, trials, strict=True) if n <= top]


def sweep_target(*, seed: int, target: str, n: int, k: int, R: float,
                 trial: int) -> tuple[SparseTarget, np.random.Generator]:
    """The target of one sweep trial and its generator, left where the search continues drawing
    (the JL check and the mass-calibrated sweep reuse the sweep's targets and G)."""
    rng = generator(seed, "sparse_approximation.sweep", n=n, k=k, trial=trial)
    return make_target(target, n, k, R, rng), rng


def _trials(*, n: int, k: int, first: int, trials: int, seed: int, target: str, R: float,
            eps_ratio: float, eps_zero: float, delta: float, search: dict, device: str,
            mass_rows: int, what: str, log: logging.Logger | None) -> list[dict]:
    """``trial_record`` of the sweep's trials ``first .. first + trials - 1`` at (n, k), with
    progress lines in ``log`` (rows searched over all the job's trials, counted by row block)."""
    if first < 0 or trials < 1:
        raise ValueError(f"need first >= 0 and trials >= 1, got first={first}, trials={trials}")
    progress = Progress(log, f"{what}, rows of {trials} trials", trials * n) \
        if log is not None else None
    rows = []
    for t in range(first, first + trials):
        A, rng = sweep_target(seed=seed, target=target, n=n, k=k, R=R, trial=t)

        def blocks(done, total, t=t):
            if progress is not None:
                progress.update((t - first) * total + done)

        row = trial_record(A, rng, R=R, eps_ratio=eps_ratio, eps_zero=eps_zero, delta=delta,
                           search=search, device=device, mass_rows=mass_rows, progress=blocks)
        rows.append({"kind": target, "trial": t, **row})
        if log is not None:
            log.info("%s trial %d: d_min=%s d_stable=%s d_max=%d extensions=%d", what, t,
                     row["d_min"], row["d_stable"], row["d_max"], row["extensions"])
    return rows


def sweep_table(*, n: int, k: int, first: int, trials: int, seed: int, target: str, R: float,
                eps_ratio: float, eps_zero: float, delta: float, search: dict,
                device: str = "cpu", mass_rows: int = 256,
                log: logging.Logger | None = None) -> pd.DataFrame:
    """d_min of the trials ``first .. first + trials - 1`` at one (n, k): one row per trial
    (``trial_record``)."""
    return pd.DataFrame(_trials(n=n, k=k, first=first, trials=trials, seed=seed, target=target,
                                R=R, eps_ratio=eps_ratio, eps_zero=eps_zero, delta=delta,
                                search=search, device=device, mass_rows=mass_rows,
                                what=f"sweep n={n} k={k}", log=log))


def mass_table(*, n: int, k: int, first: int, trials: int, seed: int, target: str, R: float,
               eps_ratio: float, eps: float, horizon_fraction: float, delta: float, search: dict,
               device: str = "cpu", mass_rows: int = 256,
               log: logging.Logger | None = None) -> pd.DataFrame:
    """The mass-calibrated variant: d_min with ``eps_zero = eps / n`` (off-support mass < eps) on
    the sweep's own targets and projections (trial for trial), one row per trial; the search's
    first horizon is ``horizon_fraction`` times the variant's own JL bound."""
    eps_zero = mass_calibrated_eps_zero(eps, n)
    rows = _trials(n=n, k=k, first=first, trials=trials, seed=seed, target=target, R=R,
                   eps_ratio=eps_ratio, eps_zero=eps_zero, delta=delta,
                   search={**search, "horizon_fraction": horizon_fraction},
                   device=device, mass_rows=mass_rows, what=f"mass n={n} k={k}", log=log)
    return pd.DataFrame([{"eps_mass": eps, **row} for row in rows])


def vary_table(*, varied: str, value, seed: int, target: str, n: int, k: int, trials: int,
               R: float, eps_ratio: float, eps_zero: float, delta: float, search: dict,
               log: logging.Logger | None = None) -> pd.DataFrame:
    """d_min at one (n, k) with one setting (``varied``, one of ``VARIED``) set to ``value`` and the
    others at the config's (``R``, ``eps_ratio``, ``eps_zero``; form "row"): one row per trial."""
    if varied not in VARIED:
        raise ValueError(f"unknown varied setting {varied!r}; settings are {', '.join(VARIED)}")
    s = {"eps_ratio": eps_ratio, "eps_zero": eps_zero, "R": R, "form": "row", varied: value}
    rows = []
    for trial in range(trials):
        rng = generator(seed, "sparse_approximation.vary", varied=varied, value=value, trial=trial)
        A = make_target(target, n, k, s["R"], rng)
        row = trial_record(A, rng, R=s["R"], eps_ratio=s["eps_ratio"], eps_zero=s["eps_zero"],
                           delta=delta, search=search, form=s["form"])
        rows.append({"varied": varied, "kind": target, "trial": trial, **row})
        if log is not None:
            log.info("%s=%s trial %d: d_min=%s", varied, value, trial, row["d_min"])
    return pd.DataFrame(rows)


def jl_table(*, seed: int, target: str, n: list[int], k: list[int], trials: int, R: float,
             eps_ratio: float, eps_zero: float, delta: float, max_rounds: int,
             log: logging.Logger | None = None) -> pd.DataFrame:
    """The construction at d = the JL bound (*) on the sweep's targets (every n, k, trial), with
    its Las Vegas rounds.

    The bound is taken with failure probability delta / (number of trials), so that by the union
    bound all trials succeed at the first draw with probability >= 1 - delta.
    """
    checks = [(n_, k_) for k_ in k for n_ in n]
    delta_each = delta / (len(checks) * trials)
    rows = []
    for n_, k_ in checks:
        d = jl_dimension(n_, k_, R, eps_ratio, eps_zero, delta_each)
        for trial in range(trials):
            A, _ = sweep_target(seed=seed, target=target, n=n_, k=k_, R=R, trial=trial)
            rng = generator(seed, "sparse_approximation.jl", n=n_, k=k_, trial=trial)
            res = las_vegas(A, d, eps_ratio, eps_zero, rng, max_rounds, build=False)
            rows.append({"n": n_, "k": k_, "trial": trial, "d": d, "delta_each": delta_each,
                         "d_over_n": d / n_, "ok": res.ok, "rounds": res.rounds,
                         "first_draw_ok": res.ok and res.rounds == 1,
                         "min_slack": res.min_slack, "precision": "float64"})
            if log is not None:
                log.info("n=%d k=%d trial %d d=%d: rounds=%d min slack=%.4f", n_, k_, trial, d,
                         res.rounds, res.min_slack)
    return pd.DataFrame(rows)


def error_table(*, k: int, seed: int, target: str, n: int, trials: int, R: float,
                eps_ratio: float, eps_zero: float, delta: float, d_start: int, min_step: int,
                block: int, log: logging.Logger | None = None) -> pd.DataFrame:
    """The largest logit error max_ij |(X1 X2^T - B)_ij| against d at one k, on a grid of d (10%
    steps from ``d_start``) up to the JL bound (*), in one pass; one row per (trial, d), with the
    Gaussian-maximum prediction (``typical_max_error``) and the bound's guarantee."""
    d_jl = jl_dimension(n, k, R, eps_ratio, eps_zero, delta)
    grid = d_grid(d_start, d_jl, 0.1, min_step)
    bound_norm = beta(k, R, eps_ratio, eps_zero)
    rows = []
    for trial in range(trials):
        rng = generator(seed, "sparse_approximation.error", k=k, trial=trial)
        A = make_target(target, n, k, R, rng)
        B = logit_values(A, eps_ratio, eps_zero)
        norms = row_norms(A, B)
        QT, KT = coupled_factors(A, B, rng, int(grid[-1]))
        res = one_pass_search(A, QT, KT, grid, eps_ratio, eps_zero, block, B=B)
        for d, e, s in zip(res.grid, res.max_error, res.slack, strict=True):
            rows.append({"n": n, "k": k, "trial": trial, "d": int(d), "max_logit_error": e,
                         "min_slack": s, "works": bool(s >= 0), "row_norm_max": norms.max(),
                         "jl_bound_error": jl_error_bound(n, d, bound_norm, delta),
                         "typical_max_error": typical_max_error(norms, n, d),
                         "sufficient_error": eps_ratio / 2, "d_jl": d_jl, "precision": "float64"})
        if log is not None:
            log.info("k=%d trial %d: %d grid points up to d = %d", k, trial, len(res.grid),
                     int(grid[-1]))
    df = pd.DataFrame(rows)
    df["jl_bound_error"] = df["jl_bound_error"].replace(math.inf, np.nan)
    return df
