"""The sparse-approximation claims at small scale (the jobs of config/ci.yaml), and cases built to
fail: a power law or a power of ln n in place of the measured d_min; optimised inputs above the
random construction's d_min or below the lower bound, a circle that fails, a constant d."""

import math

import numpy as np
import pandas as pd
import pytest
from cases import (
    SA_JL,
    SA_MASS,
    SA_MASS_POINTS,
    SA_MODELS,
    SA_MODULE,
    SA_OPTIMISED,
    SA_OPTIMISED_K,
    SA_SWEEP,
    SA_SWEEP_POINTS,
)

from expressivity.claims import stage_claims
from expressivity.experiments.sparse_approximation.construction import module_table
from expressivity.experiments.sparse_approximation.models import models_tables
from expressivity.experiments.sparse_approximation.optimised import optimised_table
from expressivity.experiments.sparse_approximation.searches import (
    jl_table,
    mass_table,
    sweep_table,
)
from expressivity.random_projection import typical_dimension

CLAIMS = {c.id.split(".", 1)[1]: c for c in stage_claims("sparse_approximation")}
LOG_CLAIMS = ("log_n_out_of_sample", "log_n_beats_power_law", "log_n_not_beaten_by_log_power",
              "d_min_tracks_gaussian_max")


def judge(name, **tables):
    return CLAIMS[name].judge(tables)


@pytest.fixture(scope="module")
def tables():
    """The sweep and the mass-calibrated sweep of config/ci.yaml and the tables read from them."""
    sweep = pd.concat([sweep_table(n=n, k=k, first=0, trials=t, **SA_SWEEP)
                       for n, k, t in SA_SWEEP_POINTS], ignore_index=True)
    mass = pd.concat([mass_table(n=n, k=k, first=0, trials=t, **SA_MASS)
                      for n, k, t in SA_MASS_POINTS], ignore_index=True)
    return {"sweep": sweep, "mass": mass, **models_tables(sweep=sweep, mass=mass, **SA_MODELS)}


def synthetic(law, trials=8, noise=0.04, seed=0, d_start=1.0):
    """A sweep of k = 1 whose d_min follows ``law(d_pred(n), n)`` with multiplicative noise, over
    n = 2^6..2^14, with the real Gaussian-maximum prediction of the default tolerances; a search
    starting at ``d_start`` reports at least that."""
    rng = np.random.default_rng(seed)
    rows = []
    b = math.log(10) + 1
    for n in 2 ** np.arange(6, 15):
        pred = typical_dimension(np.full(n, b), int(n), 1.0)
        for t in range(trials):
            d = max(d_start, law(pred, n) * math.exp(noise * rng.standard_normal()))
            rows.append({"n": n, "k": 1, "trial": t, "d_min": d, "d_stable": d * 1.05,
                         "d_pred": pred, "d_min_over_pred": d / pred,
                         "d_stable_over_pred": d * 1.05 / pred, "d_min_over_n": d / n,
                         "d_jl": 10 * pred, "censored": False, "d_start": d_start,
                         "precision": "float64",
                         "off_mass_mean": 0.5, "tv_mean": 0.5})
    sweep = pd.DataFrame(rows)
    return models_tables(sweep=sweep, mass=sweep.iloc[0:0], **SA_MODELS)


def _log_law(pred, n):
    return 0.5 * pred


def _power_law(pred, n):  # through the log law at n = 64 and n = 1024: same range, another shape
    return 0.5 * synthetic_pred(64) * (n / 64) ** math.log(
        synthetic_pred(1024) / synthetic_pred(64), 16)


def synthetic_pred(n):
    return typical_dimension(np.full(n, math.log(10) + 1), n, 1.0)


def test_jl_bound_suffices(tables):
    df = jl_table(**SA_JL)
    assert judge("jl_bound_suffices", jl_check=df, sweep=tables["sweep"])["passed"]
    df.loc[0, "first_draw_ok"] = False  # one failed draw refutes it
    assert not judge("jl_bound_suffices", jl_check=df, sweep=tables["sweep"])["passed"]


def test_log_claims_on_the_ci_sweep(tables):
    sweep = tables["sweep"]
    assert not sweep["censored"].any() and (sweep["precision"] == "float64").all()
    assert sweep["horizon_ok"].all() and (sweep["d_min"] <= sweep["d_jl"]).all()
    for name in LOG_CLAIMS:
        row = judge(name, **tables)
        assert row["passed"], (name, row["note"])


def test_log_claims_pass_for_a_log_law():
    t = synthetic(_log_law)
    for name in LOG_CLAIMS:
        row = judge(name, **t)
        assert row["passed"], (name, row["note"])


def test_log_claims_fail_for_a_power_law():
    """n^p through the same two ends of the range: the d = O(log n) claims refute it."""
    t = synthetic(_power_law)
    for name in ("log_n_out_of_sample", "log_n_beats_power_law", "d_min_tracks_gaussian_max"):
        row = judge(name, **t)
        assert row["status"] == "fail", (name, row["note"])


def test_out_of_sample_fails_for_a_power_of_ln_n():
    t = synthetic(lambda pred, n: 0.5 * synthetic_pred(64) * (math.log(n) / math.log(64)) ** 2.5)
    assert judge("log_n_out_of_sample", **t)["status"] == "fail"
    assert judge("log_n_not_beaten_by_log_power", **t)["status"] == "fail"


def test_a_d_at_the_first_grid_point_is_not_evaluated():
    """d_min = d_start is an upper bound (left-censored): no growth law is judged on it."""
    t = synthetic(_log_law, d_start=0.5 * synthetic_pred(128))
    for name in LOG_CLAIMS:
        row = judge(name, **t)
        assert row["status"] == "not evaluated" and "d_start" in row["note"], (name, row["note"])


def test_too_few_n_is_not_evaluated():
    t = synthetic(_log_law)
    empty = {name: df.iloc[0:0] for name, df in t.items()}
    for name in LOG_CLAIMS:
        assert judge(name, **empty)["status"] == "not evaluated"


def test_mass_claims(tables):
    for name in ("off_support_mass_grows", "mass_calibrated_cost_grows",
                 "mass_calibrated_tracks_prediction"):
        row = judge(name, **tables)
        assert row["passed"], (name, row["note"])
    row = judge("mass_calibrated_bounded", **tables)
    assert row["passed"] and row["measured"] < 1
    broken = tables["mass"].copy()
    broken.loc[0, "off_mass_max"] = 2 * broken["eps_mass"].iloc[0]
    assert not judge("mass_calibrated_bounded", mass=broken)["passed"]
    flat = tables["sweep"].copy()
    flat["off_mass_mean"] = 0.05 + 0.001 * np.random.default_rng(0).standard_normal(len(flat))
    assert not judge("off_support_mass_grows", sweep=flat)["passed"]


def test_d_min_below_n(tables):
    assert judge("below_n", **tables)["passed"]
    doubled = tables["sweep"].assign(d_min_over_n=lambda df: 2.0 + df["d_min_over_n"])
    assert not judge("below_n", sweep=doubled, crossover=tables["crossover"])["passed"]


def test_one_fixed_module_serves_every_target():
    df = module_table(**SA_MODULE)
    row = judge("fixed_parameters", fixed_module=df)
    assert row["passed"], row["note"]
    assert df["input_fingerprint"].nunique() == len(df)  # only X differs
    assert (df["d"] < df["n"]).all()


def test_fixed_module_fails_with_too_small_d():
    """Built to fail: the ci module at d = 3 instead of module.d."""
    row = judge("fixed_parameters", fixed_module=module_table(**{**SA_MODULE, "d": 3}))
    assert not row["passed"] and row["measured"] > 0


def test_claims_are_registered_with_provenance():
    assert set(CLAIMS) == {"jl_bound_suffices", "log_n_out_of_sample",
                           "log_n_beats_power_law", "log_n_not_beaten_by_log_power",
                           "d_min_tracks_gaussian_max",
                           "off_support_mass_grows", "mass_calibrated_bounded",
                           "mass_calibrated_cost_grows", "mass_calibrated_tracks_prediction",
                           "fixed_parameters", "below_n", "unbounded_circle_d2",
                           "optimised_within_random", "optimised_above_lower_bound",
                           "optimised_d_grows"}
    for c in CLAIMS.values():
        assert "reconstruction" in c.provenance and not math.isnan(c.threshold)


# ---- optimised inputs, lower bounds and the unbounded circle ----------------------------------

OPTIMISED_CLAIMS = ("unbounded_circle_d2", "optimised_within_random", "optimised_above_lower_bound",
                    "optimised_d_grows")


@pytest.fixture(scope="module")
def optimised():
    """The optimised-inputs table of config/ci.yaml (the job of every k)."""
    return pd.concat([optimised_table(k=k, **SA_OPTIMISED) for k in SA_OPTIMISED_K],
                     ignore_index=True)


def test_optimised_claims_on_the_ci_table(optimised):
    for name in OPTIMISED_CLAIMS:
        row = judge(name, optimised_inputs=optimised)
        assert row["passed"], (name, row["note"])


def synthetic_optimised(d_opt=lambda n, k: 2 + math.log2(n) * k, trials=3):
    """A table with d_opt(n, k), a random d_min 40 times larger, lower bound 2 and circles that
    meet the criterion at s and fail at s / 10."""
    rows = []
    for k in (1, 2):
        for n in (16, 32, 64, 128):
            for t in range(trials):
                d = float(round(d_opt(n, k) + (t % 2)))
                rows.append({"n": n, "k": k, "trial": t, "eps_zero": 0.1, "d_random": 40 * d,
                             "d_opt": d, "opt_found": True, "d_max": 64, "d_lower": 2.0,
                             "random_over_opt": 40.0, "opt_over_lower": d / 2,
                             "radius_q": 3.6, "radius_k": 1.1, "opt_norm_q": 3.5,
                             "opt_norm_k": 1.1, "logit_bound": 3.96,
                             "logit_bound_over_gamma": 1.72,
                             "circle_ok": True if k == 1 else math.nan,
                             "circle_tenth_ok": False if k == 1 else math.nan,
                             "circle_scale": 2.3 * n * n / 19.7 if k == 1 else math.nan,
                             "circle_scale_over_n2": 2.3 / 19.7 if k == 1 else math.nan})
    return pd.DataFrame(rows)


def test_optimised_claims_pass_and_fail_on_synthetic_tables():
    good = synthetic_optimised()
    for name in OPTIMISED_CLAIMS:
        assert judge(name, optimised_inputs=good)["passed"], name
    cases = {
        "unbounded_circle_d2": [good.assign(circle_ok=lambda df: df["circle_ok"].where(
                                    df["trial"] != 0, False)),
                                good.assign(circle_tenth_ok=lambda df: df["circle_tenth_ok"].where(
                                    df["k"] != 1, True))],
        "optimised_within_random": [good.assign(d_random=lambda df: df["d_opt"] - 1,
                                                random_over_opt=lambda df: df["d_random"]
                                                / df["d_opt"])],
        "optimised_above_lower_bound": [good.assign(d_lower=lambda df: df["d_opt"] + 1),
                                        good.assign(opt_norm_k=2.0)],
        # a constant d in n (what inputs without a norm bound allow) is not growth
        "optimised_d_grows": [synthetic_optimised(lambda n, k: 5.0, trials=3),
                              synthetic_optimised(lambda n, k: 9.0 - math.log2(n))],
    }
    for name, tables in cases.items():
        for table in tables:
            row = judge(name, optimised_inputs=table)
            assert row["status"] == "fail", (name, row["note"])


def test_optimised_claims_undecided_without_evidence():
    good = synthetic_optimised()
    not_found = good.assign(opt_found=lambda df: df["trial"] != 0)
    assert judge("optimised_within_random", optimised_inputs=not_found)["status"] == \
        "not evaluated"
    two_n = good[good["n"] <= 32]
    assert judge("optimised_d_grows", optimised_inputs=two_n)["status"] == "not evaluated"
    no_perm = good[good["k"] == 2]
    assert judge("unbounded_circle_d2", optimised_inputs=no_perm)["status"] == "not evaluated"
