"""The encoder jobs (expressivity.experiments.trained_models.encoders): copying with sparse patterns
and token mixers on the counting task."""

from cases import (
    TM_COPY,
    TM_MIXERS,
)

from expressivity.experiments.trained_models.encoders import copy_rows, mixers_rows


def test_encoder_rows_are_reproducible_and_take_wildcards_as_strings():
    copy = {**TM_COPY, "budget": 10, "every": 5, "window": 5}
    assert copy_rows(pattern="dense", depth=1, **copy) == \
        copy_rows(pattern="dense", depth="1", **copy)
    mixers = {**TM_MIXERS, "budget": 10, "every": 5, "window": 5}
    rows = mixers_rows(alternative="conv", k=0, **mixers)
    assert rows == mixers_rows(alternative="conv", k="0", **mixers)
    assert 0 < rows[0]["majority"] < 1 and len(rows) == mixers["seeds"] * len(mixers["lr"])
