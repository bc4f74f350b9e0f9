"""A user's first hour, timed: ``make bench-clone``.

Clones the repository's committed HEAD into a temporary folder and there runs what the README
tells a new user to run, timing each step: ``make .venv/.installed`` (the virtual environment),
``make`` (the default workflow and the report), ``make`` again (nothing to do) and, unless
``--no-test``, ``make test`` (its test count from pytest's last line). Then records, in
``benchmarks/records.csv``, those times and counts and what the clone's run measured of itself
(its summary line, each stage's compute time and largest job: ``records.run_records``).
Reported, never asserted: the numbers depend on the machine and on what else it runs.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import records

ROOT = records.ROOT


#: The environment of a user's shell: none of make's own variables, nor the Makefile's (make
#: exports a variable set on its command line, so ``make bench-clone ARGS=--no-test`` would hand
#: ``ARGS`` to the clone's ``make`` and on to Snakemake).
MAKEFILE_VARIABLES = tuple(re.findall(r"^([A-Z_]+) *\?=", (ROOT / "Makefile").read_text(), re.M))
CLEAN_ENV = {k: v for k, v in os.environ.items()
             if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", *MAKEFILE_VARIABLES)}


def timed(cmd: list[str], cwd: Path) -> tuple[float, str]:
    """Run ``cmd`` in ``cwd``; its wall time and output (stops on failure, output shown)."""
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env=CLEAN_ENV, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed in {cwd}:\n{proc.stdout[-5000:]}\n{proc.stderr[-5000:]}")
    print(f"{' '.join(cmd)}: {seconds:.1f} s", flush=True)
    return seconds, proc.stdout + proc.stderr


def tests_run(output: str) -> int:
    """The number of tests pytest ran (passed, failed, skipped, ...) from its summary line."""
    last = [line for line in output.splitlines() if re.search(r" in [\d.]+s", line)][-1]
    return sum(int(n) for n in re.findall(r"(\d+) (?:passed|failed|skipped|xfailed|xpassed|error)", last))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--no-test", action="store_true", help="skip make test")
    parser.add_argument("--keep", action="store_true", help="keep the clone (its path is printed)")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT / "lib"))
    from expressivity.claims import STAGES

    work = Path(tempfile.mkdtemp(prefix="expressivity-clone-"))
    clone = work / "clone"
    try:
        subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=clone, check=True,
                                capture_output=True, text=True).stdout.strip()
        venv, _ = timed(["make", ".venv/.installed"], clone)
        workflow, output = timed(["make"], clone)
        noop, _ = timed(["make"], clone)
        rows = {"clone.venv_s": (round(venv, 1), "s"), "clone.workflow_s": (round(workflow, 1), "s"),
                "clone.make_s": (round(venv + workflow, 1), "s"), "clone.noop_s": (round(noop, 1), "s"),
                **records.run_records(clone, list(STAGES)), **records.install_records(clone)}
        if not args.no_test:
            seconds, output = timed(["make", "test"], clone)
            rows |= {"clone.test_s": (round(seconds, 1), "s"),
                     "clone.test_count": (tests_run(output), "count")}
        # how busy the host was (other work slows every step): the 15-minute load average at the end
        rows["clone.load"] = (f"{os.getloadavg()[2]:.1f}", "text")
        records.update(rows, f"make bench-clone (commit {commit})")
        print(f"recorded {len(rows)} values in {records.RECORDS.relative_to(ROOT)}; the last run "
              f"said:\n{rows['run.summary'][0]}")
    finally:
        if args.keep:
            print(f"the clone is kept at {clone}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
