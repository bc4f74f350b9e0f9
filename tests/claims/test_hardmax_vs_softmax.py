"""Every hardmax-versus-softmax claim: a case it passes (the tables of config/ci.yaml), a case that
contradicts it and a case without the evidence it needs, each parametrised by claim id
(``pytest -k <claim id>``)."""

import math

import numpy as np
import pandas as pd
import pytest
from cases import HVS_BIGBIRD, HVS_BIGBIRD_N, HVS_BOLTZMANN, HVS_THEOREM1
from verdicts import assert_fails, assert_not_evaluated, assert_passes

from expressivity.claims import stage_claims
from expressivity.experiments.hardmax_vs_softmax.bigbird import bigbird_table
from expressivity.experiments.hardmax_vs_softmax.boltzmann import check_vectors
from expressivity.experiments.hardmax_vs_softmax.theorem1 import theorem1_tables


@pytest.fixture(scope="module")
def tables():
    theorem1 = theorem1_tables(**HVS_THEOREM1)
    return {
        "boltzmann_checks": pd.DataFrame(check_vectors(**HVS_BOLTZMANN)),
        "theorem1_search": pd.DataFrame(theorem1["search"]),
        "theorem1_memorizer": pd.DataFrame(theorem1["memorizer"]),
        "bigbird": pd.DataFrame([row for n in HVS_BIGBIRD_N
                                 for row in bigbird_table(n=n, **HVS_BIGBIRD)]),
    }


CLAIMS = {c.id: c for c in stage_claims("hardmax_vs_softmax")}
H = "hardmax_vs_softmax."


def corrupt(name, column, value):
    """A change of ``tables``: one cell of row 0 of a table, or for the Theorem 1 search the first
    draw with nonzero weights (the zero-weight draws count for no claim)."""

    def change(tables):
        df = tables[name].copy()
        where = int((df["weight_scale"] > 0).to_numpy().argmax()) \
            if name == "theorem1_search" else 0
        df.loc[df.index[where], column] = value
        return {**tables, name: df}

    return change


def flat_softmax(tables):
    """Softmax seeing the same fraction of draws at every scale (no saturation): at each scale
    the draws above the bound are the first ones, as many as the pooled fraction says."""
    df = tables["theorem1_search"].copy()
    live = df["weight_scale"] > 0
    pooled = float((df.loc[live, "gap_softmax"] > df.loc[live, "bound_softmax"]).mean())
    rank = df[live].groupby("weight_scale").cumcount() / df[live].groupby(
        "weight_scale")["draw"].transform("count")
    df.loc[live, "gap_softmax"] = np.where(rank < pooled, 1.0, 0.0)
    df.loc[live, "bound_softmax"] = 0.5
    return {**tables, "theorem1_search": df}


def only_scales(*scales):
    return lambda t: {**t, "theorem1_search": t["theorem1_search"][
        t["theorem1_search"]["weight_scale"].isin(scales)]}


def empty(name):
    return lambda t: {**t, name: t[name].iloc[0:0]}


CONTRADICTED = {
    H + "boltzmann_bounds": corrupt("boltzmann_checks", "upper_margin", -1e-3),
    H + "boltzmann_hardmax_limit": corrupt("boltzmann_checks", "limit_margin", -1e-9),
    H + "boltzmann_append": corrupt("boltzmann_checks", "append_margin", 0.0),
    H + "rank1_attention_is_boltzmann": corrupt("boltzmann_checks", "rank1_abs_error", 1.0),
    H + "theorem1_hardmax_blind": corrupt("theorem1_search", "gap_hardmax", 1e-3),
    H + "theorem1_hardmax_exact": corrupt("theorem1_search", "hardmax_equal_exact", False),
    H + "theorem1_softmax_certified": corrupt("theorem1_search", "log10_gap_softmax", -math.inf),
    # softmax as blind as hardmax
    H + "theorem1_softmax_sees": lambda t: {**t, "theorem1_search": t["theorem1_search"].assign(
        gap_softmax=0.0)},
    # the synthetic alternative: one fraction at every scale (no trend)
    H + "theorem1_softmax_saturates": flat_softmax,
    H + "theorem1_softmax_memorizes": corrupt("theorem1_memorizer", "n_correct", 7),
    H + "bigbird_hardmax_exact": corrupt("bigbird", "accuracy", 0.99),
    H + "bigbird_softmax_limit": corrupt("bigbird", "beta_sufficient", 1e-3),
    H + "bigbird_sharp_limit": corrupt("bigbird", "beta_sharp", 1e-3),
}

MISSING = {
    H + "boltzmann_bounds": lambda t: {**t, "boltzmann_checks": t["boltzmann_checks"].assign(
        upper_margin=math.nan)},
    H + "boltzmann_hardmax_limit": empty("boltzmann_checks"),
    H + "boltzmann_append": empty("boltzmann_checks"),
    H + "rank1_attention_is_boltzmann": empty("boltzmann_checks"),
    # theorem1.weight_scales: [0]: no draw has nonzero weights (it passed on "0 of 0")
    H + "theorem1_hardmax_blind": only_scales(0),
    H + "theorem1_hardmax_exact": lambda t: {**t, "theorem1_search": t["theorem1_search"].assign(
        hardmax_equal_exact=None)},
    H + "theorem1_softmax_certified": only_scales(0),
    H + "theorem1_softmax_sees": only_scales(0),
    # one nonzero scale: no trend to test
    H + "theorem1_softmax_saturates": only_scales(0, 1),
    H + "theorem1_softmax_memorizes": empty("theorem1_memorizer"),
    H + "bigbird_hardmax_exact": empty("bigbird"),
    H + "bigbird_softmax_limit": empty("bigbird"),
    H + "bigbird_sharp_limit": lambda t: {**t, "bigbird": t["bigbird"].assign(
        beta_empirical=math.nan)},
}


def test_every_claim_has_its_three_cases():
    assert set(CONTRADICTED) == set(CLAIMS) == set(MISSING)


@pytest.mark.parametrize("claim_id", sorted(CLAIMS))
def test_claim_passes(tables, claim_id):
    assert_passes(CLAIMS[claim_id], tables)


@pytest.mark.parametrize("claim_id", sorted(CLAIMS))
def test_claim_fails_when_contradicted(tables, claim_id):
    assert_fails(CLAIMS[claim_id], CONTRADICTED[claim_id](tables))


@pytest.mark.parametrize("claim_id", sorted(CLAIMS))
def test_missing_evidence_is_not_evaluated(tables, claim_id):
    assert_not_evaluated(CLAIMS[claim_id], MISSING[claim_id](tables))


def test_zero_weight_draws_count_for_no_claim(tables):
    """A zero-weight draw (F(X) = X) cannot decide anything: changing it changes no verdict."""
    df = tables["theorem1_search"].copy()
    zero = df["weight_scale"] == 0
    assert zero.any()
    df.loc[zero, ["gap_hardmax", "log10_gap_softmax"]] = [1.0, -math.inf]
    df.loc[zero, "hardmax_equal_exact"] = False
    for claim_id in ("theorem1_hardmax_blind", "theorem1_hardmax_exact",
                     "theorem1_softmax_certified", "theorem1_softmax_sees",
                     "theorem1_softmax_saturates"):
        row = CLAIMS[H + claim_id].judge({**tables, "theorem1_search": df})
        assert row["status"] == "pass", row


def test_theorem1_exhibits_are_demonstrations():
    assert {c.id for c in CLAIMS.values() if c.kind == "demonstration"} == {
        H + "theorem1_hardmax_exact", H + "theorem1_softmax_certified"}
