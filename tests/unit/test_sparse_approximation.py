"""Unit tests: the rows of the sparse-approximation jobs (expressivity.experiments), at the sizes of
config/ci.yaml (tests/cases.py), and the benchmark that times the same functions."""

import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from cases import SA_ERROR, SA_EXAMPLE, SA_SWEEP, SA_SWEEP_POINTS, SA_VARY

from expressivity.experiments.sparse_approximation import (
    error_table,
    example_table,
    search_cost,
    sweep_table,
    vary_table,
)
from expressivity.random_projection import jl_dimension


def test_sweep_rows_describe_each_trial():
    n, k = SA_SWEEP_POINTS[0]
    df = sweep_table(n=n, k=k, **SA_SWEEP)
    assert list(df["trial"]) == list(range(SA_SWEEP["trials"]))
    assert (df["n"] == n).all() and (df["kind"] == SA_SWEEP["target"]).all()
    assert (df["d_min"] <= df["d_stable"]).all() and (df["d_stable"] <= df["d_max"]).all()
    assert df["horizon_ok"].all() and (df["d_min_over_n"] == df["d_min"] / n).all()


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
    # the largest logit error falls with d like 1 / sqrt(d) (JL): from the first to the last d
    first, last = df.iloc[0], df.iloc[-1]
    assert last["max_logit_error"] < first["max_logit_error"]


def test_example_is_the_attention_of_the_fixed_module_at_d_min():
    df = example_table(**SA_EXAMPLE)
    n = SA_EXAMPLE["n"]
    assert len(df) == n * n and df["ok"].all()
    for column in ("expB_rownorm", "attention"):
        assert np.allclose(df.groupby("i")[column].sum(), 1.0)


def test_search_cost_is_the_cost_of_the_factors_and_two_passes():
    s = {key: SA_SWEEP[key] for key in ("R", "eps_ratio", "eps_zero", "delta")}
    fraction = SA_SWEEP["search"]["horizon_fraction"]
    n, k = SA_SWEEP_POINTS[0]
    d_0 = fraction * jl_dimension(n, k, **s)
    assert search_cost(n=n, k=k, horizon_fraction=fraction, **s) == (
        math.ceil(16 * n * 1.5 * d_0), 2.0 * n * n * 2.5 * d_0)


def test_the_benchmark_runs_and_reports_every_ratio():
    """benchmarks/sparse_approximation.py at a small n: it runs and prints each comparison (the
    ratios themselves are measurements, never asserted)."""
    script = Path(__file__).parents[2] / "benchmarks" / "sparse_approximation.py"
    out = subprocess.run([sys.executable, str(script), "--n", "128", "--k", "2"], check=True,
                         capture_output=True, text=True).stdout
    for line in ("ratio search / plain matmul", "bisection up to d_JL", "oracle horizon"):
        assert line in out
