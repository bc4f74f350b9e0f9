"""The trained memorization jobs (expressivity.experiments.trained_models.memorization) on
config/ci.yaml's cases: the same wildcards give the same rows, as strings (from Snakemake) or
numbers; every row carries its cell's verdict, existence, reliability and protocol."""

import pytest
from cases import (
    TM_HEADS,
    TM_HEADS_RUN,
    TM_MEMORIZATION,
    TM_SHORT,
)

from expressivity.experiments.trained_models.memorization import heads_rows, memorization_rows
from expressivity.training_protocol import EXISTENCE, VERDICTS


def test_rows_are_reproducible_and_take_wildcards_as_strings():
    mem = {**TM_MEMORIZATION, **TM_SHORT}
    curve, runs = memorization_rows(arm="hardmax", **mem)
    assert (curve, runs) == memorization_rows(arm="hardmax", **mem)
    assert len(runs) == mem["seeds"] * len(mem["lr"])
    assert {r["cell_verdict"] for r in runs} <= set(VERDICTS)
    assert {r["cell_existence"] for r in runs} <= set(EXISTENCE)
    assert all(r["budget"] == 20 and r["window"] == 10 and r["lr_decay"] == mem["lr_decay"]
               and r["blind_ceiling"] < 1 and 0 <= r["cell_reliability_lo"]
               <= r["cell_reliability"] <= r["cell_reliability_hi"] <= 1 for r in runs)
    h, s = TM_HEADS[0]
    heads = {**TM_HEADS_RUN, **TM_SHORT}
    assert heads_rows(heads=h, size=s, **heads) == heads_rows(heads=str(h), size=str(s), **heads)


def test_unknown_arm_is_refused():
    with pytest.raises(ValueError, match="unknown arm"):
        memorization_rows(arm="sparsemax", **TM_MEMORIZATION)


def test_a_grid_of_learning_rates_trains_side_by_side_each_rate_as_alone():
    """Every (rate, seed) has its run and its curve; a rate's runs beside the others are those
    it has alone (to rounding)."""
    mem = {**TM_MEMORIZATION, **TM_SHORT, "seeds": 2}
    curve, runs = memorization_rows(arm="softmax", **{**mem, "lr": [0.003, 0.01]})
    alone_curve, alone = memorization_rows(arm="softmax", **{**mem, "lr": [0.01]})
    assert [(r["lr"], r["seed_index"]) for r in runs] == [
        (lr, k) for lr in (0.003, 0.01) for k in range(2)]
    assert {(p["lr"], p["seed_index"]) for p in curve} == {(r["lr"], r["seed_index"]) for r in runs}
    side = [r for r in runs if r["lr"] == 0.01]
    assert [r["stopped_at"] for r in side] == [r["stopped_at"] for r in alone]
    assert [r["loss"] for r in side] == pytest.approx([r["loss"] for r in alone], rel=1e-4)
    assert [p["loss"] for p in curve if p["lr"] == 0.01] == pytest.approx(
        [p["loss"] for p in alone_curve], rel=1e-4)
