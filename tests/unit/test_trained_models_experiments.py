"""The trained-models jobs (expressivity.experiments.trained_models) on config/ci.yaml's cases:
the same wildcards give the same rows, as strings (from Snakemake) or numbers; every row carries
its cell's verdict and its protocol; the width bisection."""

import pytest
import yaml
from cases import (
    ROOT,
    TM_COPY,
    TM_HEADS,
    TM_HEADS_RUN,
    TM_MEMORIZATION,
    TM_MIXERS,
    TM_WIDTH,
    TM_WIDTH_N,
)

from expressivity.experiments.trained_models import cost
from expressivity.experiments.trained_models.encoders import copy_rows, mixers_rows
from expressivity.experiments.trained_models.memorization import heads_rows, memorization_rows
from expressivity.experiments.trained_models.width import minimal_width, width_rows
from expressivity.training_protocol import MIXED, PLATEAUS, REACHES, UNDECIDED

#: Short budgets: these tests check the rows, not what training reaches.
SHORT = {"budget": 20, "window": 10}


def test_rows_are_reproducible_and_take_wildcards_as_strings():
    mem = {**TM_MEMORIZATION, **SHORT}
    curve, runs = memorization_rows(arm="hardmax", **mem)
    assert (curve, runs) == memorization_rows(arm="hardmax", **mem)
    assert len(runs) == mem["seeds"] * len(mem["lr"])
    assert {r["cell_verdict"] for r in runs} <= {REACHES, PLATEAUS, MIXED, UNDECIDED}
    assert all(r["budget"] == 20 and r["blind_ceiling"] < 1 for r in runs)
    h, s = TM_HEADS[0]
    heads = {**TM_HEADS_RUN, **SHORT}
    assert heads_rows(heads=h, size=s, **heads) == heads_rows(heads=str(h), size=str(s), **heads)
    N = TM_WIDTH_N[0]  # noqa: N806
    width = {**TM_WIDTH, **SHORT}
    assert width_rows(N=N, **width) == width_rows(N=str(N), **width)
    copy = {**TM_COPY, "budget": 10, "every": 5, "window": 5}
    assert copy_rows(pattern="dense", depth=1, **copy) == \
        copy_rows(pattern="dense", depth="1", **copy)
    mixers = {**TM_MIXERS, "budget": 10, "every": 5, "window": 5}
    rows = mixers_rows(alternative="conv", k=0, **mixers)
    assert rows == mixers_rows(alternative="conv", k="0", **mixers)
    assert 0 < rows[0]["majority"] < 1 and len(rows) == mixers["seeds"] * len(mixers["lr"])


def test_unknown_arm_is_refused():
    with pytest.raises(ValueError, match="unknown arm"):
        memorization_rows(arm="sparsemax", **TM_MEMORIZATION)


@pytest.mark.parametrize("truth,expected", [
    ({w: REACHES if w >= 8 else PLATEAUS for w in range(1, 20)}, (8, True)),
    ({w: REACHES for w in range(1, 20)}, (1, True)),
    ({w: MIXED for w in range(1, 20)}, (None, True)),
    ({w: UNDECIDED if w == 16 else PLATEAUS for w in range(1, 20)}, (None, False)),
    ({w: REACHES if w >= 8 else (UNDECIDED if w == 4 else PLATEAUS) for w in range(1, 20)},
     (8, False)),
])
def test_minimal_width_bisects_the_grid(truth, expected):
    grid = [1, 2, 4, 8, 16]
    asked = []

    def verdict_of(q):
        asked.append(q)
        return truth[q]

    best, decided, tried = minimal_width(grid, verdict_of)
    assert (best, decided) == expected
    assert tried == asked and len(asked) <= len(grid).bit_length()
    with pytest.raises(ValueError, match="increasing"):
        minimal_width([4, 2], verdict_of)


def test_costs_grow_with_the_budget_and_stay_under_the_paper_cap():
    """The planner's (seconds, bytes) grow with the work; every job of config/paper.yaml stays
    under the SLURM profile's one-day cap."""
    short = cost.copy_cost(depth=4, seeds=3, n=16, vocab=8, d_model=32, heads=2, lr=[0.003],
                           batch=32, budget=100, every=50, window=100, eval_size=256)
    long = cost.copy_cost(depth=4, seeds=3, n=16, vocab=8, d_model=32, heads=2, lr=[0.003, 0.01],
                          batch=32, budget=1000, every=50, window=100, eval_size=256)
    assert long[0] > 10 * (short[0] - cost.START_SECONDS) and long[1] >= short[1]
    paper = yaml.safe_load((ROOT / "config/paper.yaml").read_text())["trained_models"]
    m, w = paper["memorization"], paper["width_search"]
    data = {k: m[k] for k in ("vocab_size", "d", "n", "n_classes")}
    widest = cost.width_cost(N=max(w["N"]), seeds=paper["seeds"], **data, widths=w["widths"],
                             lr=w["lr"], budget=w["budget"])
    assert widest[0] < 24 * 3600
