"""Each memorization claim at small scale, from tables computed here (Kajitsuka & Sato 2024)."""

import math

import pandas as pd
import pytest
from cases import (
    MEM_CURVE,
    MEM_HARDMAX,
    MEM_SEARCH,
    MEM_SEARCH_POINTS,
    MEM_THEORY,
    MEM_THEORY_POINTS,
)

from expressivity.claims import stage_claims
from expressivity.experiments.memorization.contrast import hardmax_contrast
from expressivity.experiments.memorization.curve import curve_rows
from expressivity.experiments.memorization.parameters import parameter_table
from expressivity.experiments.memorization.regimes import search_rows, theory_rows
from expressivity.parameter_count import construction_parameters
from expressivity.rank1.layer import FLOAT64_DIGITS


@pytest.fixture(scope="module")
def tables():
    theory = [row for d, V in MEM_THEORY_POINTS for row in theory_rows(d=d, V=V, **MEM_THEORY)]
    search = pd.DataFrame([row for d, V in MEM_SEARCH_POINTS
                           for row in search_rows(d=d, V=V, **MEM_SEARCH)])
    return {"theory": pd.DataFrame(theory), "search": search,
            "parameter_counts": parameter_table(search),
            "hardmax_contrast": pd.DataFrame(hardmax_contrast(**MEM_HARDMAX)),
            "delta_vs_lambda": pd.DataFrame(curve_rows(**MEM_CURVE))}


def claim(name):
    return next(c for c in stage_claims("memorization") if c.id == f"memorization.{name}")


def test_every_claim_passes_at_small_scale(tables):
    for c in stage_claims("memorization"):
        row = c.judge(tables)
        assert row["status"] == "pass", (c.id, row["measured"], row["note"])


def test_contextual_mapping_statement(tables):
    th = tables["theory"]
    done = th[th["computed"]]
    assert len(done) >= 2 and (~th["computed"]).any()  # the digit budget leaves some out
    assert done["certified"].all() and (done["log10_delta"] >= done["log10_delta_theory"]).all()
    se = tables["search"]
    assert se["certified"].all() and se["certified_at_theory"].all()
    assert (se["max_norm"] <= se["r_bound"]).all()
    # on random data uniform averaging separates too: these datasets cannot show selectivity
    assert (se["uniform_collisions"] == 0).all()


def test_memorization_and_parameters(tables):
    s = tables["search"]
    assert (s["correct"] == s["points"]).all() and (s["mem_lam"] == MEM_SEARCH["lam_mem"]).all()
    counts = [construction_parameters(N, n, d)["total"]
              for N, n, d in zip(s["N"], s["n"], s["d"], strict=True)]
    assert (s["n_parameters"] == counts).all()
    assert (s["mem_log10_max_abs_error"] < -FLOAT64_DIGITS).all()  # log10 kept, not rounded to 0
    pc = tables["parameter_counts"]
    assert (pc["bits_at_theory"] > pc["bits_at_lam_mem"]).all()


def test_uniform_and_hardmax_fail_where_softmax_separates(tables):
    h = tables["hardmax_contrast"]
    assert set(h["family"]) == {"theorem1", "prouhet"}
    assert (h["uniform_collisions"] > 0).all() and (h["hardmax_collisions"] > 0).all()
    assert (h["uniform_log10_delta"] == -math.inf).all()
    assert h["softmax_theory_certified"].all() and h["softmax_lam_certified"].all()
    assert (h["conflicting_labels"] > 0).all() and (h["accuracy"] == 1).all()
    curve = tables["delta_vs_lambda"]
    adv = curve[curve["dataset"] == "adversarial"]
    assert (adv.loc[adv["arm"] != "softmax", "exact_log10_delta"] == -math.inf).all()
    rand = curve[(curve["dataset"] == "random") & (curve["arm"] == "uniform")]
    assert math.isfinite(rand["exact_log10_delta"].iloc[0])


def test_digits_exceed_float64(tables):
    done = tables["theory"][tables["theory"]["computed"]]
    assert (done["digits_needed"] > FLOAT64_DIGITS).all()
    assert (done["float64_log10_delta"] == -math.inf).all()


def test_claims_can_fail(tables):
    """Built to fail: a square-root parameter count, an uncertified dataset, a draw where uniform
    averaging or hardmax separates or softmax is not certified, a dataset below eq. (8), and a
    separation of the wrong order near lam = 0 are all refuted."""
    pc = tables["parameter_counts"].copy()
    pc["slope_parameters"] = 0.5
    assert claim("parameters_linear").judge({**tables, "parameter_counts": pc})["status"] == "fail"
    se = tables["search"].copy()
    se.loc[0, "certified"] = False
    assert claim("contextual_mapping").judge({**tables, "search": se})["status"] == "fail"
    for column, value in (("uniform_collisions", 0), ("hardmax_collisions", 0),
                          ("softmax_lam_certified", False), ("softmax_theory_certified", False),
                          ("accuracy", 0.5)):
        hm = tables["hardmax_contrast"].copy()
        hm.loc[0, column] = value
        judged = claim("hardmax_contrast").judge({**tables, "hardmax_contrast": hm})
        assert judged["status"] == "fail", column
    th = tables["theory"].copy()
    th["log10_delta"] = th["log10_delta_theory"] - 1
    assert claim("delta_at_least_theory").judge({**tables, "theory": th})["status"] == "fail"
    cv = tables["delta_vs_lambda"].copy()
    cv["asymptote_log10_delta"] += 0.5  # a lam^k prediction off by a factor 3
    assert claim("small_lambda_order").judge({**tables, "delta_vs_lambda": cv})["status"] == "fail"
