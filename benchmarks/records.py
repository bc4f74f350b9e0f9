"""The committed record of the times and counts the README quotes: ``benchmarks/records.csv``.

One row per measured quantity: ``key, value, unit, measured`` (the date), ``machine``, ``source``
(the command that measured it). Writers, each replacing the rows of the keys it measures:

- ``make bench`` (``benchmarks/workflow.py``): each stage's wall time from clean, peak memory;
- ``make record`` (``record-run``): after a full default ``make`` in the checkout, the run's
  summary line and each stage's compute time and largest job, from the run's own records
  (``results/run/summary.json``, ``results/benchmarks/``);
- ``make record`` (``record-plan``): what ``make plan CONFIG=config/paper.yaml`` predicts for
  the paper run (jobs, CPU- and GPU-hours, wall times on one GPU node and under SLURM);
- ``make bench-clone`` (``benchmarks/fresh_clone.py``): a fresh clone's ``make`` (virtual
  environment and workflow apart), a ``make`` with nothing to do, and ``make test``, plus what
  ``record-run`` and ``record-install`` (what the install fetched) record, from that clone.

README.md never types these numbers: each sits between ``<!-- record:KEY -->`` and
``<!-- /record -->`` (the per-stage table between ``<!-- record-table:stages -->`` and
``<!-- /record-table -->``, the trained families' windows against their recorded stalls in
``<!-- record-table:families -->``), filled from the record by ``readme --write`` (``make readme``); a
test fails when the README and the record disagree. The default run's summary line, at the top of
the README (``<!-- expected-summary -->``), is the recorded one with the findings it failed, and
says so when the claims have changed since it was recorded (the record keeps a fingerprint of the
claims the run judged: their ids and kinds).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import subprocess
import sys
import tempfile
from collections import Counter
from datetime import date
from pathlib import Path

import pandas as pd
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "lib"))
sys.path.insert(0, str(ROOT / "workflow"))
from machine_speed import machine, speed  # noqa: E402

from expressivity.claims import KINDS, STAGES, registry  # noqa: E402
from last_line import not_a_full_run, read_record  # noqa: E402

RECORDS = ROOT / "benchmarks" / "records.csv"
README = ROOT / "README.md"
COLUMNS = ["key", "value", "unit", "measured", "machine", "source"]
DEFAULT_CONFIG = "config/config.yaml"

MARK = re.compile(r"<!-- record:([\w.]+)(?:@(measured|machine|source))? -->(.*?)<!-- /record -->", re.S)
TABLE = re.compile(r"(<!-- record-table:(\w+) -->\n)(.*?)(<!-- /record-table -->)", re.S)
SUMMARY = re.compile(r"(<!-- expected-summary -->\n)(.*?)(<!-- /expected-summary -->)", re.S)


def read(path: Path = RECORDS) -> pd.DataFrame:
    """The record, values as text (a value is a number or a line of text)."""
    if not path.is_file():
        return pd.DataFrame(columns=COLUMNS)
    return pd.read_csv(path, dtype=str, keep_default_na=False)


def update(rows: dict[str, tuple[object, str]], source: str, path: Path = RECORDS,
           when: str | None = None, where: str | None = None) -> pd.DataFrame:
    """Replace (or add) the rows of ``rows`` ({key: (value, unit)}), measured by ``source`` today
    on this machine (or ``when``, ``where``); the other rows stay. Written sorted by key,
    atomically."""
    old = read(path)
    when, where = when or date.today().isoformat(), where or machine()
    new = pd.DataFrame([{"key": k, "value": str(v), "unit": unit, "measured": when, "machine": where,
                         "source": source} for k, (v, unit) in rows.items()], columns=COLUMNS)
    table = pd.concat([old[~old["key"].isin(rows)], new]).sort_values("key", kind="stable")
    tmp = path.with_suffix(".tmp")
    table.to_csv(tmp, index=False, lineterminator="\n")
    tmp.replace(path)
    return table


def shown(value: str, unit: str) -> str:
    """A recorded value as the README prints it: seconds as ``8 min 51 s`` (or ``2.8 s``),
    counts with thousands separators, megabytes rounded, hours with their unit, text as it is."""
    if unit == "s":
        seconds = float(value)
        if seconds < 60:
            return f"{seconds:.1f} s" if seconds < 10 else f"{seconds:.0f} s"
        minutes, rest = divmod(round(seconds), 60)
        return f"{minutes} min {rest} s"
    if unit == "count":
        return f"{int(float(value)):,}"
    if unit == "MB":
        return f"{float(value):,.0f} MB"
    if unit == "h":
        return f"{float(value):,g} h"
    return value


def stage_table(records: pd.DataFrame, stages: list[str]) -> str:
    """The README's table of each stage's compute time in the default run."""
    value = dict(zip(records["key"], zip(records["value"], records["unit"], strict=True), strict=True))
    lines = ["| stage | wall time of its compute jobs (summed) | largest job |", "|---|---|---|"]
    for stage in stages:
        total, largest = value[f"run.{stage}.compute_s"], value[f"run.{stage}.largest_job_s"]
        lines.append(f"| `{stage}` | {shown(*total)} | {shown(*largest)} "
                     f"({value[f'run.{stage}.largest_job'][0]}) |")
    return "\n".join(lines) + "\n"


def fingerprint(claims: list[tuple[str, str]]) -> str:
    """A short sha256 of the claims' ``(id, kind)`` pairs, in order: what a summary line counts."""
    return hashlib.sha256("\n".join(f"{i} {k}" for i, k in claims).encode()).hexdigest()[:16]


def expected_summary(records: pd.DataFrame, claims: list[tuple[str, str]]) -> str:
    """The README's expected last line: the recorded default run's summary line (quoted) and the
    findings it failed, with when and where it was measured; when the claims (``(id, kind)`` of
    the registry now) differ from those the run judged, a sentence that says so instead."""
    rows = records.set_index("key")
    counts = Counter(kind for _, kind in claims)
    now = ", ".join(f"{counts[k]} {k}s" for k in KINDS)
    if "run.summary" not in rows.index:
        return (f"No default run of the current claims ({now}) is recorded yet: after `make`, "
                "`make record` writes its last line here.\n")
    run = rows.loc["run.summary"]
    failed = rows.loc["run.failed_findings", "value"] if "run.failed_findings" in rows.index else ""
    line = f"> {run['value']}\n\n"
    if rows.loc["run.claims", "value"] != fingerprint(claims):
        return (line + f"This is the line of a default run recorded on {run['measured']}, before the "
                f"claims last changed (they are now {now}): after `make`, `make record` updates "
                "it.\n")
    failed = (f"The findings it fails: {', '.join(f'`{i}`' for i in failed.split())}. "
              if failed else "It fails no finding. ")
    return (line + failed + f"(Recorded on {run['measured']}, {run['machine']}, by `{run['source']}`; "
            "a test checks that it counts the claims the registry holds now.)\n")


def filled(text: str, records: pd.DataFrame, stages: list[str],
           claims: list[tuple[str, str]]) -> str:
    """``text`` with every record marker filled from ``records``: ``<!-- record:KEY -->`` the
    value, ``<!-- record:KEY@measured -->`` (or ``@machine``, ``@source``) that column, the
    per-stage table, and the expected summary line against ``claims`` (the registry's ``(id,
    kind)``); a key the record lacks is an error naming it."""
    rows = records.set_index("key")
    missing = sorted({m[1] for m in MARK.finditer(text)} - set(rows.index))
    if missing:
        raise KeyError(f"README.md quotes {', '.join(missing)}, not in {RECORDS.name}")

    def fill(m: re.Match) -> str:
        row = rows.loc[m[1]]
        value = row[m[2]] if m[2] else shown(row["value"], row["unit"])
        return f"<!-- record:{m[1]}{'@' + m[2] if m[2] else ''} -->{value}<!-- /record -->"

    text = MARK.sub(fill, text)
    text = SUMMARY.sub(lambda m: m[1] + expected_summary(records, claims) + m[3], text)
    tables = {"stages": lambda: stage_table(records, stages), "families": lambda: family_table(records)}
    return TABLE.sub(lambda m: m[1] + tables[m[2]]() + m[4], text)


def run_records(root: Path, stages: list[str]) -> dict[str, tuple[object, str]]:
    """What a finished full run of the default config in ``root`` measured: its summary line, the
    findings it failed and the fingerprint of the claims it judged (``results/claims.csv``), and
    each stage's summed compute time and largest job (from Snakemake's benchmark records).
    Refused (``ValueError``) for a partial run, another config, or a config edited since."""
    summary = read_record(root)
    problem = not_a_full_run(summary, root, DEFAULT_CONFIG, stages)
    if problem:
        raise ValueError(f"the record holds a full run of {DEFAULT_CONFIG} only, and {problem}")
    claims = pd.read_csv(root / "results/claims.csv", dtype=str, keep_default_na=False)
    failed = claims[(claims["kind"] == "finding") & (claims["status"] == "fail")]["id"]
    rows: dict[str, tuple[object, str]] = {
        "run.summary": (summary["summary"], "text"),
        "run.failed_findings": (" ".join(failed), "text"),
        "run.claims": (fingerprint(list(zip(claims["id"], claims["kind"], strict=True))), "text"),
    }
    for stage in stages:
        times = {p.stem: float(pd.read_csv(p, sep="\t")["s"].iloc[0])
                 for p in sorted((root / "results/benchmarks" / stage).glob("*.tsv"))}
        if not times:
            raise ValueError(f"no benchmark record of stage {stage} under results/benchmarks")
        largest = max(times, key=times.get)
        rows[f"run.{stage}.compute_s"] = (round(sum(times.values()), 1), "s")
        rows[f"run.{stage}.largest_job_s"] = (round(times[largest], 1), "s")
        rows[f"run.{stage}.largest_job"] = (largest, "text")
    return rows | family_records(root)


#: The trained protocol's task families, as the README's table of windows lists them: a key, a
#: label (with the unit its window counts), the run's table under ``results/trained_models``, the
#: config sections its window and budget are read from (the first that sets them, as the workflow
#: scopes them) and the name its jobs' benchmark records start with.
FAMILIES = (
    ("memorization", "memorization (epochs)", "memorization_runs", ("memorization",), "memorize_"),
    ("masked", "masked memorization (epochs)", "masked_runs", ("masked", "memorization"), "masked_"),
    ("heads", "heads (epochs)", "heads_rank", ("heads_rank", "memorization"), "heads_"),
    ("width", "width (epochs)", "width_vs_N", ("width_search", "memorization"), "width_"),
    ("copy", "copying (steps)", "copy_depth", ("copy",), "copy_"),
    ("star", "STAR's relay (steps)", "star_bottleneck", ("star_relay", "copy"), "star_"),
    ("sparsity", "sparsity sweep (steps)", "sparsity", ("sparsity", "copy"), "sparsity_"),
    ("hybrid", "hybrids (steps)", "hybrid", ("hybrid",), "hybrid_"),
    ("capacity", "capacity (steps)", "capacity", ("capacity",), "capacity_"),
)

#: A window is at least this many times the longest stall of a run that reached the target (the
#: README's rule: a stall detector outlasts, with margin, the stalls that success goes through).
WINDOW_OVER_STALL = 2


def family_records(root: Path) -> dict[str, tuple[object, str]]:
    """Per trained family of the run in ``root``: the longest stall of a run that reached the
    target (``longest_stall``; ``-`` when no run reached it), the slowest time to target, the
    window and budget the run used, and its jobs' summed CPU time (their logs' end lines,
    ``plan.job_cpu_seconds``: the time the family costs, whatever else the machine ran)."""
    import plan

    rows: dict[str, tuple[object, str]] = {}
    for key, _, table, _, prefix in FAMILIES:
        runs = pd.read_csv(root / "results/trained_models" / f"{table}.csv")
        reached = runs[runs["outcome"] == "reached"]
        for name, column in (("stall", "longest_stall"), ("slowest", "steps_to_target")):
            values = reached[column].dropna()
            rows[f"run.family.{key}.{name}"] = ((int(values.max()), "count") if len(values)
                                                else ("-", "text"))
        for name in ("window", "budget"):
            rows[f"run.family.{key}.{name}"] = (int(runs[name].max()), "count")
        times = [plan.job_cpu_seconds(root / "logs/trained_models" / f"{p.stem}.log",
                                      pd.read_csv(p, sep="\t").iloc[0])
                 for p in (root / "results/benchmarks/trained_models").glob(f"{prefix}*.tsv")]
        rows[f"run.family.{key}.cpu_s"] = (round(sum(times), 1), "s")
    return rows


def below_rule(stall: str, window: int) -> bool | None:
    """Whether ``window`` is below ``WINDOW_OVER_STALL`` times a recorded ``stall`` (None when no
    run reached the target: ``-``)."""
    return None if stall == "-" else window < WINDOW_OVER_STALL * int(stall)


def windows_below_rule(records: pd.DataFrame, config: dict) -> list[str]:
    """The families whose window in ``config`` (as a job of the family reads it: the first of its
    sections that sets it) is below ``WINDOW_OVER_STALL`` times the recorded run's longest stall of
    a run that reached the target."""
    value = dict(zip(records["key"], records["value"], strict=True))
    trained = config["trained_models"]
    below = []
    for key, _, _, sections, _ in FAMILIES:
        window = next(trained[s]["window"] for s in sections if "window" in trained[s])
        if below_rule(value[f"run.family.{key}.stall"], window):
            below.append(key)
    return below


def family_table(records: pd.DataFrame) -> str:
    """The README's table of each trained family's windows against the recorded run's stalls."""
    value = dict(zip(records["key"], zip(records["value"], records["unit"], strict=True), strict=True))
    lines = ["| family (default config) | longest stall of a run that reached | slowest time to "
             f"target | window | window >= {WINDOW_OVER_STALL} x stall | budget | its jobs' CPU "
             "time (summed) |", "|---|---|---|---|---|---|---|"]
    for key, label, *_ in FAMILIES:
        cell = {name: value[f"run.family.{key}.{name}"]
                for name in ("stall", "slowest", "window", "budget", "cpu_s")}
        stall = cell["stall"][0]
        below = below_rule(stall, int(cell["window"][0]))
        meets = ("-" if below is None else "yes" if not below else
                 f"**no**: the rule asks {shown(WINDOW_OVER_STALL * int(stall), 'count')}")
        lines.append(f"| {label} | {shown(*cell['stall'])} | {shown(*cell['slowest'])} | "
                     f"{shown(*cell['window'])} | {meets} | {shown(*cell['budget'])} | "
                     f"{shown(*cell['cpu_s'])} |")
    return "\n".join(lines) + "\n"


#: The config the README's paper-scale plan is recorded for.
PAPER_CONFIG = "config/paper.yaml"


def plan_records(config: str = PAPER_CONFIG) -> dict[str, tuple[object, str]]:
    """What the plan predicts for a clean run of ``config`` (``workflow/plan.py``: the cost models
    and ``benchmarks/device_rates.csv``): jobs, CPU-hours (every job on a core), GPU jobs and
    GPU-hours, wall hours on one GPU node (in all, the construction stages together, the trained
    models alone, and the trained models' GPU-hours) and on this machine's cores, the SLURM
    critical path and its longest job."""
    import plan

    node = plan.node_settings(yaml.safe_load((ROOT / config).read_text()))
    jobs = plan.dry_run(config)

    def on_node(part: list) -> float:
        """Hours of ``part`` alone on one GPU node."""
        return plan.schedule(part, node["cores"], 1, on_node=True).seconds / 3600

    gpu = [j for j in jobs if j.gpu]
    slurm = plan.schedule(jobs, None, len(jobs), on_node=True)
    longest = max(slurm.chain, key=lambda j: j.seconds(True))
    name = Path(config).stem
    return {f"plan.{name}.{key}": value for key, value in {
        "jobs": (len(jobs), "count"),
        "cpu_h": (round(sum(j.cpu_hours for j in jobs)), "h"),
        "gpu_jobs": (len(gpu), "count"),
        "gpu_h": (round(sum(j.gpu_s for j in gpu) / 3600, 1), "h"),
        "node_h": (round(on_node(jobs), 1), "h"),
        "constructions_h": (round(on_node([j for j in jobs if j.stage in plan.CONSTRUCTIONS]), 1),
                            "h"),
        "trained_h": (round(on_node([j for j in jobs if j.stage == "trained_models"]), 1), "h"),
        "trained_gpu_h": (round(sum(j.gpu_s for j in gpu if j.stage == "trained_models") / 3600,
                                1), "h"),
        "trained_jobs": (sum(j.stage == "trained_models" for j in jobs), "count"),
        "here_h": (round(plan.schedule(jobs, os.cpu_count(), 0, on_node=False,
                                       speed=speed()).seconds / 3600),
                   "h"),
        "critical_h": (round(slurm.seconds / 3600, 1), "h"),
        "critical_job": (f"{longest.rule} {longest.wildcards}".strip(), "text"),
    }.items()} | agreement_records()


def agreement_records() -> dict[str, tuple[object, str]]:
    """The cost models against the latest committed records of a default run, as
    ``tests/workflow/test_plan.py`` checks them (``plan.recorded_agreement``): the file, its
    record count, the speed of the machine that made them (``machine_speed``), and measured over
    predicted seconds on an idle core (median, total)."""
    import plan

    path, count, median, total, _ = plan.recorded_agreement(plan.dry_run("config/config.yaml"))
    speeds = sorted(set(pd.read_csv(path).get("speed", pd.Series([1.0]))))
    return {"plan.default.records_file": (path.name, "text"),
            "plan.default.records_speed": (", ".join(f"{v:.2f}" for v in speeds), "text"),
            "plan.default.records": (count, "count"),
            "plan.default.median": (f"{median:.2f}", "text"),
            "plan.default.total": (f"{total:.2f}", "text")}


def install_records(root: Path) -> dict[str, tuple[object, str]]:
    """What ``make``'s install of ``root`` fetched and left: the number of packages locked in
    ``requirements.lock``, the size of the locked torch wheel (fetched by pip as ``make`` would,
    into a temporary folder: pip's cache makes it quick after an install) and of ``.venv``."""
    lock = (root / "requirements.lock").read_text()
    packages = len(re.findall(r"^[A-Za-z0-9][A-Za-z0-9._-]*==", lock, re.M))
    python = root / ".venv/bin/python"
    with tempfile.TemporaryDirectory() as folder:
        subprocess.run([str(python), "-m", "pip", "download", "--quiet", "--no-deps", "-d", folder,
                        "-r", str(root / "requirements-torch.lock")], check=True, capture_output=True)
        torch = sum(f.stat().st_size for f in Path(folder).iterdir())
    venv = sum(f.lstat().st_size for f in (root / ".venv").rglob("*") if f.is_file() and not f.is_symlink())
    return {"install.packages": (packages, "count"), "install.torch_mb": (round(torch / 1e6), "MB"),
            "install.venv_mb": (round(venv / 1e6), "MB")}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    readme = sub.add_parser("readme", help="check README.md against the record (exit 1 if stale)")
    readme.add_argument("--write", action="store_true", help="rewrite README.md's quoted numbers")
    run = sub.add_parser("record-run", help="record the last full default run of a checkout")
    run.add_argument("--root", type=Path, default=ROOT)
    install = sub.add_parser("record-install", help="record what the install of a checkout fetched")
    install.add_argument("--root", type=Path, default=ROOT)
    sub.add_parser("record-plan", help=f"record what the plan predicts for {PAPER_CONFIG}")
    args = parser.parse_args(argv)
    if args.command == "record-plan":
        rows = plan_records()
        update(rows, f"make plan CONFIG={PAPER_CONFIG} (benchmarks/records.py record-plan)")
        print(f"recorded {len(rows)} values of the plan in {RECORDS.relative_to(ROOT)}")
        return 0
    if args.command == "record-install":
        rows = install_records(args.root)
        update(rows, "benchmarks/records.py record-install")
        print(f"recorded {len(rows)} values of the install in {RECORDS.relative_to(ROOT)}")
        return 0
    if args.command == "record-run":
        try:
            rows = run_records(args.root, list(STAGES))
        except ValueError as err:
            print(f"record-run: {err}", file=sys.stderr)
            return 1
        update(rows, "make record")
        print(f"recorded {len(rows)} values of the default run in {RECORDS.relative_to(ROOT)}")
        return 0
    text = README.read_text()
    fresh = filled(text, read(), list(STAGES), [(c.id, c.kind) for c in registry()])
    if args.write:
        README.write_text(fresh)
    elif fresh != text:
        print(f"README.md's measured numbers differ from {RECORDS.relative_to(ROOT)}: run `make readme`",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
