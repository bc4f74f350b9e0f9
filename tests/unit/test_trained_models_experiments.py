"""The trained-models jobs (expressivity.experiments.trained_models) on config/ci.yaml's cases:
the same wildcards give the same rows, as strings (from Snakemake) or numbers; the width search."""

import numpy as np
from cases import TM_COPY, TM_DATASET, TM_HEADS, TM_MEMORIZATION, TM_MIXERS, TM_WIDTH, TM_WIDTH_N

from expressivity.datasets import token_separated_dataset
from expressivity.experiments.trained_models import (
    copy_rows,
    heads_rows,
    memorization_rows,
    minimal_width,
    mixers_rows,
    width_rows,
)


def test_rows_are_reproducible_and_take_wildcards_as_strings():
    assert memorization_rows(variant="fixed", **TM_MEMORIZATION) == \
        memorization_rows(variant="fixed", **TM_MEMORIZATION)
    h, s = TM_HEADS[0]
    assert heads_rows(heads=h, size=s, **TM_MEMORIZATION) == \
        heads_rows(heads=str(h), size=str(s), **TM_MEMORIZATION)
    N = TM_WIDTH_N[0]  # noqa: N806
    assert width_rows(N=N, **TM_WIDTH) == width_rows(N=str(N), **TM_WIDTH)
    assert copy_rows(pattern="dense", depth=1, **TM_COPY) == \
        copy_rows(pattern="dense", depth="1", **TM_COPY)
    assert mixers_rows(alternative="conv", k=0, **TM_MIXERS) == \
        mixers_rows(alternative="conv", k="0", **TM_MIXERS)


def test_minimal_width_stops_at_first_success():
    ds = token_separated_dataset(np.random.default_rng(3), **TM_DATASET)
    best, runs = minimal_width(ds, [1, 64, 128], epochs=800, lr=0.03, seed=2)
    assert best == runs[-1]["width"] and runs[-1]["accuracy"] == 1.0
    assert all(r["accuracy"] < 1.0 for r in runs[:-1])
    assert len(runs) <= 2


def test_width_rows_record_every_width_tried():
    rows = width_rows(N=TM_WIDTH_N[0], **TM_WIDTH)
    assert [r["width"] for r in rows] == TM_WIDTH["widths"][:len(rows)]
    assert [r["reached"] for r in rows][:-1] == [False] * (len(rows) - 1)
    assert {r["minimal_width"] for r in rows} == {rows[-1]["width"] if rows[-1]["reached"]
                                                  else None}
