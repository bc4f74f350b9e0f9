"""The claims registry: every statement the workflow checks, with its evidence and threshold.

Each stage has a module ``expressivity.claims.<stage>`` whose ``CLAIMS`` list holds ``Claim``
entries. A claim names the paper and the place in it, states the result in words, says where the
statement and the construction come from (``provenance``: verified from the paper, recalled, or our
reconstruction; see ``shared/papers/``), what is measured (``metric``), the comparison and threshold
that decide it, *why* that threshold (it comes from the mathematics, never from what a run produced),
and the figure that shows it. ``evaluate`` computes the measured value from the stage's tables.

A measured value of NaN means the claim could not be decided (for example float64 collapsed and no
higher-precision result exists): it is reported as ``not evaluated``, never as a pass.

Three kinds of claim are reported apart everywhere (``kind``):

- a **finding** could fail if the paper's statement were false, on data where the alternative is
  possible; its ``control`` names the alternative it rules out (uniform attention, hardmax, a power
  law, another pattern or model);
- a **demonstration** evaluates a proof's mechanism exactly, or certified, on data built for it
  (the control arms are on the same data); it shows the mechanism at work but cannot fail unless
  the code is wrong, so it is never counted as evidence;
- a **check** is an identity, a count of our own construction, a rigorous but loose sufficient
  bound or a sanity property; its ``control`` says which. Checks guard against regressions and are
  never counted as evidence.

``basis`` says where the threshold comes from: ``mathematics`` (an exact count, a rounding bound, a
rate), ``measured spread`` (an interval over trials or seeds) or ``convention`` (a tolerance we
chose; the claim says so).

A **statistical finding** (its verdict is a test: an interval, a model comparison, a slope) names
the alternatives it rules out in ``alternatives`` and simulates them with ``power``: the same design
(the same trial counts, the measured spread resampled), parametrically, never by rerunning a job.
Each alternative's row of ``results/claims/power.csv`` counts the replicates in which the claim
would not have passed (``rejected``); a finding that tells a named alternative apart in fewer than
``REQUIRED_POWER`` of its replicates is ``not evaluated`` with the reason ``underpowered``, never
passed, and its power is in the note.

A claim that cannot be decided is ``not evaluated`` with a ``reason`` (``REASONS``), through one
helper, ``not_evaluated``: judged on zero items (no draws, no pattern of the kind it speaks of, an
empty slice of a table), outside the range where its statement means anything (the claim says the
rule), undecided at the arithmetic's precision, censored, or underpowered.

A training claim names its ``quantifier`` (``expressivity.training_protocol.QUANTIFIERS``): the
paper's "there exist weights" read as some seed and learning rate reaching the target
(``existence``), its average over runs (``mean``), or "cannot" (every seed and learning rate
plateaus after the decay, where a capacity argument backs it); other claims leave it empty.
"""

from __future__ import annotations

import importlib
import math
import operator
import pkgutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from expressivity.rng import generator
from expressivity.training_protocol import QUANTIFIERS as TRAINING_QUANTIFIERS

#: Stage order in tables and reports.
STAGES = (
    "hardmax_vs_softmax",
    "sparse_approximation",
    "memorization",
    "universal_approximation",
    "trained_models",
)

KINDS = ("finding", "demonstration", "check")
BASES = ("mathematics", "measured spread", "convention")
#: A claim's quantifier: a training claim's (``training_protocol.QUANTIFIERS``), "" for others.
QUANTIFIERS = ("", *TRAINING_QUANTIFIERS)
#: Why a claim is not evaluated.
REASONS = ("no items", "out of range", "undecided", "censored", "underpowered", "paper config")
#: The fraction of replicates of each named alternative a statistical finding must tell apart.
REQUIRED_POWER = 0.8
#: The fewest replicates a power simulation may use.
MIN_REPLICATES = 200

COMPARISONS: dict[str, Callable[[float, float], bool]] = {
    "<=": operator.le,
    "<": operator.lt,
    ">=": operator.ge,
    ">": operator.gt,
    "==": operator.eq,
}


@dataclass(frozen=True)
class Measurement:
    """A measured value, the arithmetic it was computed in, an optional remark, and (when the value
    is NaN: not evaluated) the reason, one of ``REASONS``."""

    value: float
    precision: str = "float64"
    note: str = ""
    reason: str = ""


def not_evaluated(reason: str, note: str, precision: str = "float64") -> Measurement:
    """The measurement of a claim that cannot be decided, with its ``reason`` (one of ``REASONS``):
    ``"no items"`` (judged on zero draws, patterns or rows), ``"out of range"`` (outside the range
    where the statement means anything; the note says the rule), ``"undecided"`` (the arithmetic
    cannot decide), ``"censored"`` (a measurement is only a bound), ``"underpowered"``,
    ``"paper config"`` (the default config's slice cannot decide it; ``config/paper.yaml`` runs
    what it needs)."""
    if reason not in REASONS:
        raise ValueError(f"reason must be one of {REASONS}, got {reason!r}")
    return Measurement(math.nan, precision, note, reason)


def on_items(count: int, what: str, precision: str = "float64") -> Measurement | None:
    """``not_evaluated("no items", ...)`` when ``count`` is 0 (``what``: the items, e.g. "draws
    with nonzero weights"), else None: ``if (m := on_items(len(df), "draws")): return m``."""
    return None if count else not_evaluated("no items", f"no {what}", precision)


@dataclass(frozen=True)
class Power:
    """One simulated alternative of a statistical finding: in how many of ``replicates`` data sets
    drawn from it (the claim's design, ``design`` says how) the claim would not have passed."""

    alternative: str
    replicates: int
    rejected: int
    design: str = ""

    def __post_init__(self) -> None:
        if self.replicates < MIN_REPLICATES:
            raise ValueError(f"power of {self.alternative!r}: {self.replicates} replicates, fewer "
                             f"than {MIN_REPLICATES}")
        if not 0 <= self.rejected <= self.replicates:
            raise ValueError(f"power of {self.alternative!r}: rejected must lie in 0.."
                             f"{self.replicates}, got {self.rejected}")

    @property
    def rate(self) -> float:
        return self.rejected / self.replicates


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
    kind: str  # one of KINDS
    control: str  # finding: the alternative it rules out; check: what kind of check it is
    basis: str  # where the threshold comes from: one of BASES
    quantifier: str = ""  # a training claim's quantifier: one of QUANTIFIERS
    #: A statistical finding's simulated alternatives (names, as its power rows give them) ...
    alternatives: tuple[str, ...] = ()
    #: ... and its power simulation: ``power(tables, rng) -> list[Power]`` (empty when the tables
    #: hold too little to simulate).
    power: Callable[[Mapping[str, pd.DataFrame], np.random.Generator], list[Power]] | None = None

    def __post_init__(self) -> None:
        if self.op not in COMPARISONS:
            raise ValueError(f"claim {self.id}: unknown comparison {self.op!r}")
        if self.kind not in KINDS:
            raise ValueError(f"claim {self.id}: kind must be one of {KINDS}, got {self.kind!r}")
        if self.basis not in BASES:
            raise ValueError(f"claim {self.id}: basis must be one of {BASES}, got {self.basis!r}")
        if self.quantifier not in QUANTIFIERS:
            raise ValueError(f"claim {self.id}: quantifier must be one of {QUANTIFIERS}, got "
                             f"{self.quantifier!r}")
        if not self.control.strip():
            raise ValueError(f"claim {self.id}: a {self.kind} names its control")
        if (self.power is None) != (not self.alternatives):
            raise ValueError(f"claim {self.id}: a statistical finding names its alternatives and "
                             "simulates them (alternatives and power go together)")
        if self.power is not None and self.kind != "finding":
            raise ValueError(f"claim {self.id}: only a finding has a power simulation")

    @property
    def statistical(self) -> bool:
        return self.power is not None

    @property
    def stage(self) -> str:
        return self.id.split(".", 1)[0]

    def simulate_power(self, tables: Mapping[str, pd.DataFrame], seed: int = 0) -> list[Power]:
        """The power rows of a statistical finding (none for other claims), from a generator of
        its own: the same tables and seed give the same rows."""
        if self.power is None:
            return []
        return self.power(tables, generator(seed, "claims.power", claim=self.id))

    def judge(self, tables: Mapping[str, pd.DataFrame], seed: int = 0,
              power: list[Power] | None = None) -> dict:
        """Evaluate on ``tables`` (keyed by table name) and return one row of the claims table. A
        statistical finding is judged with its ``power`` rows (simulated here unless given)."""
        missing = [t for t in self.tables if t not in tables]
        if missing:
            raise KeyError(f"claim {self.id} needs table(s) {', '.join(missing)}")
        m = self.evaluate(tables)
        decided = not math.isnan(m.value)
        passed = decided and COMPARISONS[self.op](m.value, self.threshold)
        reason, note = ("" if decided else m.reason or "undecided"), m.note
        weakest = math.nan
        if self.statistical:
            power = self.simulate_power(tables, seed) if power is None else power
            if power:
                weakest = min(p.rate for p in power)
                note += "; power: " + ", ".join(f"{p.alternative} {p.rate:.2f} ({p.rejected}/"
                                                f"{p.replicates})" for p in power)
            if decided and not weakest >= REQUIRED_POWER:
                note += (f"; would have {'passed' if passed else 'failed'}, but the test tells "
                         f"a named alternative apart in fewer than {REQUIRED_POWER:.0%} of its "
                         "replicates" if power else "; no power simulation on these tables")
                decided, passed, reason = False, False, "underpowered"
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
            "reason": reason,
            "power": weakest,
            "precision": m.precision,
            "control": self.control,
            "threshold_basis": self.basis,
            "quantifier": self.quantifier,
            "provenance": self.provenance,
            "figure": f"figures/{self.stage}/{self.figure}.png",
            "note": note,
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


def statistical_findings() -> list[str]:
    """The ids of the statistical findings: those with a power simulation (``Claim.power``)."""
    return [c.id for c in registry() if c.statistical]


def stage_claims(stage: str) -> list[Claim]:
    if stage not in STAGES:
        raise ValueError(f"unknown stage {stage!r}; stages are {', '.join(STAGES)}")
    return [c for c in registry() if c.stage == stage]


def evaluate_stage(stage: str, tables: Mapping[str, pd.DataFrame],
                   seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The claims table of one stage (one row per claim) and its power table (one row per
    simulated alternative of each statistical finding: ``POWER_COLUMNS``)."""
    rows, power = [], []
    for claim in stage_claims(stage):
        simulated = claim.simulate_power(tables, seed)
        rows.append(claim.judge(tables, seed, simulated))
        power += [{"claim": claim.id, "alternative": p.alternative, "replicates": p.replicates,
                   "rejected": p.rejected, "power": p.rate, "required": REQUIRED_POWER,
                   "design": p.design} for p in simulated]
    return pd.DataFrame(rows), pd.DataFrame(power, columns=POWER_COLUMNS)


#: Columns of ``results/claims/power.csv``.
POWER_COLUMNS = ["claim", "alternative", "replicates", "rejected", "power", "required", "design"]


def summary_line(claims_table: pd.DataFrame) -> str:
    """``"Findings: 7/9 passed, 1 failed, 1 not evaluated (1 underpowered); demonstrations: 3/3
    passed, ...; checks: 40/40 passed, ..."``: each kind apart, with why claims were not evaluated."""
    parts = []
    for kind in KINDS:
        rows = claims_table[claims_table["kind"] == kind]
        counts = rows["status"].value_counts()
        text = (f"{kind}s: {counts.get('pass', 0)}/{len(rows)} passed, "
                f"{counts.get('fail', 0)} failed, {counts.get('not evaluated', 0)} not evaluated")
        skipped = rows[rows["status"] == "not evaluated"]
        if len(skipped) and "reason" in rows:
            why = skipped["reason"].fillna("undecided").replace("", "undecided").value_counts()
            text += " (" + ", ".join(f"{c} {r}" for r, c in why.items()) + ")"
        parts.append(text)
    line = "; ".join(parts)
    return line[0].upper() + line[1:]


#: One line per kind: what it means (the README and the report's front page say the same).
KIND_MEANING = {
    "finding": "could fail if the paper's statement were false, on data where the alternative is "
               "possible; names the alternative it rules out and, when its verdict is a test, "
               "shows the test's power against it",
    "demonstration": "a proof's mechanism evaluated exactly or certified on data built for it; "
                     "shown, not counted as evidence",
    "check": "an identity, a count of our own construction or a loose sufficient bound (its "
             "tightness reported); a regression test, never counted as evidence",
}


def markdown_table() -> str:
    """The README's tables of claims, one per kind, generated from the registry."""
    lines = []
    for kind in KINDS:
        control = "rules out (control)" if kind == "finding" else (
            "control arms" if kind == "demonstration" else "kind of check")
        extra = " power simulated against |" if kind == "finding" else ""
        lines += [
            f"**{kind.capitalize()}s** ({KIND_MEANING[kind]})",
            "",
            f"| id | paper, place | statement | passes when (threshold from) | {control} |{extra}"
            " provenance |",
            "|---|---|---|---|---|" + ("---|" if extra else "") + "---|",
        ]
        for c in registry():
            if c.kind != kind:
                continue
            cells = [
                f"`{c.id}`",
                f"{c.paper}, {c.where}",
                c.statement + (f" (quantifier: {c.quantifier})" if c.quantifier else ""),
                f"{c.metric} {c.op} {c.threshold:g} ({c.basis})",
                c.control,
                *(["; ".join(c.alternatives) or "(not a test)"] if extra else []),
                c.provenance,
            ]
            lines.append("| " + " | ".join(s.replace("|", "\\|") for s in cells) + " |")
        lines.append("")
    return "\n".join(lines)
