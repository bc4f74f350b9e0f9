"""The plan of a run before any work: jobs, predicted CPU-hours and memory per stage, the largest job.

``python workflow/plan.py CONFIG`` (``make plan CONFIG=...``) asks Snakemake for a dry run of the
whole workflow (``--forceall``: what a clean run does) and reads each job's ``runtime`` (minutes),
``mem_mb`` and ``threads``: the same numbers a cluster is asked for, set in the rules from each
stage's cost model. It prints one line per stage, the total, and the largest job, and refuses a
plan with a job over the wall-time cap (``--cap-hours``; the SLURM profile's partitions must allow
it). ``--measured`` adds, for a finished run, the measured seconds of every compute job (its
``benchmark:`` file) next to the prediction.
"""

from __future__ import annotations

import argparse
import csv
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STAGES = ("hardmax_vs_softmax", "sparse_approximation", "memorization", "universal_approximation",
          "trained_models")
#: A planned job longer than this is refused (many SLURM partitions cap wall time at a day).
CAP_HOURS = 24.0


@dataclass(frozen=True)
class PlannedJob:
    rule: str
    stage: str
    wildcards: str
    runtime_min: float
    mem_mb: float
    threads: int
    benchmark: str | None

    @property
    def cpu_hours(self) -> float:
        return self.runtime_min * self.threads / 60


def _stage(outputs: str) -> str:
    for path in outputs.split(", "):
        parts = Path(path).parts
        if len(parts) >= 2 and parts[0] in ("results", "figures") and parts[1] in STAGES:
            return parts[1]
        if len(parts) >= 3 and parts[:2] == ("results", "claims"):
            return "claims"
    return "claims"


def parse_dry_run(text: str) -> list[PlannedJob]:
    """The jobs of a Snakemake dry run's output (one block per job)."""
    jobs = []
    for block in re.split(r"\n(?=(?:local)?rule \w+:\n)", text):
        head = re.match(r"(?:local)?rule (\w+):\n", block)
        if not head:
            continue
        fields = dict(re.findall(r"^    (\w+): (.*)$", block, re.M))
        resources = dict(re.findall(r"(\w+)=([^,]+)", fields.get("resources", "")))
        jobs.append(PlannedJob(
            rule=head[1], stage=_stage(fields.get("output", "")),
            wildcards=fields.get("wildcards", ""),
            runtime_min=float(resources.get("runtime", 0)),
            mem_mb=float(resources.get("mem_mb", 0)),
            threads=int(fields.get("threads", 1)),
            benchmark=fields.get("benchmark"),
        ))
    return jobs


def dry_run(config: str, cwd: Path = ROOT) -> list[PlannedJob]:
    """The jobs of a clean run of ``config`` (``snakemake -n --forceall``; nothing is run)."""
    env = {**os.environ, "PYTHONPATH": str(cwd / "lib")}
    snakemake = Path(sys.executable).parent / "snakemake"
    proc = subprocess.run([str(snakemake), "-n", "--forceall", "--nolock", "--cores", "1",
                           "--configfile", config], cwd=cwd, env=env, capture_output=True,
                          text=True)
    if proc.returncode != 0:
        raise SystemExit(f"the dry run of {config} failed:\n{proc.stdout[-3000:]}{proc.stderr[-3000:]}")
    return parse_dry_run(proc.stdout)


def _hours(h: float) -> str:
    return f"{h * 60:.0f} min" if h < 1 else f"{h:.1f} h"


def describe(jobs: list[PlannedJob], cap_hours: float = CAP_HOURS) -> tuple[str, list[PlannedJob]]:
    """The plan as text, and the jobs planned over the cap."""
    lines = [f"{'stage':<26}{'jobs':>6}{'CPU-hours':>11}{'peak memory':>13}  largest job"]
    groups = [s for s in (*STAGES, "claims") if any(j.stage == s for j in jobs)]
    for stage in groups:
        part = [j for j in jobs if j.stage == stage]
        big = max(part, key=lambda j: j.runtime_min)
        lines.append(f"{stage:<26}{len(part):>6}{sum(j.cpu_hours for j in part):>11.2f}"
                     f"{max(j.mem_mb for j in part) / 1024:>10.1f} GB  {big.rule} {big.wildcards} "
                     f"({_hours(big.runtime_min / 60)})")
    big = max(jobs, key=lambda j: j.runtime_min)
    lines.append(f"{'total':<26}{len(jobs):>6}{sum(j.cpu_hours for j in jobs):>11.2f}"
                 f"{max(j.mem_mb for j in jobs) / 1024:>10.1f} GB  {big.rule} {big.wildcards} "
                 f"({_hours(big.runtime_min / 60)})")
    over = [j for j in jobs if j.runtime_min > cap_hours * 60]
    return "\n".join(lines), over


def measured(jobs: list[PlannedJob], cwd: Path = ROOT) -> list[dict]:
    """Predicted against measured seconds for every job with a benchmark file on disk."""
    rows = []
    for job in jobs:
        path = cwd / job.benchmark if job.benchmark else None
        if path is None or not path.is_file():
            continue
        with path.open() as handle:
            seconds = float(next(csv.DictReader(handle, delimiter="\t"))["s"])
        rows.append({"rule": job.rule, "stage": job.stage, "wildcards": job.wildcards,
                     "predicted_s": job.runtime_min * 60, "measured_s": seconds})
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("config", help="the config file, e.g. config/paper.yaml")
    parser.add_argument("--cap-hours", type=float, default=CAP_HOURS,
                        help=f"refuse a plan with a job longer than this (default {CAP_HOURS:g})")
    parser.add_argument("--measured", action="store_true",
                        help="also compare with the measured time of a finished run")
    args = parser.parse_args(argv)
    jobs = dry_run(args.config)
    text, over = describe(jobs, args.cap_hours)
    print(f"Plan of a clean run of {args.config} (runtime and memory as requested from a cluster):")
    print(text)
    if args.measured:
        rows = measured(jobs)
        if rows:
            ratios = sorted(r["measured_s"] / r["predicted_s"] for r in rows if r["predicted_s"] > 0)
            print(f"measured / predicted over {len(rows)} finished jobs: median "
                  f"{ratios[len(ratios) // 2]:.3g}, max {ratios[-1]:.3g} (a prediction is an upper "
                  "bound when the ratio stays below 1)")
    if over:
        for job in over:
            print(f"job {job.rule} {job.wildcards} is planned at {_hours(job.runtime_min / 60)}, "
                  f"over the cap of {args.cap_hours:g} h", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
