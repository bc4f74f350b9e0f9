"""Every claim of the hardmax-versus-softmax stage at small scale, and that each can fail."""

import math

import pandas as pd
import pytest
from cases import HVS_BIGBIRD, HVS_BIGBIRD_N, HVS_BOLTZMANN, HVS_THEOREM1

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


@pytest.mark.parametrize("claim_id", sorted(CLAIMS))
def test_claim_passes_at_small_scale(tables, claim_id):
    row = CLAIMS[claim_id].judge(tables)
    assert row["status"] == "pass", row


def corrupt(tables, name, column, value, where=0):
    """``tables`` with one cell changed: row ``where`` of the table, or for the Theorem 1 search
    the first draw with nonzero weights (the zero-weight draws count for no claim)."""
    changed = dict(tables)
    df = tables[name].copy()
    if name == "theorem1_search":
        where = int((df["weight_scale"] > 0).to_numpy().argmax())
    df.loc[df.index[where], column] = value
    changed[name] = df
    return changed


@pytest.mark.parametrize("claim_id, name, column, value", [
    ("hardmax_vs_softmax.boltzmann_bounds", "boltzmann_checks", "upper_margin", -1e-3),
    ("hardmax_vs_softmax.boltzmann_hardmax_limit", "boltzmann_checks", "limit_margin", -1e-9),
    ("hardmax_vs_softmax.boltzmann_append", "boltzmann_checks", "append_margin", 0.0),
    ("hardmax_vs_softmax.rank1_attention_is_boltzmann", "boltzmann_checks", "rank1_abs_error", 1.0),
    ("hardmax_vs_softmax.theorem1_hardmax_blind", "theorem1_search", "gap_hardmax", 1e-3),
    ("hardmax_vs_softmax.theorem1_hardmax_exact", "theorem1_search", "hardmax_equal_exact", False),
    ("hardmax_vs_softmax.theorem1_softmax_certified", "theorem1_search", "log10_gap_softmax",
     -math.inf),
    ("hardmax_vs_softmax.theorem1_softmax_memorizes", "theorem1_memorizer", "n_correct", 7),
    ("hardmax_vs_softmax.bigbird_hardmax_exact", "bigbird", "accuracy", 0.99),
    ("hardmax_vs_softmax.bigbird_softmax_limit", "bigbird", "beta_sufficient", 1e-3),
    ("hardmax_vs_softmax.bigbird_sharp_limit", "bigbird", "beta_sharp", 1e-3),
])
def test_claim_fails_when_the_evidence_contradicts_it(tables, claim_id, name, column, value):
    assert CLAIMS[claim_id].judge(corrupt(tables, name, column, value))["status"] == "fail"


def test_softmax_sees_fails_when_softmax_is_as_blind_as_hardmax(tables):
    blind = tables["theorem1_search"].assign(gap_softmax=0.0)
    row = CLAIMS["hardmax_vs_softmax.theorem1_softmax_sees"].judge(
        {**tables, "theorem1_search": blind})
    assert row["status"] == "fail"


def test_zero_weight_draws_count_for_no_claim(tables):
    """A zero-weight draw (F(X) = X) cannot decide anything: changing it changes no verdict."""
    df = tables["theorem1_search"].copy()
    zero = df["weight_scale"] == 0
    assert zero.any()
    df.loc[zero, ["gap_hardmax", "log10_gap_softmax"]] = [1.0, -math.inf]
    df.loc[zero, "hardmax_equal_exact"] = False
    for claim_id in ("theorem1_hardmax_blind", "theorem1_hardmax_exact",
                     "theorem1_softmax_certified", "theorem1_softmax_sees"):
        row = CLAIMS[f"hardmax_vs_softmax.{claim_id}"].judge({**tables, "theorem1_search": df})
        assert row["status"] == "pass", row


@pytest.mark.parametrize("claim_id, name, column", [
    ("hardmax_vs_softmax.theorem1_hardmax_exact", "theorem1_search", "hardmax_equal_exact"),
    ("hardmax_vs_softmax.bigbird_sharp_limit", "bigbird", "beta_empirical"),
    ("hardmax_vs_softmax.boltzmann_bounds", "boltzmann_checks", "upper_margin"),
])
def test_missing_evidence_is_not_evaluated(tables, claim_id, name, column):
    none = tables[name].assign(**{column: None if column == "hardmax_equal_exact" else math.nan})
    row = CLAIMS[claim_id].judge({**tables, name: none})
    assert row["status"] == "not evaluated" and not row["passed"]
