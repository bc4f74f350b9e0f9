"""The optimised-inputs job (expressivity.experiments.sparse_approximation.optimised): rows pairing
the random construction with inputs optimised under its norm bound, at the sizes of
config/ci.yaml."""

import logging

import pandas as pd
import pytest
from cases import SA_OPTIMISED, SA_OPTIMISED_K, SA_SWEEP

from expressivity.experiments.sparse_approximation.optimised import (
    CIRCLE_COLUMNS,
    RECORD_COLUMNS,
    optimised_table,
)
from expressivity.experiments.sparse_approximation.searches import sweep_target, trial_record


@pytest.fixture(scope="module")
def job():
    k = SA_OPTIMISED_K[0]
    return k, optimised_table(k=k, **{**SA_OPTIMISED, "n": SA_OPTIMISED["n"][:2]})


def test_job_rows_pair_the_random_and_the_optimised_inputs(job):
    k, df = job
    ns = SA_OPTIMISED["n"][:2]
    trials = SA_OPTIMISED["trials"]
    assert list(df["n"]) == [n for n in ns for _ in range(trials)]
    assert list(df["trial"]) == list(range(trials)) * len(ns)
    assert set(RECORD_COLUMNS) | set(CIRCLE_COLUMNS) <= set(df.columns)
    assert df["opt_found"].all() and (df["precision"] == "float64").all()
    assert (df["d_opt"] <= df["d_random"]).all() and (df["d_opt"] >= df["d_lower"]).all()
    assert (df["opt_norm_q"] <= df["radius_q"] * (1 + 1e-12)).all()
    assert (df["opt_slack"] > df["rounding_tol"]).all()
    # the random construction is the sweep's: same target and projection, same d_min
    for _, r in df.iterrows():
        A, rng = sweep_target(seed=SA_OPTIMISED["seed"], target=SA_OPTIMISED["target"],
                              n=int(r["n"]), k=k, R=SA_OPTIMISED["R"], trial=int(r["trial"]))
        row = trial_record(A, rng, R=SA_OPTIMISED["R"], eps_ratio=SA_OPTIMISED["eps_ratio"],
                           eps_zero=SA_OPTIMISED["eps_zero"], delta=SA_SWEEP["delta"],
                           search=SA_OPTIMISED["search"])
        assert row["d_min"] == r["d_random"]


def test_job_is_deterministic_and_logs_progress(job, caplog):
    k, df = job
    log = logging.getLogger("test_optimised_progress")
    with caplog.at_level(logging.INFO, logger="test_optimised_progress"):
        again = optimised_table(k=k, **{**SA_OPTIMISED, "n": SA_OPTIMISED["n"][:2]}, log=log)
    pd.testing.assert_frame_equal(df, again)
    assert "remaining" in caplog.text and "meets the criterion" in caplog.text


def test_circle_columns_only_for_permutations():
    k = next(k for k in SA_OPTIMISED_K if k > 1)
    df = optimised_table(k=k, **{**SA_OPTIMISED, "n": SA_OPTIMISED["n"][:1], "trials": 1})
    assert df[list(CIRCLE_COLUMNS)].isna().all().all()
    with pytest.raises(ValueError, match="no n >= k"):
        optimised_table(k=k, **{**SA_OPTIMISED, "n": [1]})
