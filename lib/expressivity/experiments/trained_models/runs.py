"""What every trained-models job shares: its seeds, its protocol, its rows and its progress lines.

- ``run_seeds``: one torch seed per training seed, each from its own stream ``rng.generator(seed,
  "trained_models.<job>", **keys, seed=i)``, so adding seeds leaves the first ones unchanged;
- ``protocol``: the stopping rule of a job (``expressivity.training_protocol.Protocol``) from its
  settings (each task family has its own budget, window and evaluation interval in the config);
- ``cell_rows``: the rows of one cell (one per run) with the cell's summary over seeds and
  learning rates (``expressivity.training_protocol.cell_summary``: existence, reliability with its
  Wilson interval, every-seed verdict, mean, spread, steps to the target) and the protocol's
  settings, so every table records its budget and window; ``cells_summarised`` recomputes that
  summary where a cell's learning rates ran as jobs of their own (``lr_name`` names them);
- ``replicas``: the (learning rate, seed) pairs of a cell, trained side by side as replicas of
  one training;
- ``job_progress``: a ``joblog.Progress`` over the job's steps (or None without a log);
- ``copy_masks``: the masks of a copy-table cell, layer by layer (the job trains them, the plan
  reads from them whether the cell can reach its target).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import pandas as pd

from expressivity.arguments import integer
from expressivity.joblog import Progress
from expressivity.rng import generator
from expressivity.sparse_patterns import pattern_masks
from expressivity.training_protocol import Protocol, cell_summary

STAGE = "trained_models"


def wildcard(name: str, value, low: int) -> int:
    """A job's integer wildcard (a string from Snakemake, or a number) as an ``int >= low``."""
    if isinstance(value, str) and value.isdigit():
        value = int(value)
    return integer(name, value, low)


def run_seeds(seed: int, job: str, seeds: int, **keys) -> tuple[int, ...]:
    """``seeds`` torch seeds of job ``job`` (its wildcards in ``keys``), one stream each."""
    from expressivity.torch_runtime import torch_seed  # torch in the job, not the workflow's DAG

    integer("seeds", seeds, 1)
    return tuple(torch_seed(generator(seed, f"{STAGE}.{job}", **keys, seed=i))
                 for i in range(seeds))


def copy_masks(pattern: str, depth: int, *, n: int, seed: int) -> tuple[list, list]:
    """A copy-table cell's cycle of ``pattern``'s masks at length ``n``
    (``sparse_patterns.pattern_masks``; a random pattern drawn from the stream
    ``rng.generator(seed, "trained_models.pattern", pattern=pattern)``) and its ``depth`` layers'
    masks, bottom first, cycling through it."""
    cycle = pattern_masks(pattern, n, rng=generator(seed, f"{STAGE}.pattern", pattern=pattern))
    return cycle, [cycle[layer % len(cycle)] for layer in range(integer("depth", depth, 1))]


def protocol(*, target: float, budget: int, every: int, window: int, min_gain: float,
             lr_decay: float) -> Protocol:
    """The stopping rule of a job (validated by ``Protocol``): its task family's budget, window
    and evaluation interval, the stage's ``min_gain`` and learning-rate decay."""
    return Protocol(target=target, budget=budget, every=every, window=window, min_gain=min_gain,
                    decay=lr_decay)


def learning_rates(lr: float | str | Sequence[float]) -> list[float]:
    """The learning-rate grid of a job: a list, one number, or one number as a job's wildcard
    (``lr_name``)."""
    try:
        grid = [float(x) for x in (lr if isinstance(lr, (list, tuple)) else [lr])]
    except ValueError:
        grid = []
    if not grid or any(not 0 < x < float("inf") for x in grid):
        raise ValueError(f"lr must be a number > 0 or a non-empty list of them, got {lr!r}")
    return grid


def replicas(lrs: Sequence[float], seeds: int) -> list[tuple[float, int]]:
    """The replicas of a cell trained side by side: every (learning rate, seed index), rate by
    rate."""
    return [(lr, k) for lr in lrs for k in range(seeds)]


def lr_name(lr: float) -> str:
    """A learning rate as a job's wildcard: the shortest text that reads back as the same float,
    so distinct rates name distinct jobs."""
    return repr(float(lr))


def cells_summarised(table: pd.DataFrame, keys: Sequence[str]) -> pd.DataFrame:
    """``table`` (rows of runs from jobs that each trained some of a cell's learning rates) with
    every cell's summary (``cell_summary``) recomputed over all its rows, a cell being the rows
    that agree on ``keys``: the summary one job over the cell's whole grid would have written."""
    missing = sorted(set(keys) - set(table.columns))
    if missing:
        raise ValueError(f"the runs have no column {', '.join(missing)} to group cells by")
    summaries = {}
    for _, cell in table.groupby(list(keys), sort=False, dropna=False):
        runs = [{k: (None if k == "longest_stall" and pd.isna(v) else v) for k, v in run.items()}
                for run in cell.to_dict("records")]
        summaries.update(dict.fromkeys(cell.index, cell_summary(runs)))
    summary = pd.DataFrame.from_dict(summaries, orient="index").loc[table.index]
    table = table.copy()
    for column in summary:
        table[column] = summary[column]
    return table


def cell_rows(runs: list[dict], proto: Protocol, **cell) -> list[dict]:
    """One row per run: ``cell`` (the configuration), the run, the cell's summary
    (``cell_summary``: every-seed verdict, existence, reliability with its interval, mean and
    spread) and the protocol's settings."""
    summary = cell_summary(runs)
    return [{**cell, **run, **summary, **proto.settings()} for run in runs]


def job_progress(log: logging.Logger | None, what: str, total: float) -> Progress | None:
    """Progress lines (done/total steps, elapsed, remaining) to ``log``; None without one. The
    total is the budget: runs stopped early make the remaining time an upper bound."""
    return None if log is None else Progress(log, what, total)
