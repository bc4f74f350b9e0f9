"""Copies of the project in which Snakemake runs: shared by workflow, cluster and fault tests and
by the benchmarks."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SNAKEMAKE = Path(sys.executable).parent / "snakemake"


def project_files(root: Path) -> list[str]:
    """Files git tracks plus untracked files it does not ignore (what a fresh clone would hold,
    and what a developer is about to commit)."""
    out = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=root,
                         check=True, capture_output=True, text=True).stdout
    return [f for f in out.splitlines() if (root / f).is_file() or (root / f).is_symlink()]


def copy_project(dest: Path) -> Path:
    for name in project_files(ROOT):
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if (ROOT / name).is_symlink():
            target.symlink_to(os.readlink(ROOT / name))
        else:
            shutil.copy2(ROOT / name, target)
    return dest


class Workflow:
    """A copy of the project in which Snakemake runs with the copy's own library."""

    def __init__(self, path: Path, cores: str = "2"):
        self.path = path
        self.cores = cores

    def run(self, *args: str, config: str = "config/ci.yaml", check: bool = True):
        env = {**os.environ, "PYTHONPATH": str(self.path / "lib")}
        proc = subprocess.run([str(SNAKEMAKE), *args, "--cores", self.cores, "--configfile", config],
                              cwd=self.path, env=env, capture_output=True, text=True)
        if check and proc.returncode != 0:
            raise AssertionError(f"snakemake {' '.join(args)} failed:\n{proc.stdout}\n{proc.stderr}")
        return proc

    def planned_jobs(self, *args: str, config: str = "config/ci.yaml") -> dict[str, int]:
        """``{rule: count}`` of the jobs a dry run would execute."""
        out = self.run("-n", *args, config=config).stdout
        if "Nothing to be done" in out:
            return {}
        table = out.split("Job stats:", 1)[1]
        return {m[1]: int(m[2]) for m in re.finditer(r"^(\w+)\s+(\d+)$", table, re.M)
                if m[1] != "total"}
