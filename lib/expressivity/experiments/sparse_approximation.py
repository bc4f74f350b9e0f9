"""Which instances the sparse-approximation stage runs: the rows of each job.

Each ``*_table`` function builds the table of one workflow job from the job's wildcards and the
settings of its config section (``sparse_approximation`` in ``config/*.yaml``), all by keyword, and
draws its randomness from ``rng.generator(seed, "sparse_approximation.<job>", **keys)``. The
mathematics is in ``sparse_target``, ``approximation_check``, ``fixed_module``,
``random_projection`` and ``one_pass_search``; the rules call ``search_cost`` to plan resources.
``progress`` receives one plain line per unit of work (the job's log).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

import numpy as np
import pandas as pd

from expressivity.approximation_check import check_logits, logit_values
from expressivity.attention import softmax
from expressivity.fixed_module import (
    Construction,
    coupled_factors,
    fingerprint,
    fixed_weights,
    las_vegas,
)
from expressivity.one_pass_search import d_grid, one_pass_search, search_d_min
from expressivity.random_projection import beta, jl_dimension, jl_error_bound, jl_typical_error
from expressivity.rng import generator
from expressivity.sparse_target import KINDS, SparseTarget, make_target

#: Settings of the d grid and the horizon (the config's ``search`` section).
SEARCH_KEYS = ("d_start", "resolution", "min_step", "horizon_fraction", "horizon_factor",
               "max_extensions", "block")
#: The settings ``vary_table`` varies, one at a time, around the config's (form "row").
VARIED = ("eps_ratio", "eps_zero", "R", "form")

Progress = Callable[[str], None]


def _quiet(line: str) -> None:
    """The default ``progress``: no log."""


def trial_record(target: SparseTarget, rng: np.random.Generator, *, R: float, eps_ratio: float,
                 eps_zero: float, delta: float, search: dict, form: str = "row") -> dict:
    """Search d_min for one target and describe it as one table row.

    The search starts with ``d_max = horizon_fraction * d_JL`` (the bound (*) at the nominal R) and
    extends it (see ``search_d_min``) until ``horizon_factor * d_min <= d_max``.
    """
    missing = [key for key in SEARCH_KEYS if key not in search]
    if missing:
        raise KeyError(f"search settings lack {', '.join(missing)}")
    n, k = target.n, target.k
    d_jl = jl_dimension(n, k, R, eps_ratio, eps_zero, delta)
    d_max = max(search["d_start"], math.ceil(search["horizon_fraction"] * d_jl))
    res = search_d_min(target, rng, eps_ratio, eps_zero, d_max, d_start=search["d_start"],
                       resolution=search["resolution"], min_step=search["min_step"],
                       horizon_factor=search["horizon_factor"],
                       max_extensions=search["max_extensions"], form=form,
                       block=search["block"])
    d_min, d_stable = res.d_min, res.d_stable
    return {
        "n": n, "k": k, "form": form, "R": R, "R_actual": target.ratio,
        "eps_ratio": eps_ratio, "eps_zero": eps_zero, "delta": delta,
        "d_min": d_min, "d_stable": d_stable,
        "row_d_min_median": float(np.nanmedian(res.row_d_min)),
        "d_max": int(res.grid[-1]), "grid_points": len(res.grid), "resolution": search["resolution"],
        "extensions": res.extensions,
        "censored": bool(math.isnan(d_min)),
        "horizon_ok": bool(not math.isnan(d_min)
                           and search["horizon_factor"] * d_min <= res.grid[-1]),
        "d_jl": d_jl, "d_min_over_n": d_min / n,
        "decision_margin": res.decision_margin, "rounding_tol": res.rounding_tol,
        "precision": "float64" if res.decided else "undecided in float64",
        "identity_error": res.meta["identity_error"],
    }


def search_cost(*, n: int, k: int, R: float, eps_ratio: float, eps_zero: float, delta: float,
                horizon_fraction: float) -> tuple[int, float]:
    """Peak bytes and flops of one ``trial_record`` whose horizon is extended once (x1.5): the
    factors hold ``2 n d_max`` doubles, and the passes at d_0 and 1.5 d_0 cost ``2 n^2 d`` each,
    with ``d_0 = horizon_fraction * d_JL``. For planning cluster resources."""
    d_0 = horizon_fraction * jl_dimension(n, k, R, eps_ratio, eps_zero, delta)
    return math.ceil(16 * n * 1.5 * d_0), 2.0 * n * n * 2.5 * d_0


def sweep_target(*, seed: int, target: str, n: int, k: int, R: float,
                 trial: int) -> tuple[SparseTarget, np.random.Generator]:
    """The target of one sweep trial and its generator, left where the search continues drawing
    (the JL check reuses the sweep's targets)."""
    rng = generator(seed, "sparse_approximation.sweep", n=n, k=k, trial=trial)
    return make_target(target, n, k, R, rng), rng


def sweep_table(*, n: int, k: int, seed: int, target: str, R: float, eps_ratio: float,
                eps_zero: float, delta: float, search: dict, trials: int,
                progress: Progress = _quiet) -> pd.DataFrame:
    """d_min of every trial at one (n, k): one row per trial (``trial_record``)."""
    rows = []
    for trial in range(trials):
        start = time.perf_counter()
        A, rng = sweep_target(seed=seed, target=target, n=n, k=k, R=R, trial=trial)
        row = trial_record(A, rng, R=R, eps_ratio=eps_ratio, eps_zero=eps_zero, delta=delta,
                           search=search)
        rows.append({"kind": target, "trial": trial, **row})
        seconds = time.perf_counter() - start
        # each extension redid the pass with a horizon 1.5 times longer
        passes = sum(1.5**-e for e in range(row["extensions"] + 1))
        flops = 2.0 * n * n * row["d_max"] * passes
        progress(f"n={n} k={k} trial={trial}: d_min={row['d_min']} d_max={row['d_max']} "
                 f"extensions={row['extensions']} {seconds:.2f} s, about "
                 f"{flops / seconds / 1e9:.1f} GFLOP/s")
    return pd.DataFrame(rows)


def vary_table(*, varied: str, value, seed: int, target: str, n: int, k: int, trials: int,
               R: float, eps_ratio: float, eps_zero: float, delta: float, search: dict,
               progress: Progress = _quiet) -> pd.DataFrame:
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
        progress(f"{varied}={value} trial={trial}: d_min={row['d_min']}")
    return pd.DataFrame(rows)


def jl_table(*, seed: int, target: str, n: list[int], k: list[int], trials: int, R: float,
             eps_ratio: float, eps_zero: float, delta: float, max_rounds: int,
             progress: Progress = _quiet) -> pd.DataFrame:
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
                         "ok": res.ok, "rounds": res.rounds, "first_draw_ok": res.ok and
                         res.rounds == 1, "min_slack": res.min_slack, "precision": "float64"})
            progress(f"n={n_} k={k_} trial={trial} d={d}: rounds={res.rounds} "
                     f"min slack={res.min_slack:.4f}")
    return pd.DataFrame(rows)


def error_table(*, k: int, seed: int, target: str, n: int, trials: int, R: float,
                eps_ratio: float, eps_zero: float, delta: float, d_start: int, min_step: int,
                block: int, progress: Progress = _quiet) -> pd.DataFrame:
    """The largest logit error max_ij |(X1 X2^T - B)_ij| against d at one k, on a grid of d (10%
    steps from ``d_start``) up to the JL bound (*), in one pass; one row per (trial, d)."""
    d_jl = jl_dimension(n, k, R, eps_ratio, eps_zero, delta)
    grid = d_grid(d_start, d_jl, 0.1, min_step)
    bound_norm = beta(k, R, eps_ratio, eps_zero)
    rows = []
    for trial in range(trials):
        rng = generator(seed, "sparse_approximation.error", k=k, trial=trial)
        A = make_target(target, n, k, R, rng)
        B = logit_values(A, eps_ratio, eps_zero)
        norm = float(np.sqrt((np.where(A.real, B, 0.0) ** 2).sum(axis=1)).max())
        QT, KT = coupled_factors(A, B, rng, int(grid[-1]))
        res = one_pass_search(A, QT, KT, grid, eps_ratio, eps_zero, block, B=B)
        for d, e, s in zip(res.grid, res.max_error, res.slack, strict=True):
            rows.append({"n": n, "k": k, "trial": trial, "d": int(d), "max_logit_error": e,
                         "min_slack": s, "works": bool(s >= 0), "row_norm_max": norm,
                         "jl_bound_error": jl_error_bound(n, d, bound_norm, delta),
                         "jl_typical_error": jl_typical_error(n, d, norm),
                         "sufficient_error": eps_ratio / 2, "d_jl": d_jl, "precision": "float64"})
        progress(f"k={k} trial={trial}: {len(res.grid)} grid points up to d = {int(grid[-1])}")
    df = pd.DataFrame(rows)
    df["jl_bound_error"] = df["jl_bound_error"].replace(math.inf, np.nan)
    return df


def module_table(*, seed: int, n: int, d: int, k: list[int], trials: int, max_rounds: int,
                 R: float, eps_ratio: float, eps_zero: float,
                 progress: Progress = _quiet) -> pd.DataFrame:
    """One fixed module (W_Q, W_K at dimension d) for targets of every kind and k: per target, the
    Las Vegas input X and the check of X W_Q (X W_K)^T / sqrt(d) through the explicit weights."""
    reference = fingerprint(*fixed_weights(d))
    rows = []
    for kind in KINDS:
        for k_ in k:
            for trial in range(trials):
                rng = generator(seed, "sparse_approximation.module", kind=kind, k=k_, trial=trial)
                A = make_target(kind, n, k_, R, rng)
                res = las_vegas(A, d, eps_ratio, eps_zero, rng, max_rounds)
                row = {"kind": kind, "n": n, "k": k_, "trial": trial, "d": d,
                       "rounds": res.rounds, "found": res.ok, "weights_fingerprint": "",
                       "same_weights": False, "input_fingerprint": "",
                       "min_slack_via_weights": np.nan, "ok_via_weights": False,
                       "precision": "float64"}
                if res.ok:
                    c = res.construction
                    chk = check_logits(A, c.logits(), eps_ratio, eps_zero)  # X W_Q (X W_K)^T / sqrt d
                    fp = fingerprint(*c.weights)
                    row.update(weights_fingerprint=fp, same_weights=fp == reference,
                               input_fingerprint=fingerprint(c.X),
                               min_slack_via_weights=float(chk.slack.min()), ok_via_weights=chk.ok)
                rows.append(row)
                progress(f"{kind} k={k_} trial={trial}: rounds={res.rounds} "
                         f"ok={row['ok_via_weights']}")
    return pd.DataFrame(rows)


def example_table(*, seed: int, target: str, n: int, k: int, R: float, eps_ratio: float,
                  eps_zero: float, delta: float, search: dict,
                  progress: Progress = _quiet) -> pd.DataFrame:
    """The heatmap example (a numeric Figure 2): A, row-normalised exp(B) and the attention of the
    fixed module at the target's d_min, one row per entry (i, j)."""
    rng = generator(seed, "sparse_approximation.example", n=n, k=k)
    A = make_target(target, n, k, R, rng)
    state = rng.bit_generator.state
    row = trial_record(A, rng, R=R, eps_ratio=eps_ratio, eps_zero=eps_zero, delta=delta,
                       search=search)
    d_min = int(row["d_min"])
    rng.bit_generator.state = state  # the same G prefix as the search
    B = logit_values(A, eps_ratio, eps_zero)
    QT, KT = coupled_factors(A, B, rng, d_min)
    logits = Construction(QT, KT, d_min, "row").logits()
    ok = check_logits(A, logits, eps_ratio, eps_zero).ok
    progress(f"n={n} k={k}: d_min={d_min}, ok={ok}")
    i, j = np.indices((n, n))
    return pd.DataFrame({
        "i": i.ravel(), "j": j.ravel(), "A": A.to_dense().ravel(),
        "expB_rownorm": softmax(A.to_dense(B)).ravel(), "attention": softmax(logits).ravel(),
        "d": d_min, "k": k, "ok": ok, "precision": "float64",
    })
