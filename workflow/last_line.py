"""The last line of ``make``: the claims summary of this run (``results/run/summary.json``,
written by the Snakefile's ``onsuccess`` from the stage claims tables the run built or confirmed).

``python workflow/last_line.py before`` (before Snakemake starts) sets the previous summary aside;
``python workflow/last_line.py after CONFIG full|partial`` (after it succeeded) prints this run's
summary. Snakemake calls no handler when it has nothing to do; a full run of CONFIG with nothing to
do confirmed every claims table as the last successful run left it, so that run's summary, when it
covered every stage with the same config, is printed and kept. Any other run without a summary (a
dry run, a partial run with nothing to do) prints none. Standard library only: a no-op ``make``
stays fast.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

SUMMARY = Path("results/run/summary.json")
ASIDE = SUMMARY.with_name("summary.last.json")


def config_sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def read_record(root: Path = Path(".")) -> dict:
    """The last successful run's record under ``root`` (its summary line, each paper's, the stages
    and config files it covers), or ``{}``."""
    path = root / SUMMARY
    return json.loads(path.read_text()) if path.is_file() else {}


def not_a_full_run(record: dict, root: Path, config: str, stages: list[str]) -> str | None:
    """Why ``record`` is not the record of a full run of ``config`` (relative to ``root``) as that
    file is now, every one of ``stages`` judged; ``None`` when it is."""
    if not record:
        return f"{root / SUMMARY} is missing: run `make` first"
    if record["configfiles"] != [config] or record["stages"] != stages:
        return (f"the last run used {record['configfiles']} on stages {record['stages']}, not "
                f"{config} on every stage: run `make`")
    if record["config_sha256"] != [config_sha256(root / config)]:
        return f"{config} changed since the last run: run `make` again"
    return None


def before() -> None:
    ASIDE.unlink(missing_ok=True)  # a run that failed after setting one aside proves nothing
    if SUMMARY.is_file():
        SUMMARY.replace(ASIDE)


def after(config: str, full: bool) -> str | None:
    """The line to print last, or ``None``."""
    if SUMMARY.is_file():
        ASIDE.unlink(missing_ok=True)
        return json.loads(SUMMARY.read_text())["summary"]
    if not ASIDE.is_file():
        return None
    last = json.loads(ASIDE.read_text())
    ASIDE.replace(SUMMARY)  # kept for the next run with nothing to do
    if full and last["all_stages"] and last["config_sha256"] == [config_sha256(Path(config))]:
        return f"Nothing to do: every claims table is as the last run left it. {last['summary']}"
    return None


def main(argv: list[str]) -> int:
    if argv[:1] == ["before"]:
        before()
    elif argv[:1] == ["after"] and len(argv) == 3:
        line = after(argv[1], argv[2] == "full")
        if line:
            print(line)
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
