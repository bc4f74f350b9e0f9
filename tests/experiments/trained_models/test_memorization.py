"""The trained memorization jobs (expressivity.experiments.trained_models.memorization) on
config/ci.yaml's cases: the same wildcards give the same rows, as strings (from Snakemake) or
numbers; every row carries its cell's verdict and its protocol."""

import pytest
from cases import (
    TM_HEADS,
    TM_HEADS_RUN,
    TM_MEMORIZATION,
    TM_SHORT,
)

from expressivity.experiments.trained_models.memorization import heads_rows, memorization_rows
from expressivity.training_protocol import MIXED, PLATEAUS, REACHES, UNDECIDED


def test_rows_are_reproducible_and_take_wildcards_as_strings():
    mem = {**TM_MEMORIZATION, **TM_SHORT}
    curve, runs = memorization_rows(arm="hardmax", **mem)
    assert (curve, runs) == memorization_rows(arm="hardmax", **mem)
    assert len(runs) == mem["seeds"] * len(mem["lr"])
    assert {r["cell_verdict"] for r in runs} <= {REACHES, PLATEAUS, MIXED, UNDECIDED}
    assert all(r["budget"] == 20 and r["blind_ceiling"] < 1 for r in runs)
    h, s = TM_HEADS[0]
    heads = {**TM_HEADS_RUN, **TM_SHORT}
    assert heads_rows(heads=h, size=s, **heads) == heads_rows(heads=str(h), size=str(s), **heads)


def test_unknown_arm_is_refused():
    with pytest.raises(ValueError, match="unknown arm"):
        memorization_rows(arm="sparsemax", **TM_MEMORIZATION)
