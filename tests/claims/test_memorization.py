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
from expressivity.experiments.memorization import (
    curve_rows,
    hardmax_contrast,
    parameter_table,
    search_rows,
    theory_rows,
)
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
    assert (tables["search"]["certified"]).all()
    assert (tables["search"]["max_norm"] <= tables["search"]["r_bound"]).all()


def test_memorization_and_parameters(tables):
    s = tables["search"]
    assert (s["correct"] == s["points"]).all()
    assert (s["n_parameters"] == 5 * s["d"] + 2 * s["n"] * s["N"]).all()


def test_hardmax_is_not_a_contextual_mapping(tables):
    h = tables["hardmax_contrast"]
    assert h["hardmax_equal_exact"].all() and (h["hardmax_delta_exact"] == 0).all()
    assert h["softmax_certified"].all()


def test_digits_exceed_float64(tables):
    done = tables["theory"][tables["theory"]["computed"]]
    assert (done["digits_needed"] > FLOAT64_DIGITS).all()
    assert (done["float64_log10_delta"] == -math.inf).all()


def test_claims_can_fail(tables):
    """Built to fail: a square-root parameter count, an uncertified dataset, a hardmax draw that
    separates, and a dataset below eq. (8) are all refuted."""
    bad = dict(tables)
    pc = tables["parameter_counts"].copy()
    pc["series_slope"] = 0.5
    bad["parameter_counts"] = pc
    assert claim("parameters_linear").judge(bad)["status"] == "fail"
    se = tables["search"].copy()
    se.loc[0, "certified"] = False
    assert claim("contextual_mapping").judge({**tables, "search": se})["status"] == "fail"
    hm = tables["hardmax_contrast"].copy()
    hm.loc[0, "hardmax_equal_exact"] = False
    assert claim("hardmax_contrast").judge({**tables, "hardmax_contrast": hm})["status"] == "fail"
    th = tables["theory"].copy()
    th["log10_delta"] = th["log10_delta_theory"] - 1
    assert claim("delta_at_least_theory").judge({**tables, "theory": th})["status"] == "fail"
