"""The encoder jobs (expressivity.experiments.trained_models.encoders and papers): copying with
sparse patterns, the hybrids on counting and recall."""

import numpy as np
from cases import TM_COPY, TM_HYBRID

from expressivity.experiments.trained_models.encoders import copy_rows
from expressivity.experiments.trained_models.papers import hybrid_rows


def test_encoder_rows_are_reproducible_and_take_wildcards_as_strings():
    copy = {**TM_COPY, "budget": 10, "every": 5, "window": 5}
    rows = copy_rows(pattern="dense", depth=1, **copy)
    assert rows == copy_rows(pattern="dense", depth="1", **copy)
    # dense attention: every token hears every token after one layer (Assumption 1, s = 1)
    assert rows[0]["assumption1"] is True and rows[0]["reach_layers"] == 1
    assert rows[0]["reach_ceiling"] == 1.0
    assert rows[0]["held_out_tokens"] == copy["eval_size"] * copy["n"] // 2
    # one layer of STAR: only the relay's own copy target hears its source
    star = copy_rows(pattern="star", depth=1, **copy)[0]
    assert star["reach_ceiling"] < 1 and star["reach_layers"] == 2
    hybrid = {**TM_HYBRID, "budget": 10, "every": 5, "window": 5}
    rows = hybrid_rows(task="count", alternative="conv", kernel=3, k=0, **hybrid)
    assert rows == hybrid_rows(task="count", alternative="conv", kernel="3", k="0", **hybrid)
    assert 0 < rows[0]["majority"] < 1 and len(rows) == hybrid["seeds"] * len(hybrid["lr"])


def test_recall_and_counting_draw_their_own_sizes():
    """Recall's length and keys come from ``n`` and ``recall_vocab``, counting's from ``count_n``
    and ``vocab``."""
    hybrid = {**TM_HYBRID, "budget": 10, "every": 5, "window": 5, "seeds": 1, "lr": [0.01],
              "n": 8, "count_n": 6, "vocab": 3, "recall_vocab": 5}
    recall = hybrid_rows(task="recall", alternative="attention", kernel=0, k=hybrid["depth"],
                         **hybrid)
    count = hybrid_rows(task="count", alternative="conv", kernel=3, k=0, **hybrid)
    assert {(r["n"], r["vocab"]) for r in recall} == {(8, 5)}
    assert {(r["n"], r["vocab"]) for r in count} == {(6, 3)}
    assert recall[0]["majority"] == 1 / 5


def test_a_grid_of_learning_rates_trains_side_by_side_each_rate_as_alone():
    """Every (rate, seed) of the grid has one row, seed k on the same stream at every rate; a
    rate's runs beside the others are those it has alone (to rounding)."""
    copy = {**TM_COPY, "budget": 20, "every": 5, "window": 10, "seeds": 2}
    grid = copy_rows(pattern="strided", depth=2, **{**copy, "lr": [0.01, 0.003]})
    alone = copy_rows(pattern="strided", depth=2, **{**copy, "lr": [0.003]})
    assert [(r["lr"], r["seed_index"]) for r in grid] == [
        (lr, k) for lr in (0.01, 0.003) for k in range(2)]
    side = [r for r in grid if r["lr"] == 0.003]
    assert [r["stopped_at"] for r in side] == [r["stopped_at"] for r in alone]
    np.testing.assert_allclose([r["loss"] for r in side], [r["loss"] for r in alone], rtol=1e-4)
