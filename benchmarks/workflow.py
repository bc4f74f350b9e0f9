"""Wall time and peak memory of a clean run per stage, and of a no-op rerun (``make bench``).

Runs the workflow in a temporary copy of the project: each stage from clean (its aggregate rule),
then the rest (the claims table), then the whole workflow again, which must run nothing. Peak
memory is the largest ``max_rss`` Snakemake recorded for any job of the stage. Beside each stage,
the plan's prediction of its compute jobs (``workflow/plan.py``: seconds on one core of this
machine, ``machine_speed``) against
their measured CPU time: the sums and the median of measured / predicted over the jobs. Writes a
CSV and a figure and prints the table; with the default config and every stage, also the record
the README quotes (``benchmarks/records.csv``). Reported, never asserted: the numbers depend on
the machine.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "workflow"))
from machine_speed import machine, speed  # noqa: E402
from plan import agreement, busy_seconds, dry_run, measured  # noqa: E402

import records  # noqa: E402  (benchmarks/, beside this file)
from expressivity.claims import STAGES  # noqa: E402
from expressivity.io import write_table  # noqa: E402
from expressivity.plotting import figure, save  # noqa: E402
from harness import Workflow, copy_project  # noqa: E402


def peak_rss_mb(work: Path, stage: str) -> float:
    """Largest max_rss (MB) over the stage's job benchmark records."""
    peaks = [pd.read_csv(p, sep="\t")["max_rss"].max()
             for p in (work / "results/benchmarks" / stage).glob("*.tsv")]
    peaks = [float(p) for p in peaks if pd.notna(p)]
    return max(peaks) if peaks else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="config/config.yaml")
    parser.add_argument("--cores", default="2")
    parser.add_argument("--stages", nargs="*", default=None, help="default: every stage")
    parser.add_argument("--csv", type=Path, default=None, help="write the table here")
    parser.add_argument("--figure", type=Path, default=None, help="write a bar chart here (PNG)")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="expressivity-bench-"))
    try:
        flow = Workflow(copy_project(work), cores=args.cores)

        def run(*targets: str) -> float:
            start = time.perf_counter()
            flow.run(*targets, config=args.config)
            return time.perf_counter() - start

        listed = flow.run("--list-rules", config=args.config).stdout.split()
        stages = args.stages or [s for s in STAGES if s in listed]
        rows = [{"step": stage, "wall_s": run(stage), "peak_rss_mb": peak_rss_mb(work, stage)}
                for stage in stages]
        rows.append({"step": "claims table", "wall_s": run(), "peak_rss_mb": float("nan")})
        rows.append({"step": "no-op rerun", "wall_s": run(), "peak_rss_mb": float("nan")})
        jobs = measured(dry_run(args.config, cwd=work), cwd=work, speed=speed())
        for row in rows:
            part = [r for r in jobs if r["stage"] == row["step"]]
            if part:
                row.update(predicted_s=sum(r["predicted_s"] for r in part),
                           measured_cpu_s=sum(busy_seconds(r) for r in part),
                           median_measured_over_predicted=agreement(part, busy_seconds)[0])
        if jobs:
            median, total = agreement(jobs, busy_seconds)
            print(f"plan: measured / predicted over {len(jobs)} compute jobs: median "
                  f"{median:.2f}, total {total:.2f} (CPU time per job against the cost models)")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    table = pd.DataFrame(rows).assign(config=args.config, cores=args.cores,
                                      machine=machine())
    print(table.to_string(index=False, float_format=lambda x: f"{x:.1f}"))
    if args.csv:
        write_table(table, args.csv)
    if args.config == records.DEFAULT_CONFIG and not args.stages:
        figures = {f"bench.{row.step}.wall_s": (round(row.wall_s, 1), "s")
                   for row in table.itertuples() if row.step in STAGES}
        figures |= {"bench.claims_s": (round(rows[-2]["wall_s"], 1), "s"),
                    "bench.noop_s": (round(rows[-1]["wall_s"], 1), "s"),
                    "bench.peak_mb": (round(float(table["peak_rss_mb"].max()), 0), "MB")}
        records.update(figures, f"make bench (--cores {args.cores})")
    if args.figure:
        with figure(1, 2, figsize=(10, 4)) as (fig, (left, right)):
            left.barh(table["step"], table["wall_s"])
            left.set_xlabel("wall time (s)")
            left.invert_yaxis()
            right.barh(table["step"], table["peak_rss_mb"].fillna(0))
            right.set_xlabel("peak memory of any job (MB)")
            right.invert_yaxis()
            fig.suptitle(f"{args.config}, --cores {args.cores}")
            save(fig, args.figure)


if __name__ == "__main__":
    main()
