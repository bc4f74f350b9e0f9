"""The claims registry: every statement the workflow checks, with its evidence and threshold.

Each stage has a module ``expressivity.claims.<stage>`` whose ``CLAIMS`` list holds ``Claim``
entries. A claim names the paper and the place in it, states the result in words, says where the
statement and the construction come from (``provenance``: verified from the paper, recalled, or our
reconstruction; see ``shared/papers/``), what is measured (``metric``), the comparison and threshold
that decide it, *why* that threshold (it comes from the mathematics, never from what a run produced),
and the figure that shows it. ``evaluate`` computes the measured value from the stage's tables.

A measured value of NaN means the claim could not be decided (for example float64 collapsed and no
higher-precision result exists): it is reported as ``not evaluated``, never as a pass.

Two kinds of claim are reported apart everywhere (``kind``):

- a **finding** could fail if the paper's statement were false, on data where the alternative is
  possible; its ``control`` names the alternative it rules out (uniform attention, hardmax, a power
  law, another pattern or model);
- a **check** is an identity, a count of our own construction, a rigorous but loose sufficient
  bound or a sanity property; its ``control`` says which. Checks guard against regressions and are
  never counted as evidence.

``basis`` says where the threshold comes from: ``mathematics`` (an exact count, a rounding bound, a
rate), ``measured spread`` (an interval over trials or seeds) or ``convention`` (a tolerance we
chose; the claim says so).
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

KINDS = ("finding", "check")
BASES = ("mathematics", "measured spread", "convention")

COMPARISONS: dict[str, Callable[[float, float], bool]] = {
    "<=": operator.le,
    "<": operator.lt,
    ">=": operator.ge,
    ">": operator.gt,
    "==": operator.eq,
}
#: How each comparison reads in a figure or a report.
OP_SYMBOLS = {"<=": "≤", ">=": "≥", "<": "<", ">": ">", "==": "="}


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
    kind: str  # "finding" or "check"
    control: str  # finding: the alternative it rules out; check: what kind of check it is
    basis: str  # where the threshold comes from: one of BASES

    def __post_init__(self) -> None:
        if self.op not in COMPARISONS:
            raise ValueError(f"claim {self.id}: unknown comparison {self.op!r}")
        if self.kind not in KINDS:
            raise ValueError(f"claim {self.id}: kind must be one of {KINDS}, got {self.kind!r}")
        if self.basis not in BASES:
            raise ValueError(f"claim {self.id}: basis must be one of {BASES}, got {self.basis!r}")
        if not self.control.strip():
            raise ValueError(f"claim {self.id}: a {self.kind} names its control")

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
            "kind": self.kind,
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
            "control": self.control,
            "threshold_basis": self.basis,
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
    """``"Findings: 7/8 passed, 1 failed, 0 not evaluated; checks: 20/20 passed, ..."``."""
    parts = []
    for kind in KINDS:
        rows = claims_table[claims_table["kind"] == kind]
        counts = rows["status"].value_counts()
        parts.append(f"{kind}s: {counts.get('pass', 0)}/{len(rows)} passed, "
                     f"{counts.get('fail', 0)} failed, {counts.get('not evaluated', 0)} not evaluated")
    line = "; ".join(parts)
    return line[0].upper() + line[1:]


def markdown_table() -> str:
    """The README's tables of claims, findings apart from checks, generated from the registry."""
    lines = []
    for kind, control in (("finding", "rules out (control)"), ("check", "kind of check")):
        lines += [
            f"**{kind.capitalize()}s**",
            "",
            f"| id | paper, place | statement | passes when (threshold from) | {control} | provenance |",
            "|---|---|---|---|---|---|",
        ]
        for c in registry():
            if c.kind != kind:
                continue
            cells = [
                f"`{c.id}`",
                f"{c.paper}, {c.where}",
                c.statement,
                f"{c.metric} {c.op} {c.threshold:g} ({c.basis})",
                c.control,
                c.provenance,
            ]
            lines.append("| " + " | ".join(s.replace("|", "\\|") for s in cells) + " |")
        lines.append("")
    return "\n".join(lines)
