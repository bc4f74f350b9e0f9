"""The searches of the sparse stage (expressivity.experiments.sparse_approximation.searches): sweep,
mass-calibrated, vary, JL and logit-error rows at the sizes of config/ci.yaml, and the benchmark
that times the same functions."""

import logging
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from cases import (
    ROOT,
    SA_ERROR,
    SA_SWEEP,
    SA_SWEEP_POINTS,
    SA_VARY,
)

from expressivity.experiments.sparse_approximation.searches import (
    error_table,
    sweep_table,
    vary_table,
)


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


def test_mass_calibrated_rows_bound_the_mass_and_pair_with_the_sweep(mass, sweep):
    assert (mass["eps_zero"] == mass["eps_mass"] / mass["n"]).all()
    assert (mass["off_mass_max"] < mass["eps_mass"]).all()
    both = mass.merge(sweep, on=["n", "k", "trial"], suffixes=("", "_sweep"))
    assert len(both) > 0 and (both["R_actual"] == both["R_actual_sweep"]).all()
    assert (both["d_min"] > both["d_min_sweep"]).all()  # a mass bound costs d


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


def test_the_benchmark_runs_and_reports_every_ratio():
    """benchmarks/sparse_approximation.py at a small n: it runs and prints each comparison (the
    ratios themselves are measurements, never asserted)."""
    script = ROOT / "benchmarks" / "sparse_approximation.py"
    out = subprocess.run([sys.executable, str(script), "--n", "128", "--k", "2"], check=True,
                         capture_output=True, text=True).stdout
    for line in ("ratio search / plain matmul", "bisection up to d_JL", "oracle horizon",
                 "torch search on cpu"):
        assert line in out
