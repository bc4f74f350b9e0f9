"""What every trained-models job shares: its seeds, its protocol, its rows and its progress lines.

- ``run_seeds``: one torch seed per training seed, each from its own stream ``rng.generator(seed,
  "trained_models.<job>", **keys, seed=i)``, so adding seeds leaves the first ones unchanged;
- ``protocol``: the stopping rule of a job (``expressivity.training_protocol.Protocol``) from its
  settings (each task family has its own budget, window and evaluation interval in the config);
- ``cell_rows``: the rows of one cell (one per run) with the cell's summary over seeds and
  learning rates (``expressivity.training_protocol.cell_summary``: existence, reliability with its
  Wilson interval, every-seed verdict, mean, spread, steps to the target) and the protocol's
  settings, so every table records its budget and window;
- ``job_progress``: a ``joblog.Progress`` over the job's steps (or None without a log).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from expressivity.arguments import integer
from expressivity.joblog import Progress
from expressivity.rng import generator
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


def protocol(*, target: float, budget: int, every: int, window: int, min_gain: float,
             lr_decay: float) -> Protocol:
    """The stopping rule of a job (validated by ``Protocol``): its task family's budget, window
    and evaluation interval, the stage's ``min_gain`` and learning-rate decay."""
    return Protocol(target=target, budget=budget, every=every, window=window, min_gain=min_gain,
                    decay=lr_decay)


def learning_rates(lr: float | Sequence[float]) -> list[float]:
    """The learning-rate grid of a job: a list, or one number."""
    grid = [float(x) for x in (lr if isinstance(lr, (list, tuple)) else [lr])]
    if not grid or any(not 0 < x < float("inf") for x in grid):
        raise ValueError(f"lr must be a number > 0 or a non-empty list of them, got {lr!r}")
    return grid


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
