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
import textwrap
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


@dataclass(frozen=True)
class Paper:
    """A paper whose statements claims check. ``key`` is its one canonical key (``make paper
    PAPER=<key>``, the claims tables' ``papers`` column); ``cite`` is how a claim's ``paper`` names
    it. ``read`` says which version and which parts our notes were made from (the full texts were
    not available); ``seed`` the seed document it comes from (``shared/seeds/<seed>_*.txt``), empty
    for a paper cited through one; ``notes`` our notes on its mathematics (``shared/papers/``)."""

    key: str
    cite: str
    authors: tuple[str, ...]  # "Family, Given"
    title: str
    venue: str
    year: int
    arxiv: str  # the arXiv identifier, without version
    read: str
    url: str  # the page of the version published (proceedings, OpenReview), else the arXiv page
    seed: str
    notes: str


#: The papers, in the order the report lists them (the stages' order).
PAPERS = {p.key: p for p in (
    Paper("kajitsuka2024", "Kajitsuka & Sato 2024", ("Kajitsuka, Tokio", "Sato, Issei"),
          "Are Transformers with One Layer Self-Attention Using Low-Rank Weight Matrices Universal "
          "Approximators?", "ICLR 2024", 2024, "2307.14023",
          "arXiv v1 and v3 abstracts, the OpenReview page and official reviews",
          "https://openreview.net/forum?id=nJnky5K944", "003", "kajitsuka_sato.md"),
    Paper("zaheer2020", "Zaheer et al. 2020",
          ("Zaheer, Manzil", "Guruganesh, Guru", "Dubey, Avinava", "Ainslie, Joshua",
           "Alberti, Chris", "Ontanon, Santiago", "Pham, Philip", "Ravula, Anirudh",
           "Wang, Qifan", "Yang, Li", "Ahmed, Amr"),
          "Big Bird: Transformers for Longer Sequences", "NeurIPS 2020", 2020, "2007.14062",
          "arXiv 2007.14062: Sec. 3.4 and App. C (Proposition 1, restated as Proposition 2)",
          "https://arxiv.org/abs/2007.14062", "", "kajitsuka_sato.md"),
    Paper("likhosherstov2021", "Likhosherstov, Choromanski & Weller 2021",
          ("Likhosherstov, Valerii", "Choromanski, Krzysztof", "Weller, Adrian"),
          "On the Expressive Power of Self-Attention Matrices", "AAAI 2023 (as \"On the Expressive "
          "Flexibility of Self-Attention Matrices\")", 2021, "2106.03764",
          "arXiv v1/v2 abstract and the AAAI 2023 first page",
          "https://arxiv.org/abs/2106.03764", "000", "likhosherstov.md"),
    Paper("yun2020a", "Yun et al. 2020a",
          ("Yun, Chulhee", "Bhojanapalli, Srinadh", "Rawat, Ankit Singh", "Reddi, Sashank J.",
           "Kumar, Sanjiv"),
          "Are Transformers universal approximators of sequence-to-sequence functions?",
          "ICLR 2020", 2020, "1912.10077", "arXiv abstract page; statements restated by later papers",
          "https://openreview.net/forum?id=ByxRM0Ntvr", "", "yun_fang.md"),
    Paper("yun2020b", "Yun et al. 2020b",
          ("Yun, Chulhee", "Chang, Yin-Wen", "Bhojanapalli, Srinadh", "Rawat, Ankit Singh",
           "Reddi, Sashank J.", "Kumar, Sanjiv"),
          "O(n) Connections are Expressive Enough: Universal Approximability of Sparse Transformers",
          "NeurIPS 2020", 2020, "2006.04862",
          "arXiv abstract page, the NeurIPS 2020 abstract and reviews, quotes in secondary sources",
          "https://proceedings.neurips.cc/paper/2020/hash/9ed27554c893b5bad850a422c3538c15-"
          "Abstract.html", "001", "yun_fang.md"),
    Paper("fang2022", "Fang et al. 2022",
          ("Fang, Zhiying", "Ouyang, Yidong", "Zhou, Ding-Xuan", "Cheng, Guang"),
          "Attention Enables Zero Approximation Error", "arXiv preprint", 2022, "2202.12166",
          "arXiv v1 (the only version) and the ICLR 2023 submission's abstract and introduction "
          "(OpenReview AV_bv4Ydcr9)", "https://arxiv.org/abs/2202.12166", "002", "yun_fang.md"),
)}


def paper_keys(paper: str) -> tuple[str, ...]:
    """The keys of the papers a claim's ``paper`` names: their citations (``Paper.cite``),
    separated by ``"; "`` (a joint claim counts for each)."""
    cites = {p.cite: key for key, p in PAPERS.items()}
    parts = [part.strip() for part in paper.split(";")]
    unknown = [part for part in parts if part not in cites]
    if unknown:
        raise ValueError(f"paper {paper!r}: {', '.join(map(repr, unknown))} is no paper's citation; "
                         f"name papers as {', '.join(map(repr, cites))}, separated by '; '")
    return tuple(cites[part] for part in parts)


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
    paper: str  # its papers' citations (Paper.cite), "; "-separated
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
        try:
            paper_keys(self.paper)
        except ValueError as err:
            raise ValueError(f"claim {self.id}: {err}") from None

    @property
    def papers(self) -> tuple[str, ...]:
        """The keys of its papers (``PAPERS``)."""
        return paper_keys(self.paper)

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
            "papers": " ".join(self.papers),
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


def paper_claims(paper: str) -> list[Claim]:
    """The claims of one paper (a key of ``PAPERS``), joint ones included, in registry order."""
    if paper not in PAPERS:
        raise ValueError(f"unknown paper {paper!r}; papers are {', '.join(PAPERS)}")
    return [c for c in registry() if paper in c.papers]


def evaluate_claims(claims: list[Claim], tables: Mapping[str, pd.DataFrame],
                    seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The claims table of ``claims`` (one row each) and their power table (one row per simulated
    alternative of each statistical finding: ``POWER_COLUMNS``)."""
    rows, power = [], []
    for claim in claims:
        simulated = claim.simulate_power(tables, seed)
        rows.append(claim.judge(tables, seed, simulated))
        power += [{"claim": claim.id, "alternative": p.alternative, "replicates": p.replicates,
                   "rejected": p.rejected, "power": p.rate, "required": REQUIRED_POWER,
                   "design": p.design} for p in simulated]
    return pd.DataFrame(rows), pd.DataFrame(power, columns=POWER_COLUMNS)


def evaluate_stage(stage: str, tables: Mapping[str, pd.DataFrame],
                   seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``evaluate_claims`` of one stage's claims."""
    return evaluate_claims(stage_claims(stage), tables, seed)


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


def verdict(row) -> str:
    """One claim (a row of a claims table) in words: ``"<name>: <metric> = <measured> <op>
    <threshold>: <status>"``, the name without its stage, and a claim not evaluated with its
    reason (``"not evaluated (censored)"``)."""
    value = row["measured"]
    measured = "–" if isinstance(value, float) and math.isnan(value) else f"{value:.3g}"
    name = row["id"].split(".", 1)[-1]
    reason = row.get("reason")
    status = row["status"] + (f" ({reason})" if isinstance(reason, str) and reason else "")
    return (f"{name}: {row['metric']} = {measured} {OP_SYMBOLS[row['op']]} "
            f"{row['threshold']:g}: {status}")


def verdict_lines(claims: pd.DataFrame, figure: str, names: tuple[str, ...] = (),
                  width: int = 110) -> list[str]:
    """``verdict`` of every claim of ``claims`` (a stage's claims table, ``results/claims/
    <stage>.csv``) that names ``figure`` (``<stage>/<name>``), in the table's order, each wrapped
    to ``width`` characters; only those called ``names`` (ids without the stage) when given."""
    rows = claims[claims["figure"] == f"figures/{figure}.png"]
    # never at a hyphen: the line must read back as the verdict with white space collapsed
    return ["\n".join(textwrap.wrap(verdict(row), width, break_on_hyphens=False))
            for _, row in rows.iterrows()
            if not names or row["id"].split(".", 1)[-1] in names]


def of_paper(claims_table: pd.DataFrame, paper: str) -> pd.DataFrame:
    """The rows of a claims table that belong to ``paper`` (its ``papers`` column names it)."""
    return claims_table[claims_table["papers"].str.split().map(lambda keys: paper in keys)]


def paper_summary(claims_table: pd.DataFrame, paper: str) -> str:
    """``"Kajitsuka & Sato 2024 (30 claims): Findings: ..."``: ``summary_line`` of one paper's
    rows of ``claims_table``."""
    rows = of_paper(claims_table, paper)
    return f"{PAPERS[paper].cite} ({len(rows)} claims): {summary_line(rows)}"


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


def references_markdown() -> str:
    """The README's list of references: every paper (``PAPERS``) with its key, its claims and the
    command that judges them alone, and which version and parts of it our notes were made from."""
    lines = []
    for key, p in PAPERS.items():
        authors = ", ".join(" ".join(reversed(a.split(", ", 1))) for a in p.authors)
        arxiv = f"https://arxiv.org/abs/{p.arxiv}"
        published = "" if p.url == arxiv else f"; [published version]({p.url})"
        lines.append(f"- **{p.cite}** (`{key}`): {authors}. *{p.title}*. {p.venue}. "
                     f"arXiv [{p.arxiv}]({arxiv}){published}. Read: {p.read}. "
                     f"{len(paper_claims(key))} claims: `make paper PAPER={key}`.")
    return "\n".join(lines) + "\n"
