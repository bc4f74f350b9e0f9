"""A cell's learning rates run as jobs of their own gather to the table one job would write."""

import pandas as pd
import pytest

from expressivity.experiments.trained_models.runs import (
    cell_rows,
    cells_summarised,
    learning_rates,
    lr_name,
    protocol,
)
from expressivity.io import read_table, write_table

PROTO = protocol(target=0.99, budget=900, every=10, window=300, min_gain=0.01, lr_decay=10)


def _run(lr, outcome, accuracy, stopped_at, stall):
    reached = outcome == "reached"
    return {"lr": lr, "outcome": outcome, "accuracy": accuracy, "stopped_at": stopped_at,
            "steps_to_target": stopped_at if reached else None, "lr_decayed": not reached,
            "longest_stall": stall}


#: Two cells, each run at two learning rates (grid order), three seeds each: the best rate differs
#: between the cells, and one cell has no stall of a run that reached the target.
CELLS = {
    "a": {0.001: [_run(0.001, "plateau", 0.8, 900, 400), _run(0.001, "reached", 0.995, 700, 300),
                  _run(0.001, "budget", 0.9, 900, 500)],
          0.01: [_run(0.01, "reached", 1.0, 200, 50), _run(0.01, "reached", 0.999, 250, 100),
                 _run(0.01, "plateau", 0.7, 800, 600)]},
    "b": {0.001: [_run(0.001, "plateau", 0.5, 600, 300)] * 3,
          0.01: [_run(0.01, "plateau", 0.6, 600, 300), _run(0.01, "reached", 0.99, 400, None),
                 _run(0.01, "diverged", 0.1, 50, None)]},
}


def _table(cell_runs, tmp_path, name):
    path = tmp_path / f"{name}.csv"
    write_table(pd.DataFrame(cell_runs), path)
    return read_table(path)


def test_a_cell_split_by_learning_rate_gathers_to_the_table_of_one_job(tmp_path):
    whole = pd.DataFrame([row for task, grid in CELLS.items()
                          for row in cell_rows([r for runs in grid.values() for r in runs], PROTO,
                                               task=task)])
    parts = [_table(cell_rows(runs, PROTO, task=task), tmp_path, f"{task}_lr{lr_name(lr)}")
             for task, grid in CELLS.items() for lr, runs in grid.items()]
    gathered = cells_summarised(pd.concat(parts, ignore_index=True), ["task"])
    write_table(whole, tmp_path / "whole.csv")
    write_table(gathered, tmp_path / "gathered.csv")
    assert (tmp_path / "gathered.csv").read_bytes() == (tmp_path / "whole.csv").read_bytes()
    # the parts alone disagree with the whole cell: the summary is the gather's to make
    assert not parts[0]["cell_lr"].eq(gathered["cell_lr"].iloc[0]).all()
    assert set(gathered.groupby("task")["cell_lr"].first()) == {0.01}


def test_cells_are_grouped_by_columns_the_runs_have():
    with pytest.raises(ValueError, match="attention_layers"):
        cells_summarised(pd.DataFrame(CELLS["a"][0.01]), ["attention_layers"])


@pytest.mark.parametrize("lr", [0.003, 1e-05, 0.1, 0.3, 3e-4, 0.0001234567891])
def test_a_learning_rate_names_its_job_and_reads_back(lr):
    assert float(lr_name(lr)) == lr and learning_rates(lr_name(lr)) == [lr]


@pytest.mark.parametrize("bad", ["fast", "", "0", "-0.1", "inf", []])
def test_a_learning_rate_that_is_not_one_is_refused_naming_lr(bad):
    with pytest.raises(ValueError, match="lr must be"):
        learning_rates(bad)
