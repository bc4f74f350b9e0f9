"""Wall time of a full run per stage, and of a no-op rerun (reported, never asserted).

Usage: ``.venv/bin/python benchmarks/workflow.py [--config config/config.yaml] [--cores 2]``.
Runs the workflow in a temporary copy of the project, one stage at a time from clean, then the
whole workflow again (which must do nothing) and prints a table. The per-job times Snakemake
records are in results/benchmarks/ of that copy.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from expressivity.claims import STAGES  # noqa: E402
from harness import copy_project  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="config/config.yaml")
    parser.add_argument("--cores", default="2")
    parser.add_argument("--stages", nargs="*", default=None, help="default: every stage")
    args = parser.parse_args()
    snakemake = str(Path(sys.executable).parent / "snakemake")
    work = Path(tempfile.mkdtemp(prefix="expressivity-bench-"))
    try:
        copy_project(work)
        env = {**os.environ, "PYTHONPATH": str(work / "lib")}

        def run(*targets: str) -> float:
            start = time.perf_counter()
            subprocess.run([snakemake, *targets, "--cores", args.cores, "--configfile", args.config,
                            "--quiet", "all"], cwd=work, env=env, check=True, capture_output=True)
            return time.perf_counter() - start

        listed = subprocess.run([snakemake, "--list-rules", "--configfile", args.config], cwd=work,
                                env=env, check=True, capture_output=True, text=True).stdout.split()
        stages = args.stages or [s for s in STAGES if s in listed]
        print(f"config {args.config}, --cores {args.cores}, machine: {os.cpu_count()} CPUs")
        print(f"{'stage':<28}{'wall time (s)':>14}")
        total = 0.0
        for stage in stages:
            seconds = run(stage)
            total += seconds
            print(f"{stage:<28}{seconds:>14.1f}")
        rest = run()
        print(f"{'claims and remaining jobs':<28}{rest:>14.1f}")
        print(f"{'no-op rerun':<28}{run():>14.1f}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
