"""Claims of the trained-models stage: each claim id on small synthetic tables built to pass, to be
contradicted and to lack the evidence that decides it (``pytest -k <claim id>``), then on the rows
config/ci.yaml's jobs produce.

Synthetic cells go through ``cell_rows`` (the jobs' own summary: existence, reliability, mean) and
through a CSV as in the workflow; jobs run through the functions their workflow scripts call
(``expressivity.experiments.trained_models``) on the cases of ``tests/cases.py``.
"""

import math

import pandas as pd
import pytest
from cases import TM_COPY, TM_HEADS, TM_HEADS_RUN, TM_MASKED, TM_MASKED_ARMS, TM_MEMORIZATION
from verdicts import assert_fails, assert_not_evaluated, assert_passes

from expressivity.claims import stage_claims
from expressivity.claims.trained_models import capacity, papers
from expressivity.experiments.trained_models.encoders import copy_rows
from expressivity.experiments.trained_models.memorization import ARMS, heads_rows, memorization_rows
from expressivity.experiments.trained_models.runs import cell_rows, protocol
from expressivity.io import read_table, write_table
from expressivity.training_protocol import QUANTIFIERS

CLAIMS = {c.id.removeprefix("trained_models."): c for c in stage_claims("trained_models")}
PROTO = protocol(target=0.99, budget=1000, every=10, window=200, min_gain=0.002, lr_decay=10)
RUN = {"precision": "float32", "device": "cpu", "cpu_kernels": "AVX2"}


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    """Rows written and read back as the workflow does (``None`` becomes an empty cell)."""
    folder = tmp_path_factory.mktemp("tables")

    def through_csv(name, rows):
        write_table(pd.DataFrame(rows), folder / f"{name}.csv")
        return read_table(folder / f"{name}.csv")
    return through_csv


def runs_of(outcomes, accuracy=None, lr=0.01):
    """Run records of one cell, one per outcome (a plateau after its decay)."""
    acc = accuracy or [1.0 if o == "reached" else 0.6 for o in outcomes]
    return [{"lr": lr, "seed_index": i, "outcome": o, "accuracy": a,
             "steps_to_target": 100 if o == "reached" else None,
             "stopped_at": 100 if o == "reached" else 1000,
             "lr_decayed": o != "reached", "decayed_at": None if o == "reached" else 600}
            for i, (o, a) in enumerate(zip(outcomes, acc, strict=True))]


def memorization_table(table, arms, name="memorization_runs"):
    """``{arm: (outcomes, accuracies)}`` as table ``name`` (the full attention's, or the causal
    arms' ``masked_runs``); the blind ceiling is 0.8, the token ceiling 0.7."""
    rows = []
    for arm, (outcomes, acc) in arms.items():
        rows += cell_rows(runs_of(outcomes, acc), PROTO, arm=arm, N=8, n=4, d=16, pairs=4,
                          conflicts=4, width=64, blind_ceiling=0.8, token_ceiling=0.7, **RUN)
    return {name: table(f"{name}_synthetic", rows)}


def heads_table(table, single):
    rows = []
    for (h, s), outcomes in (((1, 1), single), ((2, 1), ["reached"] * 5)):
        rows += cell_rows(runs_of(outcomes), PROTO, heads=h, head_size=s, N=16, pairs=8, width=64,
                          **RUN)
    return {"heads_rank": table("heads_synthetic", rows)}


def width_table(table, widths_by_n, decided=True):
    """``{N: smallest width found to fit, or None}``; ``decided``: whether the next smaller grid
    width (or, with None, the widest) had every run decided."""
    rows = []
    for N, best in widths_by_n.items():
        outcomes = ["reached", "plateau", "reached"] if best else ["plateau", "budget", "plateau"]
        rows += cell_rows(runs_of(outcomes), PROTO, N=N, n=4, width=best or 1024,
                          minimal_width=best, minimal_width_decided=decided, widest_in_grid=1024,
                          construction_ffn_width=4 * N, **RUN)
    return {"width_vs_N": table("width_synthetic", rows)}


def copy_table(table, cells_by_pattern):
    """``{pattern: (outcomes, accuracies)}`` at depth 4."""
    rows = [row for pattern, (outcomes, acc) in cells_by_pattern.items()
            for row in cell_rows(runs_of(outcomes, acc), PROTO, pattern=pattern, depth=4, n=16,
                                 vocab=8, chance=0.125, **RUN)]
    return {"copy_depth": table("copy_synthetic", rows)}


REACH5, PLATEAU5 = ["reached"] * 5, ["plateau"] * 5
ONE_OF_FIVE = ["plateau"] * 4 + ["reached"]
GOOD_CONTROLS = {"uniform": (PLATEAU5, [0.8] * 5), "hardmax": (PLATEAU5, [0.75] * 5),
                 "no_attention": (PLATEAU5, [0.7] * 5)}


def memorization_case(softmax, fixed=(REACH5, None), name="memorization_runs", **controls):
    return lambda table: memorization_table(table, {"softmax": softmax, "fixed": fixed,
                                                    **{**GOOD_CONTROLS, **controls}}, name)


def masked_case(softmax, **controls):
    """The causal arms' table alone: a masked claim that read the full attention's table would
    find nothing to judge."""
    return memorization_case(softmax, name="masked_runs", **controls)


def copy_case(**patterns):
    base = {"dense": (REACH5, [0.995] * 5), "strided": (REACH5, [0.995] * 5),
            "fixed": (REACH5, [0.995] * 5), "star": (PLATEAU5, [0.5] * 5),
            "random": (PLATEAU5, [0.4] * 5)}
    return lambda table: copy_table(table, {**base, **patterns})


def reach_case(budget=0, **cells):
    """Copy cells ``{"<pattern>_L<depth>": (reach ceiling, accuracies)}``, 512 held-out sequences
    of n = 16 (4,096 scored tokens), vocabulary 8; each cell's first ``budget`` runs stopped at
    their budget, the others plateaued."""
    def build(table):
        rows = []
        for name, (ceiling, acc) in cells.items():
            pattern, depth = name.split("_L")
            outcomes = ["budget"] * budget + ["plateau"] * (len(acc) - budget)
            rows += cell_rows(runs_of(outcomes, acc), PROTO, pattern=pattern,
                              depth=int(depth), n=16, vocab=8, chance=0.125,
                              reach_ceiling=ceiling, held_out_tokens=4096, **RUN)
        return {"copy_depth": table("copy_reach", rows)}
    return build


LINEAR = {10: 4, 20: 9, 40: 16, 80: 30, 160: 62}
#: claim -> (tables that pass, tables that contradict it, tables that cannot decide it)
CASES = {
    # existence: one seed of five suffices; none after the decay contradicts; a run at its budget
    # with none reached decides nothing
    "rank1_memorizes": (
        memorization_case((ONE_OF_FIVE, None)),
        memorization_case((PLATEAU5, [0.96] * 5)),
        memorization_case((["plateau"] * 4 + ["budget"], [0.96] * 5))),
    "fixed_projection_memorizes": (
        memorization_case((REACH5, None), fixed=(ONE_OF_FIVE, None)),
        memorization_case((REACH5, None), fixed=(PLATEAU5, [0.9] * 5)),
        memorization_case((REACH5, None), fixed=(["budget"] * 5, [0.9] * 5))),
    "softmax_beats_blind_ceiling": (
        memorization_case((PLATEAU5, [0.75, 0.8, 0.78, 0.8, 0.85])),
        memorization_case((PLATEAU5, [0.8] * 5)),
        memorization_case((["budget"] * 5, [0.8] * 5))),
    # cannot: above the exact ceiling is a contradiction; a run at its budget leaves it open
    "uniform_capped": (
        memorization_case((REACH5, None)),
        memorization_case((REACH5, None), uniform=(PLATEAU5, [0.8, 0.8, 0.85, 0.8, 0.8])),
        memorization_case((REACH5, None), uniform=(["budget"] + ["plateau"] * 4, [0.8] * 5))),
    "hardmax_capped": (
        memorization_case((REACH5, None)),
        memorization_case((REACH5, None), hardmax=(PLATEAU5, [0.9] * 5)),
        memorization_case((REACH5, None), hardmax=(["budget"] * 5, [0.7] * 5))),
    "no_attention_bounded": (
        memorization_case((REACH5, None)),
        memorization_case((REACH5, None), no_attention=(PLATEAU5, [0.75] * 5)),
        memorization_case((REACH5, None), no_attention=(["budget"] * 5, [0.7] * 5))),
    # the causal (masked) arms: the same quantifiers against the prefix blind ceiling
    "masked_rank1_memorizes": (
        masked_case((ONE_OF_FIVE, None)),
        masked_case((PLATEAU5, [0.96] * 5)),
        masked_case((["plateau"] * 4 + ["budget"], [0.96] * 5))),
    "masked_softmax_beats_prefix_ceiling": (
        masked_case((PLATEAU5, [0.75, 0.8, 0.78, 0.8, 0.85])),
        masked_case((PLATEAU5, [0.8] * 5)),
        masked_case((["budget"] * 5, [0.8] * 5))),
    "masked_uniform_capped": (
        masked_case((REACH5, None)),
        masked_case((REACH5, None), uniform=(PLATEAU5, [0.8, 0.8, 0.85, 0.8, 0.8])),
        masked_case((REACH5, None), uniform=(["budget"] + ["plateau"] * 4, [0.8] * 5))),
    "masked_hardmax_capped": (
        masked_case((REACH5, None)),
        masked_case((REACH5, None), hardmax=(PLATEAU5, [0.9] * 5)),
        masked_case((REACH5, None), hardmax=(["budget"] * 5, [0.7] * 5))),
    "masked_no_attention_bounded": (
        masked_case((REACH5, None)),
        masked_case((REACH5, None), no_attention=(PLATEAU5, [0.75] * 5)),
        masked_case((REACH5, None), no_attention=(["budget"] * 5, [0.7] * 5))),
    "heads_rank_capacity": (
        lambda table: heads_table(table, ONE_OF_FIVE),
        lambda table: heads_table(table, PLATEAU5),
        lambda table: heads_table(table, ["budget"] + ["plateau"] * 4)),
    # the smallest width found is an upper bound: enough for "at most n N" even where the width
    # below it is undecided; none found decides only when every run up to the widest did
    "width_below_construction": (
        lambda table: width_table(table, LINEAR, decided=False),
        lambda table: width_table(table, {**LINEAR, 160: 1024}),
        lambda table: width_table(table, {**LINEAR, 160: None}, decided=False)),
    # five N: a slope near 1 passes, a slope near 2 fails; four N, or an undecided N, decide nothing
    "width_growth": (
        lambda table: width_table(table, LINEAR),
        lambda table: width_table(table, {10: 2, 20: 8, 40: 32, 80: 128, 160: 512}),
        lambda table: width_table(table, {**LINEAR, 160: None}, decided=False)),
    # mean: one seed below the target may leave the mean above it; a seed at its budget leaves it
    # open
    "copy_dense": (
        copy_case(dense=(["reached"] * 4 + ["plateau"], [0.995] * 4 + [0.98])),
        copy_case(dense=(["reached"] * 4 + ["plateau"], [0.995] * 4 + [0.8])),
        copy_case(dense=(["reached"] * 4 + ["budget"], [0.995] * 4 + [0.8]))),
    "copy_strided_fixed": (
        copy_case(),
        copy_case(fixed=(["reached"] * 3 + ["plateau"] * 2, [0.995] * 3 + [0.79, 0.9])),
        copy_case(fixed=(["reached"] * 4 + ["budget"], [0.995] * 4 + [0.9]))),
    "copy_star_random_fail": (
        copy_case(star=(["reached"] + ["plateau"] * 4, [0.995, 0.96, 0.43, 0.5, 0.9])),
        copy_case(random=(["reached"] * 4 + ["plateau"], [0.995] * 4 + [0.99])),
        copy_case(random=(["budget"] + ["plateau"] * 4, [0.5] * 5))),
    # cannot (an exact bound up to the held-out set's sampling noise): a run one standard error
    # (21 tokens of 4,096) above its ceiling is noise, 0.2 against 0.125 is a leak; a table where
    # every cell routes every source has nothing to test
    "copy_within_reach": (
        reach_case(strided_L1=(0.125, [0.126, 0.1304, 0.121]), random_L1=(0.34375, [0.3438] * 3),
                   random_L4=(1.0, [0.6] * 3)),
        reach_case(strided_L1=(0.125, [0.126, 0.2, 0.121]), random_L1=(0.34375, [0.3438] * 3)),
        reach_case(dense_L1=(1.0, [1.0] * 3), random_L4=(1.0, [0.6] * 3))),
}


def test_a_run_at_its_budget_leaves_the_reach_check_open_unless_it_fails(table):
    """A leak could still show in a run that had not stopped; one already above its ceiling
    decides."""
    within = reach_case(budget=1, strided_L1=(0.125, [0.126, 0.124, 0.125]))(table)
    assert_not_evaluated(CLAIMS["copy_within_reach"], within, "censored")
    above = reach_case(budget=1, strided_L1=(0.125, [0.126, 0.2, 0.125]))(table)
    assert_fails(CLAIMS["copy_within_reach"], above)


def judged(claim, tables):
    row = CLAIMS[claim].judge(tables)
    return row["status"], row


#: The reason each claim's undecided case gives (a run at its budget censors all but the reach
#: check, which a table with no ceiling below 1 leaves without items).
REASONS = {claim: "censored" for claim in CASES} | {"copy_within_reach": "no items"}


def test_every_claim_has_its_three_cases_and_names_its_quantifier():
    # the papers' experiments and the capacity experiment have their cases in
    # test_trained_models_papers.py and test_trained_models_capacity.py
    own = {c.id.split(".", 1)[1] for c in (*papers.CLAIMS, *capacity.CLAIMS)}
    assert set(CASES) == set(CLAIMS) - own
    assert all(c.quantifier in QUANTIFIERS for c in CLAIMS.values())


@pytest.mark.parametrize("claim", sorted(CASES))
def test_claim_passes_on_evidence_that_supports_it(table, claim):
    row = assert_passes(CLAIMS[claim], CASES[claim][0](table))
    assert row["quantifier"] == CLAIMS[claim].quantifier


@pytest.mark.parametrize("claim", sorted(CASES))
def test_claim_fails_on_evidence_that_contradicts_it(table, claim):
    assert_fails(CLAIMS[claim], CASES[claim][1](table))


@pytest.mark.parametrize("claim", sorted(CASES))
def test_claim_is_not_evaluated_without_deciding_evidence(table, claim):
    row = assert_not_evaluated(CLAIMS[claim], CASES[claim][2](table), REASONS[claim])
    assert math.isnan(row["measured"])


#: The statistical findings of the stage, each with tables where its test cannot tell the named
#: alternative apart: it would pass, but is not evaluated (underpowered).
UNDERPOWERED = {
    # FIXED and STRIDED unreliable (2 of 5 seeds plateau): drawn like them, STAR and RANDOM would
    # often stay below the target in the mean too
    "copy_star_random_fail": copy_case(
        strided=(["reached"] * 3 + ["plateau"] * 2, [0.995] * 3 + [0.6, 0.7]),
        fixed=(["reached"] * 3 + ["plateau"] * 2, [0.995] * 3 + [0.5, 0.9]),
        dense=(["reached"] * 3 + ["plateau"] * 2, [0.995] * 3 + [0.8, 0.9])),
    # STAR and RANDOM copy with most seeds: drawn like them, DENSE would often reach it too
    "copy_dense": copy_case(star=(["reached"] * 4 + ["plateau"], [0.995] * 4 + [0.9]),
                            random=(["reached"] * 4 + ["plateau"], [0.995] * 4 + [0.9])),
    "copy_strided_fixed": copy_case(star=(REACH5, [0.995] * 5), random=(REACH5, [0.995] * 5)),
}


def test_the_statistical_findings_of_the_stage_are_these():
    """width_growth excludes its alternative by an interval, so its power against it is one minus
    the test's one-sided size whatever the data: about 0.97 against N^2 (the slope interval
    excludes 2); the pass cases above show it."""
    assert {c for c, claim in CLAIMS.items() if claim.statistical} == \
        {*UNDERPOWERED, "width_growth",
         # the papers' experiments (test_trained_models_papers.py)
         "random_below_deterministic", "sparsity_monotone", "star_load",
         "hybrid_alternatives_below_attention", "hybrid_partial_replace", "hybrid_monotone_k",
         "count_receptive_field"}


@pytest.mark.parametrize("claim", sorted(UNDERPOWERED))
def test_a_finding_that_cannot_tell_its_alternative_apart_is_not_evaluated(table, claim):
    tables = UNDERPOWERED[claim](table)
    row = assert_not_evaluated(CLAIMS[claim], tables, "underpowered")
    assert row["power"] < 0.8 and "would have passed" in row["note"]
    power = CLAIMS[claim].simulate_power(tables)
    assert power == CLAIMS[claim].simulate_power(tables)  # same tables and seed, same rows
    assert [p.alternative for p in power] == list(CLAIMS[claim].alternatives)
    assert all(p.replicates >= 200 for p in power)


def test_the_note_reports_reliability_and_the_cpu_kernels(table):
    """Existence decides; the reliability (1 of 5 seeds, Wilson interval 0.04-0.62) and the CPU
    kernels the tables were computed with (they can tip a seed at a plateau's edge) are read and
    reported."""
    _, row = judged("rank1_memorizes", CASES["rank1_memorizes"][0](table))
    assert "1/5 seeds (95 % interval 0.04-0.62)" in row["note"] and "AVX2 kernels" in row["note"]


def test_width_growth_needs_five_values_of_n(table):
    four = width_table(table, {10: 4, 20: 9, 40: 16, 80: 30})
    status, row = judged("width_growth", four)
    assert status == "not evaluated" and "at least 5 N" in row["note"]


# ---- the rows of config/ci.yaml's jobs -----------------------------------------------------


@pytest.fixture(scope="module")
def memorization(table):
    runs = [row for arm in ARMS for row in memorization_rows(arm=arm, **TM_MEMORIZATION)[1]]
    return {"memorization_runs": table("memorization_runs", runs)}


@pytest.mark.parametrize("claim", ["softmax_beats_blind_ceiling", "uniform_capped",
                                   "hardmax_capped", "no_attention_bounded"])
def test_memorization_bounds_hold_on_the_ci_run(memorization, claim):
    """The ceilings are exact: no control arm exceeds them, whatever training did (a run at its
    budget leaves a 'cannot' check open, never failed)."""
    status, row = judged(claim, memorization)
    assert status in ("pass", "not evaluated"), row["note"]


@pytest.mark.parametrize("claim,arm", [("rank1_memorizes", "softmax"),
                                       ("fixed_projection_memorizes", "fixed")])
def test_memorization_claims_read_the_cell_existence(memorization, claim, arm):
    runs = memorization["memorization_runs"]
    cell = runs[runs["arm"] == arm].iloc[0]
    status, _ = judged(claim, memorization)
    expected = {"yes": "pass", "no": "fail"}.get(cell["cell_existence"], "not evaluated")
    assert status == expected
    reached = runs[(runs["arm"] == arm) & (runs["outcome"] == "reached")]
    assert (reached["accuracy"] == 1.0).all()


def test_controls_sit_below_the_blind_ceiling(memorization):
    df = memorization["memorization_runs"]
    ceiling = df["blind_ceiling"].iloc[0]
    assert ceiling < 1
    assert df[df["arm"].isin(["uniform", "hardmax"])]["accuracy"].max() <= ceiling
    assert df[df["arm"] == "softmax"]["accuracy"].max() > ceiling


@pytest.fixture(scope="module")
def masked(table):
    runs = [row for arm in TM_MASKED_ARMS for row in memorization_rows(arm=arm, **TM_MASKED)[1]]
    return {"masked_runs": table("masked_runs", runs)}


def test_masked_claims_on_the_ci_run(masked):
    """The causal arms on prefix segment pairs: no control exceeds the exact prefix blind ceiling
    (below 1), and the existence claim reads the softmax cell's existence."""
    df = masked["masked_runs"]
    assert df["causal"].all() and df["blind_ceiling"].iloc[0] < 1
    for claim in ("masked_softmax_beats_prefix_ceiling", "masked_uniform_capped",
                  "masked_hardmax_capped", "masked_no_attention_bounded"):
        status, row = judged(claim, masked)
        assert status in ("pass", "not evaluated"), row["note"]
    cell = df[df["arm"] == "softmax"].iloc[0]
    expected = {"yes": "pass", "no": "fail"}.get(cell["cell_existence"], "not evaluated")
    assert judged("masked_rank1_memorizes", masked)[0] == expected


def test_heads_claim_on_the_ci_run(table):
    rows = [row for h, s in TM_HEADS for row in heads_rows(heads=h, size=s, **TM_HEADS_RUN)]
    status, row = judged("heads_rank_capacity", {"heads_rank": table("heads_rank", rows)})
    assert "h=1 s=1" in row["note"] and "95 % interval" in row["note"]


def test_dense_copies_on_the_ci_run(table):
    """DENSE reaches the target in the mean; without STAR and RANDOM runs to stand for the
    alternative, the power is not simulated, so the claim would pass but is not evaluated."""
    rows = copy_rows(pattern="dense", depth=2, **TM_COPY)
    row = assert_not_evaluated(CLAIMS["copy_dense"], {"copy_depth": table("copy_depth", rows)},
                               "underpowered")
    assert row["measured"] >= 0.99 and "no power simulation" in row["note"]


def test_window_cannot_copy_beyond_its_reach():
    """Built to fail: one window layer (half-width 1) cannot see n/2 = 4 positions back, so the
    output is independent of the copied token: every seed stays near chance 1/4 and plateaus,
    after its learning-rate decay."""
    rows = copy_rows(pattern="window", depth=1, **{**TM_COPY, "budget": 400})
    assert all(r["accuracy"] < 0.6 and r["outcome"] == "plateau" and r["lr_decayed"]
               for r in rows)
    assert rows[0]["cell_existence"] == "no" and rows[0]["cell_reliability"] == 0


def test_a_censored_pattern_leaves_a_copying_claim_open_only_if_it_could_change_it(table):
    """STAR learned in the mean contradicts "STAR and RANDOM fail" whatever RANDOM, still at its
    budget, does next; a STAR still rising leaves it open."""
    random_open = (["budget"] + ["plateau"] * 4, [0.7] + [0.5] * 4)
    learned = copy_case(star=(REACH5, [0.995] * 5), random=random_open)(table)
    row = assert_fails(CLAIMS["copy_star_random_fail"], learned)
    assert "RANDOM has a seed at its budget, which cannot change the verdict" in row["note"]
    rising = copy_case(star=(["budget"] + ["reached"] * 4, [0.9] + [0.995] * 4),
                       random=(PLATEAU5, [0.5] * 5))(table)
    assert_not_evaluated(CLAIMS["copy_star_random_fail"], rising, "censored")


def test_the_copying_note_says_what_each_trained_mask_covers(table):
    """Whether Yun et al.'s theorem covers a pattern depends on the masks trained (a random draw
    can miss Assumption 1): the note reads it from the cell."""
    cover = (("star", (True, 2, 1.0)), ("random", (False, None, 0.78125)))
    rows = [row for pattern, (holds, reach, ceiling) in cover
            for row in cell_rows(runs_of(PLATEAU5, [0.5] * 5), PROTO, pattern=pattern, depth=4,
                                 n=16, vocab=8, chance=0.125, assumption1=holds,
                                 reach_layers=reach, reach_ceiling=ceiling, **RUN)]
    _, row = judged("copy_star_random_fail", {"copy_depth": table("copy_cover", rows)})
    assert ("(Assumption 1 holds, every token reaches every token after 2 layers; its masks "
            "route every source to its copy)") in row["note"]
    assert ("(Assumption 1 fails, some token never reaches every token; reach ceiling 0.7812)"
            in row["note"])
