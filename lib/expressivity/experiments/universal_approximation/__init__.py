"""The universal-approximation stage's jobs (Yun et al. 2020a/b; Fang et al. 2022; Kajitsuka &
Sato 2024 Prop. 1), one module per kind of job, so that each job depends only on the mathematics it
uses:

* ``lemma6``: Yun et al.'s selective-shift contextual mapping (Lemma 6) on every input of a grid,
  hardmax against the integer reference and softmax in its place;
* ``approximation``: the end-to-end ``L^p`` error of Yun et al.'s and Kajitsuka & Sato's routes
  against ``delta``;
* ``patterns``: Assumption 1 and the connections of each sparse pattern, and the sparse
  selective-shift contextual mapping (Yun et al. 2020b);
* ``polynomial``: Fang et al.'s polynomial blocks (the staircase of errors, noisy regression).

Each function takes a job's wildcards and the settings of its section of the config
(``universal_approximation.<section>``) by keyword, under the config's names, and returns the
rows of the job's table; the workflow scripts, the tests and the benchmark call the same functions.
Random streams come from ``expressivity.rng.generator(seed, "universal_approximation.<job>",
**wildcards)``, so a job's rows do not depend on which other jobs run. Jobs that can run longer
than a minute at paper scale write progress lines with the remaining time to ``log``
(``expressivity.joblog.Progress``).

``*_cost`` functions predict a job's CPU seconds and peak memory from the same settings (driven by
the grid sizes ``m^(n d)`` and the table sizes): the rules' ``runtime`` and ``mem_mb``. Their
rates were measured on one core of the development machine under load; ``runtime`` doubles them.
This module holds what the jobs share: argument checks of list settings and progress lines.
"""

from __future__ import annotations

import logging

from expressivity.arguments import integer
from expressivity.joblog import Progress
from expressivity.sparse_patterns import check_pattern_name

STAGE = "universal_approximation"
#: Bytes in a megabyte of the cost models.
MB = 2**20


def sizes(name: str, values, low: int) -> list[int]:
    """A non-empty list of integers >= ``low`` (an empty one would make an empty table)."""
    if isinstance(values, (str, bytes)) or not hasattr(values, "__len__") or len(values) == 0:
        raise ValueError(f"{name} must be a non-empty list of integers >= {low}, got {values!r}")
    return [integer(f"{name}[{i}]", v, low) for i, v in enumerate(values)]


def pattern_names(names) -> list[str]:
    """A non-empty list of sparse-pattern names."""
    if isinstance(names, str) or not names:
        raise ValueError(f"names must be a non-empty list of pattern names, got {names!r}")
    return [check_pattern_name(name) for name in names]


def tracker(log: logging.Logger | None, what: str, total: float) -> Progress | None:
    """Progress lines with the remaining time to ``log`` (None without a log or work)."""
    return Progress(log, what, total) if log is not None and total > 0 else None


def advance(progress: Progress | None, done: float, **values) -> None:
    """``progress.update(done, **values)`` when there is a tracker."""
    if progress is not None:
        progress.update(done, **values)
