"""What the sweeps' d_min say about the growth in n: the tables the d = O(log n) claims read.

From the sweep (per-entry criterion) and the mass-calibrated sweep, for each k and each of d_min
and d_stable:

* ``out_of_sample_tables``: the three growth models (``growth_models``) fitted to the lower part of
  the n range, to the medians and to every trial, and their relative errors at the upper n, with
  bootstrap intervals over trials (``out_of_sample``, one row per upper n) and summaries
  (``model_comparison``: mean and RMS error, and in what fraction of the resamples each model's
  RMS error is below each other model's, ``beats_<model>``);
* ``flatness_table``: the slope, against ln n, of d divided by the exact-rule reference d_ref
  (``d_min_reference``, on the search's grid; or by ln n), relative to its mean, with the interval
  of ``expressivity.fit.line_fit`` and the equivalence margin (the drift a factor (ln n)^(1/2)
  would add over the same n);
* ``local_slope_table``: local log-log slopes of the medians with bootstrap intervals and the
  references 1 / ln n, the log model's b / (a + b ln n) and the reference's own slope;
* ``medians_table``: the medians per (k, n) with bootstrap intervals, for the figures;
* ``crossover_table``: n* where the median d_min falls below n, and the JL bound over n.

Intervals are at the family level ``level`` over the k of a series (Bonferroni: each at
1 - (1 - level) / #k).
"""

from __future__ import annotations

import logging
import math

import numpy as np
import pandas as pd

from expressivity.fit import line_fit
from expressivity.growth_models import (
    FITS_ON,
    MARGIN_EXPONENT,
    MODELS,
    QUANTITIES,
    bootstrap_errors,
    crossover,
    crossover_interval,
    drift,
    fit_growth,
    local_slopes,
    medians,
    prediction_errors,
    resamples_of,
    rms,
    split,
    usable,
)
from expressivity.rng import generator


def _each_level(level: float, ks) -> float:
    """The level of each of the intervals of the k in ``ks`` (Bonferroni)."""
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")
    return 1 - (1 - level) / max(1, len(ks))


def _left_censored(df: pd.DataFrame, quantity: str) -> int:
    """Trials whose ``quantity`` sits at the search's first grid point (``d_start``): an upper
    bound, not a measurement."""
    return int((df[quantity].to_numpy(dtype=float) == df["d_start"].to_numpy(dtype=float)).sum())


def out_of_sample_tables(sweep: pd.DataFrame, *, seed: int, series: str, resamples: int,
                         level: float) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(``out_of_sample``, ``model_comparison``) of one series (a sweep table)."""
    ks = sorted(sweep["k"].unique())
    each = _each_level(level, ks)
    tail = 100 * (1 - each) / 2
    per_n, summary = [], []
    for k in ks:
        for quantity in QUANTITIES:
            df = usable(sweep[sweep["k"] == k], quantity)
            n, d = df["n"].to_numpy(), df[quantity].to_numpy(dtype=float)
            if len(np.unique(n)) < 4:
                continue
            lower, upper = split(n)
            target = medians(n, d, upper)
            for fit_on in FITS_ON:
                rng = generator(seed, "sparse_approximation.models", series=series, k=k,
                                quantity=quantity, fit_on=fit_on)
                point = prediction_errors(n, d, fit_on)
                x, y = (lower, medians(n, d, lower)) if fit_on == "median" else (
                    n[n <= lower[-1]], d[n <= lower[-1]])
                boot = bootstrap_errors(n, d, fit_on, rng, resamples)
                boot_rms = {m: rms(boot[m]) for m in MODELS}
                for m in MODELS:
                    lo, hi = np.percentile(boot[m], [tail, 100 - tail], axis=0)
                    for i, n_up in enumerate(upper):
                        per_n.append({
                            "series": series, "k": k, "quantity": quantity, "fit_on": fit_on,
                            "model": m, "n": int(n_up), "fit_n_max": int(lower[-1]),
                            "median": target[i], "prediction": target[i] * (1 + point[m][i]),
                            "rel_error": point[m][i], "rel_error_lo": lo[i],
                            "rel_error_hi": hi[i], "level": each})
                    others = [o for o in MODELS if o != m]
                    mean_boot = boot[m].mean(axis=1)
                    line = fit_growth(m, x, y).fit
                    summary.append({
                        "series": series, "k": k, "quantity": quantity, "fit_on": fit_on,
                        "model": m, "intercept": line.intercept, "slope": line.slope,
                        "fit_n_max": int(lower[-1]), "upper_n": len(upper),
                        "mean_error": float(point[m].mean()),
                        "mean_error_lo": float(np.percentile(mean_boot, tail)),
                        "mean_error_hi": float(np.percentile(mean_boot, 100 - tail)),
                        "rms_error": float(rms(point[m])),
                        "rms_error_lo": float(np.percentile(boot_rms[m], tail)),
                        "rms_error_hi": float(np.percentile(boot_rms[m], 100 - tail)),
                        "best_fraction": float(np.mean(np.all(
                            [boot_rms[m] < boot_rms[o] for o in others], axis=0))),
                        **{f"beats_{o}": float(np.mean(boot_rms[m] < boot_rms[o]))
                           if o != m else math.nan for o in MODELS},
                        "resamples": resamples, "level": each,
                        "left_censored": _left_censored(df, quantity)})
    return pd.DataFrame(per_n), pd.DataFrame(summary)


def medians_table(sweep: pd.DataFrame, *, seed: int, series: str, resamples: int,
                  level: float) -> pd.DataFrame:
    """Per (k, n): the median of d_min, d_stable, their ratios to the exact-rule reference d_ref,
    the reference itself, the max-error prediction d_pred, the off-support mass and the row total
    variation, each with a bootstrap interval over the trials (family level over k), and the
    number of trials."""
    ks = sorted(sweep["k"].unique())
    tail = 100 * (1 - _each_level(level, ks)) / 2
    columns = ["d_min", "d_stable", "d_min_over_ref", "d_stable_over_ref", "d_ref", "d_pred",
               "off_mass_mean", "tv_mean", "d_min_over_n"]
    rows = []
    for (k, n), df in sweep.groupby(["k", "n"]):
        rng = generator(seed, "sparse_approximation.medians", series=series, k=k, n=n)
        row = {"series": series, "k": k, "n": n, "trials": len(df)}
        for c in columns:
            v = df[c].to_numpy(dtype=float)
            v = v[np.isfinite(v)]
            boot = np.median(rng.choice(v, size=(resamples, v.size)), axis=1) if v.size else []
            row[c] = float(np.median(v)) if v.size else math.nan
            row[f"{c}_lo"], row[f"{c}_hi"] = (np.percentile(boot, [tail, 100 - tail])
                                              if v.size else (math.nan, math.nan))
        rows.append(row)
    return pd.DataFrame(rows)


def flatness_table(sweep: pd.DataFrame, *, series: str, level: float) -> pd.DataFrame:
    """Slope against ln n of d / d_ref (``by = "exact rule"``), of d / ln n (``"ln n"``) and, where
    the table has a column ``<quantity>_per_entry``, of d over that paired value (``"per-entry"``),
    each divided by its mean (a relative slope: 0.1 = 10% per unit of ln n), on the medians per n
    and on every trial, with the equivalence ``margin`` (``MARGIN_EXPONENT``) over the same n."""
    ks = sorted(sweep["k"].unique())
    each = _each_level(level, ks)
    rows = []
    for k in ks:
        for quantity in QUANTITIES:
            df = usable(sweep[sweep["k"] == k], quantity)
            n = df["n"].to_numpy(dtype=float)
            if len(np.unique(n)) < 3:
                continue
            d = df[quantity].to_numpy(dtype=float)
            ratios = [("exact rule", d / df["d_ref"].to_numpy(dtype=float)),
                      ("ln n", d / np.log(n))]
            if f"{quantity}_per_entry" in df:
                paired = d / df[f"{quantity}_per_entry"].to_numpy(dtype=float)
                keep = np.isfinite(paired)
                if len(np.unique(n[keep])) >= 3:
                    ratios.append(("per-entry", paired))
            for by, ratio in ratios:
                keep = np.isfinite(ratio)
                n_by, ratio = n[keep], ratio[keep]
                for fit_on in FITS_ON:
                    x, y = (np.log(n_by), ratio) if fit_on == "all" else (
                        np.log(np.unique(n_by)), medians(n_by, ratio, np.unique(n_by)))
                    fit = line_fit(x, y / y.mean())
                    lo, hi = fit.slope_interval(each)
                    rows.append({"series": series, "k": k, "quantity": quantity, "by": by,
                                 "fit_on": fit_on, "points": fit.n, "mean_ratio": y.mean(),
                                 "margin": drift(np.exp(x), MARGIN_EXPONENT),
                                 "rel_intercept": fit.intercept,
                                 "rel_slope": fit.slope, "rel_slope_se": fit.slope_se,
                                 "rel_slope_lo": lo, "rel_slope_hi": hi, "level": each,
                                 "n_min": int(n_by.min()), "n_max": int(n_by.max()),
                                 "left_censored": _left_censored(df, quantity)})
    return pd.DataFrame(rows)


def local_slope_table(sweep: pd.DataFrame, *, seed: int, series: str, resamples: int,
                      level: float) -> pd.DataFrame:
    """Local log-log slopes of the median d_min and d_stable between consecutive n, with
    bootstrap intervals and three references at the same n: 1 / ln n, the log model fitted to
    every n (b / (a + b ln n)) and the slope of the exact-rule reference d_ref."""
    ks = sorted(sweep["k"].unique())
    each = _each_level(level, ks)
    tail = 100 * (1 - each) / 2
    rows = []
    for k in ks:
        for quantity in QUANTITIES:
            df = usable(sweep[sweep["k"] == k], quantity)
            n, d = df["n"].to_numpy(), df[quantity].to_numpy(dtype=float)
            ns = np.unique(n)
            if len(ns) < 3:
                continue
            mid, slope = local_slopes(ns, medians(n, d, ns))
            rng = generator(seed, "sparse_approximation.local_slopes", series=series, k=k,
                            quantity=quantity)
            D = resamples_of(n, d, rng, resamples)
            boot = np.diff(np.log(np.stack([np.median(D[:, n == v], axis=1) for v in ns],
                                           axis=1)), axis=1) / np.diff(np.log(ns))
            lo, hi = np.percentile(boot, [tail, 100 - tail], axis=0)
            log_fit = fit_growth("log", n, d).fit
            _, ref_slope = local_slopes(ns, medians(n, df["d_ref"].to_numpy(dtype=float), ns))
            for i, m in enumerate(mid):
                rows.append({"series": series, "k": k, "quantity": quantity, "n_mid": m,
                             "slope": slope[i], "slope_lo": lo[i], "slope_hi": hi[i],
                             "inverse_ln_n": 1 / math.log(m),
                             "log_model_slope": log_fit.slope / (log_fit.intercept
                                                                 + log_fit.slope * math.log(m)),
                             "reference_slope": ref_slope[i], "level": each})
    return pd.DataFrame(rows)


def crossover_table(sweep: pd.DataFrame, *, seed: int, resamples: int,
                    level: float) -> pd.DataFrame:
    """Per k: n* where the median d_min falls below n (bootstrap interval over trials; NaN when
    it does not within the sweep), the reference's own n* (where d_ref falls below n, NaN when it
    does not), the median d_min / n at the largest n, and the JL bound (*) over n at the smallest
    and the largest n. ``sweep`` carries the reference (``with_reference``)."""
    ks = sorted(sweep["k"].unique())
    each = _each_level(level, ks)
    rows = []
    for k in ks:
        df = usable(sweep[sweep["k"] == k], "d_min")
        n, d = df["n"].to_numpy(), df["d_min"].to_numpy(dtype=float)
        ns = np.unique(n)
        rng = generator(seed, "sparse_approximation.crossover", k=k)
        star, lo, hi = crossover_interval(n, d, rng, resamples, each)
        ref = df.groupby("n")["d_ref"].first()
        jl = df.groupby("n")["d_jl"].first()
        rows.append({"k": k, "n_star": float(star), "n_star_lo": float(lo),
                     "n_star_hi": float(hi),
                     "n_star_ref": crossover(ref.index.to_numpy(), ref.to_numpy() / ref.index),
                     "n_min": int(ns[0]), "n_max": int(ns[-1]),
                     "d_min_over_n_at_n_max": float(np.median(d[n == ns[-1]]) / ns[-1]),
                     "jl_over_n_at_n_min": float(jl.iloc[0] / jl.index[0]),
                     "jl_over_n_at_n_max": float(jl.iloc[-1] / jl.index[-1]),
                     "resamples": resamples, "level": each})
    return pd.DataFrame(rows)


def with_reference(df: pd.DataFrame, reference: pd.DataFrame, series: str) -> pd.DataFrame:
    """``df`` (a sweep-like table) with the exact-rule reference of ``series`` at its (n, k):
    ``d_ref`` (on the search's grid) and the ratios ``<quantity>_over_ref``."""
    ref = reference[reference["series"] == series][["n", "k", "d_ref_grid"]]
    out = df.merge(ref.rename(columns={"d_ref_grid": "d_ref"}), on=["n", "k"], how="left")
    missing = out[out["d_ref"].isna()][["n", "k"]].drop_duplicates()
    if len(out) and len(missing):
        raise ValueError(f"the reference table has no {series} row at (n, k) = "
                         f"{tuple(int(v) for v in missing.iloc[0])}")
    for q in QUANTITIES:
        out[f"{q}_over_ref"] = out[q] / out["d_ref"]
    return out


def models_tables(*, sweep: pd.DataFrame, mass: pd.DataFrame, reference: pd.DataFrame, seed: int,
                  resamples: int, level: float,
                  log: logging.Logger | None = None) -> dict[str, pd.DataFrame]:
    """Every table of the ``sa_models`` job, by name: the out-of-sample comparison and the local
    slopes of the sweep, the ratio to the exact-rule reference of both series, and the crossover
    n* with the reference's own n*."""
    tables: dict[str, list[pd.DataFrame]] = {"out_of_sample": [], "model_comparison": [],
                                             "flatness": [], "local_slopes": [], "medians": []}
    sweep = with_reference(sweep, reference, "per-entry")
    paired = sweep[["n", "k", "trial", *QUANTITIES]].rename(
        columns={q: f"{q}_per_entry" for q in QUANTITIES})
    mass = with_reference(mass, reference, "mass-calibrated").merge(
        paired, on=["n", "k", "trial"], how="left")
    for series, df in (("per-entry", sweep), ("mass-calibrated", mass)):
        per_n, summary = out_of_sample_tables(df, seed=seed, series=series,
                                              resamples=resamples, level=level)
        tables["out_of_sample"].append(per_n)
        tables["model_comparison"].append(summary)
        tables["flatness"].append(flatness_table(df, series=series, level=level))
        tables["medians"].append(medians_table(df, seed=seed, series=series,
                                               resamples=resamples, level=level))
        tables["local_slopes"].append(local_slope_table(df, seed=seed, series=series,
                                                        resamples=resamples, level=level))
        if log is not None:
            log.info("%s: %d trials at %d (n, k) points", series, len(df),
                     df.groupby(["n", "k"]).ngroups)
    out = {name: pd.concat(parts, ignore_index=True) for name, parts in tables.items()}
    out["crossover"] = crossover_table(sweep, seed=seed, resamples=resamples, level=level)
    return out
