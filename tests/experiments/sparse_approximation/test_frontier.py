"""The frontier's jobs (expressivity.experiments.sparse_approximation.frontier): optimised d under
every logit budget and criterion, and the unbounded constructions, at the sizes of config/ci.yaml."""

import logging
import math

import pandas as pd
import pytest
from cases import SA_FRONTIER, SA_FRONTIER_K, SA_UNBOUNDED

from expressivity.experiments.sparse_approximation.frontier import (
    criterion_eps_zero,
    frontier_rows,
    frontier_table,
    frontier_target,
    unbounded_table,
)
from expressivity.norm_bounds import lower_bound

SMALL = {**SA_FRONTIER, "n": SA_FRONTIER["n"][:2]}


@pytest.fixture(scope="module")
def job():
    k = max(SA_FRONTIER_K)
    return k, frontier_table(k=k, **SMALL)


def test_rows_cover_every_problem_within_its_ball(job):
    k, df = job
    per_n = SA_FRONTIER["trials"] * len(SA_FRONTIER["criteria"]) * len(SA_FRONTIER["budgets"])
    assert list(df["n"]) == [n for n in sorted(SMALL["n"]) for _ in range(per_n)]
    assert df["opt_found"].all() and (df["precision"] == "float64").all()
    assert (df["d_opt"] >= df["d_lower"]).all() and (df["opt_slack"] > df["rounding_tol"]).all()
    assert (df["opt_norm_q"] <= df["radius_q"] * (1 + 1e-12)).all()
    assert (df["opt_norm_k"] <= df["radius_k"] * (1 + 1e-12)).all()
    # Lam = r_q r_k = budget x gamma, and the criterion's eps_zero
    assert df["logit_bound"].to_numpy() == pytest.approx((df["budget"] * df["gamma"]).to_numpy())
    for _, r in df.iterrows():
        assert r["eps_zero"] == criterion_eps_zero(r["criterion"], int(r["n"]),
                                                   SA_FRONTIER["eps_zero"],
                                                   SA_FRONTIER["mass_eps"])
    assert list(df["slice"]) == list(df["budget"] == SA_FRONTIER["slice_budget"])
    assert df["normalised"].to_numpy() == pytest.approx(
        (df["d_opt"] * (1 + 2 * df["budget"]).map(math.log) / df["n"].map(math.log)).to_numpy())


def test_lower_bounds_are_those_of_the_target_and_budget(job):
    k, df = job
    r = df.iloc[-1]
    A = frontier_target(seed=SA_FRONTIER["seed"], target=SA_FRONTIER["target"], n=int(r["n"]),
                        k=k, R=SA_FRONTIER["R"], trial=int(r["trial"]))
    bounds = lower_bound(A, r["logit_bound"], r["eps_zero"])
    assert r["d_lower"] == bounds["d_lower"]
    assert r["d_lower_packing"] == bounds["d_lower_packing"]


def test_a_larger_budget_never_needs_a_larger_packing_bound(job):
    _, df = job
    for _, sub in df.groupby(["n", "trial", "criterion"]):
        assert sub.sort_values("budget")["packing_curve"].is_monotonic_decreasing


def test_job_is_deterministic_and_logs_progress(job, caplog):
    k, df = job
    log = logging.getLogger("test_frontier_progress")
    with caplog.at_level(logging.INFO, logger="test_frontier_progress"):
        again = frontier_table(k=k, **SMALL, log=log)
    pd.testing.assert_frame_equal(df, again)
    assert "remaining" in caplog.text and "meets the criterion" in caplog.text


def test_a_d_max_too_small_is_censored_not_dropped():
    n = SA_FRONTIER["n"][-1]
    df = frontier_rows(k=1, **{**SMALL, "n": n, "budgets": [SA_FRONTIER["slice_budget"]],
                               "criteria": ["per-entry"], "d_max": 2})
    assert not df["opt_found"].any() and df["d_opt"].isna().all()
    assert (df["precision"] == "not found up to d = 2").all()


@pytest.mark.parametrize(("change", "match"), [
    ({"budgets": [0.5, 2]}, "budget"),
    ({"budgets": []}, "budgets"),
    ({"criteria": ["total"]}, "criteria"),
    ({"slice_budget": 3}, "slice_budget"),
    ({"n": []}, "n must be"),
    ({"n": [4.0]}, "n must be an integer"),
    ({"d_max": 0}, "d_max"),
    ({"trials": 0}, "trials"),
])
def test_bad_settings_are_refused(change, match):
    with pytest.raises(ValueError, match=match):
        frontier_table(k=1, **{**SMALL, **change})


def test_unbounded_constructions_meet_the_criterion_at_their_scale_only():
    df = unbounded_table(**SA_UNBOUNDED)
    ks = ([1] if 1 in SA_UNBOUNDED["k"] else []) + SA_UNBOUNDED["moment_k"]
    assert sorted(df["k"].unique()) == sorted(ks)
    assert len(df) == len(SA_UNBOUNDED["n"]) * len(ks) * SA_UNBOUNDED["trials"] * len(
        SA_UNBOUNDED["criteria"])
    assert df["ok"].astype(bool).all() and not df["tenth_ok"].astype(bool).any()
    assert (df.loc[df["k"] == 1, "construction"] == "circle").all()
    moment = df[df["k"] > 1]
    assert (moment["d"] == 2 * moment["k"]).all()
    assert moment["precision"].str.startswith("ball arithmetic").all()
    assert df["budget_needed"].to_numpy() == pytest.approx(
        (df["logit_bound"] / df["gamma"]).to_numpy())
    # the circle's scale is gamma / (1 - cos(2 pi / n)) exactly
    circle = df[df["k"] == 1]
    assert circle["scale_min"].to_numpy() == pytest.approx(
        (circle["gamma"] / (1 - (2 * math.pi / circle["n"]).map(math.cos))).to_numpy())
    with pytest.raises(ValueError, match="no construction"):
        unbounded_table(**{**SA_UNBOUNDED, "k": [2], "moment_k": []})
