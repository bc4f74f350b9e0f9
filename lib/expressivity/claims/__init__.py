"""The claims registry: every statement the workflow checks, with its evidence and threshold.

Each stage has a module ``expressivity.claims.<stage>`` whose ``CLAIMS`` list holds ``Claim``
entries. A claim names the paper and the place in it, states the result in words, says where the
statement and the construction come from (``provenance``: verified from the paper, recalled, or our
reconstruction; see ``shared/papers/``), what is measured (``metric``), the comparison and threshold
that decide it, *why* that threshold (it comes from the mathematics, never from what a run produced),
and the figure that shows it. ``evaluate`` computes the measured value from the stage's tables.

A measured value of NaN means the claim could not be decided (for example float64 collapsed and no
higher-precision result exists): it is reported as ``not evaluated``, never as a pass.
"""

from __future__ import annotations

import importlib
import math
import operator
import pkgutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import pandas as pd

#: Stage order in tables and reports.
STAGES = (
    "hardmax_vs_softmax",
    "sparse_approximation",
    "memorization",
    "universal_approximation",
    "trained_models",
)

COMPARISONS: dict[str, Callable[[float, float], bool]] = {
    "<=": operator.le,
    "<": operator.lt,
    ">=": operator.ge,
    ">": operator.gt,
    "==": operator.eq,
}


@dataclass(frozen=True)
class Measurement:
    """A measured value, the arithmetic it was computed in, and an optional remark."""

    value: float
    precision: str = "float64"
    note: str = ""


@dataclass(frozen=True)
class Claim:
    id: str
    paper: str
    where: str
    statement: str
    provenance: str
    metric: str
    op: str
    threshold: float
    why: str
    figure: str  # the figure's name: figures/<stage>/<figure>.png
    tables: tuple[str, ...]  # the tables' names: results/<stage>/<table>.csv
    evaluate: Callable[[Mapping[str, pd.DataFrame]], Measurement]

    def __post_init__(self) -> None:
        if self.op not in COMPARISONS:
            raise ValueError(f"claim {self.id}: unknown comparison {self.op!r}")

    @property
    def stage(self) -> str:
        return self.id.split(".", 1)[0]

    def judge(self, tables: Mapping[str, pd.DataFrame]) -> dict:
        """Evaluate on ``tables`` (keyed by table name) and return one row of the claims table."""
        missing = [t for t in self.tables if t not in tables]
        if missing:
            raise KeyError(f"claim {self.id} needs table(s) {', '.join(missing)}")
        m = self.evaluate(tables)
        decided = not math.isnan(m.value)
        passed = decided and COMPARISONS[self.op](m.value, self.threshold)
        return {
            "id": self.id,
            "stage": self.stage,
            "paper": self.paper,
            "where": self.where,
            "statement": self.statement,
            "metric": self.metric,
            "measured": m.value,
            "op": self.op,
            "threshold": self.threshold,
            "passed": passed,
            "status": ("pass" if passed else "fail") if decided else "not evaluated",
            "precision": m.precision,
            "provenance": self.provenance,
            "figure": f"figures/{self.stage}/{self.figure}.png",
            "note": m.note,
        }


def registry() -> list[Claim]:
    """All claims, in stage order, from every ``expressivity.claims.<stage>`` module present."""
    found = {m.name for m in pkgutil.iter_modules(__path__)} - {"__main__"}
    unknown = found - set(STAGES)
    if unknown:
        raise ValueError(f"claims modules {sorted(unknown)} are not listed in STAGES")
    claims = []
    for stage in STAGES:
        if stage in found:
            claims.extend(importlib.import_module(f"{__name__}.{stage}").CLAIMS)
    ids = [c.id for c in claims]
    dup = {i for i in ids if ids.count(i) > 1}
    if dup:
        raise ValueError(f"duplicate claim ids: {sorted(dup)}")
    return claims


def stage_claims(stage: str) -> list[Claim]:
    if stage not in STAGES:
        raise ValueError(f"unknown stage {stage!r}; stages are {', '.join(STAGES)}")
    return [c for c in registry() if c.stage == stage]


def evaluate_stage(stage: str, tables: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """The claims table of one stage: one row per claim."""
    return pd.DataFrame([c.judge(tables) for c in stage_claims(stage)])


def summary_line(claims_table: pd.DataFrame) -> str:
    """``"Claims: 7/8 passed, 1 failed, 0 not evaluated"``."""
    counts = claims_table["status"].value_counts()
    return (
        f"Claims: {counts.get('pass', 0)}/{len(claims_table)} passed, "
        f"{counts.get('fail', 0)} failed, {counts.get('not evaluated', 0)} not evaluated"
    )


def markdown_table() -> str:
    """The README's table of claims, generated from the registry."""
    lines = [
        "| id | paper, place | statement | passes when | provenance |",
        "|---|---|---|---|---|",
    ]
    for c in registry():
        cells = [
            f"`{c.id}`",
            f"{c.paper}, {c.where}",
            c.statement,
            f"{c.metric} {c.op} {c.threshold:g}",
            c.provenance,
        ]
        lines.append("| " + " | ".join(s.replace("|", "\\|") for s in cells) + " |")
    return "\n".join(lines) + "\n"
