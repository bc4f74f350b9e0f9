"""Claims of the trained-models stage at small scale: config/ci.yaml's jobs, judged by the registry.

Each job runs through the function its workflow script calls (``expressivity.experiments.
trained_models``) on the cases of ``tests/cases.py``; its rows pass through a CSV as in the workflow
and the stage's claims judge them. Thresholds come from the mathematics (see the claims module).
"""

import pandas as pd
import pytest
from cases import TM_COPY, TM_HEADS, TM_MEMORIZATION, TM_MIXERS, TM_WIDTH, TM_WIDTH_N

from expressivity.claims import stage_claims
from expressivity.experiments.trained_models import (
    copy_rows,
    heads_rows,
    memorization_rows,
    mixers_rows,
    width_rows,
)
from expressivity.io import read_table, write_table

CLAIMS = {c.id.removeprefix("trained_models."): c for c in stage_claims("trained_models")}


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    """Rows written and read back as the workflow does (``None`` becomes an empty cell)."""
    folder = tmp_path_factory.mktemp("tables")

    def through_csv(name, rows):
        write_table(pd.DataFrame(rows), folder / f"{name}.csv")
        return read_table(folder / f"{name}.csv")
    return through_csv


@pytest.fixture(scope="module")
def memorization(table):
    summary = [row for variant in ("learned", "fixed", "no_attention")
               for row in memorization_rows(variant=variant, **TM_MEMORIZATION)[1]]
    return {"memorization_summary": table("memorization_summary", summary)}


def passes(claim, tables):
    verdict = CLAIMS[claim].judge(tables)
    return verdict["status"] == "pass", verdict["note"]


@pytest.mark.parametrize("claim", ["rank1_memorizes", "fixed_projection_memorizes",
                                   "no_attention_bounded", "hardmax_evaluation_fails",
                                   "hardmax_ceiling"])
def test_memorization_claims(memorization, claim):
    ok, note = passes(claim, memorization)
    assert ok, note


def test_hardmax_evaluation_fails_below_its_ceiling(memorization):
    learned = memorization["memorization_summary"].set_index("variant").loc["learned"]
    assert learned["accuracy_hardmax"] <= learned["hardmax_ceiling"] < 1.0


def test_more_heads_and_rank_memorize(table):
    rows = [row for h, s in TM_HEADS for row in heads_rows(heads=h, size=s, **TM_MEMORIZATION)]
    ok, note = passes("heads_rank_memorize", {"heads_rank": table("heads_rank", rows)})
    assert ok, note


def test_trained_width_below_construction(table):
    rows = [row for N in TM_WIDTH_N for row in width_rows(N=N, **TM_WIDTH)]
    ok, note = passes("width_below_construction", {"width_vs_N": table("width_vs_N", rows)})
    assert ok, note


def test_dense_copies(table):
    rows = copy_rows(pattern="dense", depth=1, **TM_COPY)
    ok, note = passes("copy_dense", {"copy_accuracy": table("copy_accuracy", rows)})
    assert ok, note


def test_window_cannot_copy_beyond_its_reach():
    """Built to fail: one window layer (half-width 1) cannot see n/2 = 4 positions back, so the
    output is independent of the copied token: accuracy near chance 1/4, far below 0.99."""
    assert copy_rows(pattern="window", depth=1, **TM_COPY)[0]["accuracy"] < 0.6


def test_attention_beats_alternatives(table):
    rows = (mixers_rows(alternative="conv", k=0, **TM_MIXERS)
            + mixers_rows(alternative="attention", k=TM_MIXERS["depth"], **TM_MIXERS))
    ok, note = passes("attention_beats_alternatives", {"mixers": table("mixers", rows)})
    assert ok, note


def test_attention_beats_context_free_convolution():
    """A kernel-1 convolution sees no context: counting needs it, attention has it (150 steps,
    more than ci.yaml's 30, so that attention has learned to count)."""
    case = {**TM_MIXERS, "kernel": 1, "steps": 150}
    attention = mixers_rows(alternative="attention", k=case["depth"], **case)[0]["accuracy"]
    assert attention > mixers_rows(alternative="conv", k=0, **case)[0]["accuracy"]


def test_claim_rank1_fails_on_one_error(memorization):
    summary = memorization["memorization_summary"].copy()
    summary.loc[summary["variant"] == "learned", "accuracy"] = 1 - 1 / (summary["n"] * summary["N"])
    assert CLAIMS["rank1_memorizes"].judge({"memorization_summary": summary})["status"] == "fail"
