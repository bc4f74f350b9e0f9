"""Unit tests: the rows of the sparse-approximation jobs (expressivity.experiments), at the sizes of
config/ci.yaml (tests/cases.py), and the benchmark that times the same functions."""

import logging
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from cases import (
    SA_ERROR,
    SA_EXAMPLE,
    SA_MASS,
    SA_MASS_POINTS,
    SA_MODELS,
    SA_SWEEP,
    SA_SWEEP_POINTS,
    SA_VARY,
)

from expressivity.experiments.sparse_approximation.construction import example_table
from expressivity.experiments.sparse_approximation.cost import (
    START_SECONDS,
    chunk_cost,
    planned_d_min,
    series_trial_work,
    trial_work,
)
from expressivity.experiments.sparse_approximation.models import models_tables
from expressivity.experiments.sparse_approximation.searches import (
    error_table,
    mass_table,
    sweep_table,
    trial_chunks,
    vary_table,
)


@pytest.fixture(scope="module")
def sweep():
    """The sweep of config/ci.yaml: every trial at every (n, k)."""
    return pd.concat([sweep_table(n=n, k=k, first=0, trials=t, **SA_SWEEP)
                      for n, k, t in SA_SWEEP_POINTS], ignore_index=True)


@pytest.fixture(scope="module")
def mass():
    return pd.concat([mass_table(n=n, k=k, first=0, trials=t, **SA_MASS)
                      for n, k, t in SA_MASS_POINTS], ignore_index=True)


def test_sweep_rows_describe_each_trial(sweep):
    n, k, t = SA_SWEEP_POINTS[0]
    df = sweep[(sweep["n"] == n) & (sweep["k"] == k)]
    assert list(df["trial"]) == list(range(t)) and (df["kind"] == SA_SWEEP["target"]).all()
    assert (sweep["d_min"] <= sweep["d_stable"]).all()
    assert (sweep["d_stable"] <= sweep["d_max"]).all() and sweep["horizon_ok"].all()
    assert (sweep["d_min_over_n"] == sweep["d_min"] / sweep["n"]).all()
    assert np.allclose(sweep["d_min_over_pred"], sweep["d_min"] / sweep["d_pred"])
    assert ((sweep["off_mass_mean"] > 0) & (sweep["off_mass_mean"] <= sweep["off_mass_max"])).all()
    assert (sweep["tv_mean"] >= 0.5 * sweep["off_mass_mean"]).all()
    assert (sweep["device"] == "cpu").all()


def test_a_chunk_of_trials_equals_the_same_rows_of_the_whole(sweep):
    """Trials are seeded by their index: trials 2..3 of a job are rows 2..3 of the whole sweep."""
    n, k, _ = SA_SWEEP_POINTS[1]
    part = sweep_table(n=n, k=k, first=2, trials=2, **SA_SWEEP)
    whole = sweep[(sweep["n"] == n) & (sweep["k"] == k)].iloc[2:4].reset_index(drop=True)
    pd.testing.assert_frame_equal(part, whole)


def test_trial_chunks_fit_the_job_limit():
    assert trial_chunks(5, 10.0, 1.0) == [(0, 4)]
    assert trial_chunks(5, 1500.0, 1.0) == [(0, 1), (2, 3), (4, 4)]
    assert trial_chunks(3, 10 * 3600.0, 1.0) == [(0, 0), (1, 1), (2, 2)]  # one trial a job
    with pytest.raises(ValueError):
        trial_chunks(0, 1.0, 1.0)


def test_mass_calibrated_rows_bound_the_mass_and_pair_with_the_sweep(mass, sweep):
    assert (mass["eps_zero"] == mass["eps_mass"] / mass["n"]).all()
    assert (mass["off_mass_max"] < mass["eps_mass"]).all()
    both = mass.merge(sweep, on=["n", "k", "trial"], suffixes=("", "_sweep"))
    assert len(both) > 0 and (both["R_actual"] == both["R_actual_sweep"]).all()
    assert (both["d_min"] > both["d_min_sweep"]).all()  # a mass bound costs d


def test_models_tables_describe_both_series(sweep, mass):
    tables = models_tables(sweep=sweep, mass=mass, **SA_MODELS)
    assert set(tables) == {"out_of_sample", "model_comparison", "flatness", "local_slopes",
                           "crossover", "medians"}
    comp = tables["model_comparison"]
    assert set(comp["model"]) == {"log", "power", "log_power"}
    assert ((comp["mean_error_lo"] <= comp["mean_error"] + 1e-12)
            | (comp["mean_error"] <= comp["mean_error_hi"] + 1e-12)).all()
    assert set(tables["flatness"]["by"]) == {"prediction", "ln n", "per-entry"}
    assert set(tables["medians"]["series"]) == {"per-entry", "mass-calibrated"}
    med = tables["medians"]
    assert (med["d_min_lo"] <= med["d_min"]).all() and (med["d_min"] <= med["d_min_hi"]).all()
    again = models_tables(sweep=sweep, mass=mass, **SA_MODELS)
    for name, table in tables.items():  # same inputs, same bytes
        pd.testing.assert_frame_equal(table, again[name])


def test_progress_lines_go_to_the_log(caplog):
    n, k, _ = SA_SWEEP_POINTS[0]
    log = logging.getLogger("test_sparse_progress")
    with caplog.at_level(logging.INFO, logger="test_sparse_progress"):
        sweep_table(n=n, k=k, first=0, trials=1, **SA_SWEEP, log=log)
    text = caplog.text
    assert f"rows of 1 trials: {n}/{n} (100%)" in text and "remaining" in text
    assert "trial 0: d_min=" in text


def test_vary_changes_one_setting():
    df = vary_table(varied="form", value="column", **SA_VARY)
    assert (df["form"] == "column").all() and (df["varied"] == "form").all()
    assert (df["R"] == SA_VARY["R"]).all() and (df["eps_ratio"] == SA_VARY["eps_ratio"]).all()
    with pytest.raises(ValueError, match="unknown varied setting 'delta'"):
        vary_table(varied="delta", value=0.5, **SA_VARY)


def test_error_rows_follow_the_grid_up_to_the_jl_bound():
    df = error_table(k=1, **SA_ERROR)
    assert (df["d"] <= df["d_jl"]).all() and df["d"].is_monotonic_increasing
    assert (df["works"] == (df["min_slack"] >= 0)).all()
    assert not np.isinf(df["jl_bound_error"]).any()  # "no eta < 1" is written as a missing value
    first, last = df.iloc[0], df.iloc[-1]
    assert last["max_logit_error"] < first["max_logit_error"]
    # the Gaussian-maximum prediction is within a factor 2 of the measured maximum error
    ratio = df["max_logit_error"] / df["typical_max_error"]
    assert ratio.between(0.5, 2.0).all()


def test_example_is_a_window_of_the_attention_at_d_min():
    df = example_table(**SA_EXAMPLE)
    w = SA_EXAMPLE["window"]
    assert len(df) == w * w and df["ok"].all() and (df["d"] < SA_EXAMPLE["n"]).all()
    # every row is normalised over all n keys: the window holds at most its row's mass
    rows = df.groupby("i")
    assert (rows["attention"].sum() <= 1 + 1e-12).all()
    # a band's support lies in the window but for the last row's last key
    assert np.allclose(rows["A_rownorm"].sum().iloc[:-1], 1.0)
    off_in_window = df[df["A_rownorm"] == 0].groupby("i")["attention"].sum()
    assert (off_in_window <= rows["row_off_mass"].first() + 1e-12).all()
    with pytest.raises(ValueError, match="window"):
        example_table(**{**SA_EXAMPLE, "window": SA_EXAMPLE["n"] + 1})


def test_the_cost_model_plans_the_passes_a_trial_makes():
    """A trial's planned work: one pass when the first horizon holds 1.1 d_min (planned_d_min),
    one more at 1.5 times the horizon when it does not; 2 n^2 d flops a pass; on a GPU the same
    products at the GPU's rate after its start; no GPU plan without rates."""
    s = {key: SA_SWEEP[key] for key in ("R", "eps_ratio", "eps_zero", "delta", "search",
                                        "mass_rows", "target")}
    n, k, _ = SA_SWEEP_POINTS[-1]
    roomy = trial_work(n=n, k=k, horizon_fraction=1.0, **s)
    short = trial_work(n=n, k=k, horizon_fraction=0.01, **s)
    d_min = planned_d_min(n=n, k=k, **{key: s[key] for key in ("R", "eps_ratio", "eps_zero")})
    assert len(roomy.horizons) == 1 and roomy.horizons[0] >= 1.1 * d_min
    assert len(short.horizons) > 1 and short.horizons[-2] < 1.1 * d_min
    assert short.search_flops == 2.0 * n * n * sum(short.horizons)
    rates = {"gpu_job_start_s": 10.0, "sweep_trial_fixed_s": 0.05, "search_kernel_flops": 1e13}
    cfg = {**SA_SWEEP, "mass": {"eps": 0.1, "horizon_fraction": 0.25}}
    cpu, nbytes, gpu = chunk_cost(cfg, "sweep", n, k, 3, rates)
    assert cpu == pytest.approx(START_SECONDS + 3 * series_trial_work(cfg, "sweep", n, k).cpu_seconds())
    assert gpu == pytest.approx(10.0 + 3 * series_trial_work(cfg, "sweep", n, k).gpu_seconds(rates))
    assert nbytes > 16 * n * roomy.horizons[0] // 10 and chunk_cost(cfg, "sweep", n, k, 3)[2] is None
    with pytest.raises(ValueError, match="unknown series"):
        series_trial_work(cfg, "sweeps", n, k)


def test_the_benchmark_runs_and_reports_every_ratio():
    """benchmarks/sparse_approximation.py at a small n: it runs and prints each comparison (the
    ratios themselves are measurements, never asserted)."""
    script = Path(__file__).parents[2] / "benchmarks" / "sparse_approximation.py"
    out = subprocess.run([sys.executable, str(script), "--n", "128", "--k", "2"], check=True,
                         capture_output=True, text=True).stdout
    for line in ("ratio search / plain matmul", "bisection up to d_JL", "oracle horizon",
                 "torch search on cpu"):
        assert line in out
