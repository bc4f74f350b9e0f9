"""Every claim of the hardmax-versus-softmax stage at small scale, and that each can fail."""

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
    changed = dict(tables)
    df = tables[name].copy()
    df.loc[df.index[where], column] = value
    changed[name] = df
    return changed


@pytest.mark.parametrize("claim_id, name, column, value", [
    ("hardmax_vs_softmax.boltzmann_bounds", "boltzmann_checks", "upper_margin", -1e-3),
    ("hardmax_vs_softmax.boltzmann_hardmax_limit", "boltzmann_checks", "limit_margin", -1e-9),
    ("hardmax_vs_softmax.boltzmann_append", "boltzmann_checks", "append_ok", False),
    ("hardmax_vs_softmax.rank1_attention_is_boltzmann", "boltzmann_checks", "rank1_abs_error", 1.0),
    ("hardmax_vs_softmax.theorem1_hardmax_blind", "theorem1_search", "gap_hardmax", 1e-6),
    ("hardmax_vs_softmax.theorem1_hardmax_exact", "theorem1_search", "hardmax_equal_exact", False),
    ("hardmax_vs_softmax.theorem1_softmax_memorizes", "theorem1_memorizer", "output", 0.4),
    ("hardmax_vs_softmax.bigbird_hardmax_exact", "bigbird", "accuracy", 0.99),
])
def test_claim_fails_when_the_evidence_contradicts_it(tables, claim_id, name, column, value):
    assert CLAIMS[claim_id].judge(corrupt(tables, name, column, value))["status"] == "fail"


def test_softmax_claims_fail_when_softmax_is_blind(tables):
    blind = tables["theorem1_search"].assign(gap_softmax=0.0)
    row = CLAIMS["hardmax_vs_softmax.theorem1_softmax_sees"].judge({**tables, "theorem1_search": blind})
    assert row["status"] == "fail"
    soft = tables["bigbird"].assign(accuracy=0.5)
    row = CLAIMS["hardmax_vs_softmax.bigbird_softmax_limit"].judge({**tables, "bigbird": soft})
    assert row["status"] == "fail"


def test_missing_evidence_is_not_evaluated(tables):
    none = tables["theorem1_search"].assign(hardmax_equal_exact=None)
    row = CLAIMS["hardmax_vs_softmax.theorem1_hardmax_exact"].judge({**tables, "theorem1_search": none})
    assert row["status"] == "not evaluated" and not row["passed"]
