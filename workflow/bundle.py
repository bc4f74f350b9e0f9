"""Bundle a run's outputs into one archive with a manifest: ``make artifacts``.

The archive ``dist/expressivity-<commit>.tar.gz`` holds ``figures/``, every CSV under ``results/``
(benchmark records excluded), ``results/claims.csv``, ``results/report.html`` and ``MANIFEST.json``:
the sha256 and size of every file, the config the run used, the name and version of every package
installed in the environment that built it, the sha256 of ``requirements.lock`` and of
``requirements-torch.lock`` (torch's CPU build) and the packages whose installed version differs
from them, the git commit (and whether the tree had uncommitted changes) and the claims summary
(the run's line and each paper's, from ``results/run/summary.json``). The archive is
deterministic: sorted members, fixed times and owners, gzip without a timestamp.
``verify`` checks an archive against its manifest. ``compare A B`` lists the tables (CSVs but the
records of measured times) that differ between two runs, each given as an archive or as a checkout
that holds a run: the check that a refactor left every output byte-identical, or what a changed
parameter touched.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import hashlib
import io
import json
import re
import subprocess
import sys
import tarfile
from importlib import metadata
from pathlib import Path

from last_line import read_record


def _benchmark_record(name: str) -> bool:
    """Measured times that are not part of a run's outputs: the per-job records of Snakemake's
    ``benchmark:`` (``results/benchmarks/``) and ``make bench``'s ``results/benchmarks.csv``."""
    return Path(name).parts[:2] in (("results", "benchmarks"), ("results", "benchmarks.csv"))


def collect(root: Path) -> list[Path]:
    """The files to bundle, relative to ``root``; refuses when the run is incomplete."""
    required = [root / "results/claims.csv", root / "results/report.html"]
    missing = [str(p.relative_to(root)) for p in required if not p.is_file()]
    if missing:
        raise SystemExit(f"cannot bundle: {', '.join(missing)} missing; run `make` first")
    files = {p for p in (root / "figures").rglob("*") if p.is_file() and p.suffix in (".png", ".pdf")}
    files |= {p for p in (root / "results").rglob("*.csv")
              if not _benchmark_record(str(p.relative_to(root)))}
    files |= set(required)
    return sorted(p.relative_to(root) for p in files)


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def git(root: Path, *args: str) -> str:
    proc = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True)
    return proc.stdout.strip() if proc.returncode == 0 else "unknown"


def _normalise(name: str) -> str:
    """A project name as PEP 503 compares them: case and runs of -_. do not matter."""
    return re.sub(r"[-_.]+", "-", name).lower()


def package_versions() -> dict[str, str]:
    """Every distribution installed in the running environment: {normalised name: version}.

    When one name is installed twice on ``sys.path`` the first, the one ``import`` finds, counts."""
    versions: dict[str, str] = {}
    for dist in metadata.distributions():
        name = dist.metadata["Name"]
        if name:
            versions.setdefault(_normalise(name), dist.version)
    return dict(sorted(versions.items()))


def locked_versions(lock: Path) -> dict[str, str]:
    """The ``name==version`` pins of a requirements file (``requirements.lock``)."""
    pins = re.findall(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)", lock.read_text(), re.M)
    return {_normalise(name): version for name, version in pins}


def _satisfies(installed: str | None, locked: str) -> bool:
    """``installed`` meets the pin ``==locked`` (PEP 440: a pin without a local label such as
    ``+cpu`` ignores the installed version's label: torch 2.13.0+cpu meets torch==2.13.0)."""
    if installed is None:
        return False
    return installed == locked or ("+" not in locked and installed.split("+", 1)[0] == locked)


def lock_record(root: Path, installed: dict[str, str], name: str = "requirements.lock") -> dict:
    """The lock file's sha256, and every locked package whose installed version differs from it."""
    lock = root / name
    if not lock.is_file():
        return {"file": lock.name, "sha256": None, "differs": {}}
    differs = {name: {"locked": version, "installed": installed.get(name, "not installed")}
               for name, version in locked_versions(lock).items()
               if not _satisfies(installed.get(name), version)}
    return {"file": lock.name, "sha256": sha256(lock), "differs": differs}


def manifest(root: Path, files: list[Path], config: Path) -> dict:
    with (root / "results/claims.csv").open(newline="") as handle:
        statuses = [row["status"] for row in csv.DictReader(handle)]
    packages = package_versions()
    return {
        "commit": git(root, "rev-parse", "HEAD"),
        "uncommitted_changes": bool(git(root, "status", "--porcelain", "--untracked-files=no")),
        "config_file": str(config),
        "config": (root / config).read_text(),
        "python": sys.version.split()[0],
        "packages": packages,
        "lock": lock_record(root, packages),
        "torch_lock": lock_record(root, packages, "requirements-torch.lock"),
        "claims": {"total": len(statuses), "passed": statuses.count("pass")},
        "summary": read_record(root).get("summary"),
        "papers": read_record(root).get("papers", {}),
        "files": {str(f): {"sha256": sha256(root / f), "bytes": (root / f).stat().st_size}
                  for f in files},
    }


def _add(tar: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size, info.mtime, info.mode = len(data), 0, 0o644
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    tar.addfile(info, io.BytesIO(data))


def build(root: Path, config: Path, out_dir: Path, name: str | None = None) -> Path:
    """The archive ``<out_dir>/expressivity-<name>.tar.gz`` (``name`` by default the commit)."""
    files = collect(root)
    info = manifest(root, files, config)
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / f"expressivity-{name or info['commit'][:12]}.tar.gz"
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
        _add(tar, "MANIFEST.json", json.dumps(info, indent=2, sort_keys=True).encode() + b"\n")
        for f in files:
            _add(tar, str(f), (root / f).read_bytes())
    with gzip.GzipFile(target, "wb", mtime=0) as gz:
        gz.write(buffer.getvalue())
    return target


def verify(archive: Path) -> list[str]:
    """Problems found when checking ``archive`` against its manifest (empty when it matches)."""
    problems = []
    with tarfile.open(archive, "r:gz") as tar:
        members = {m.name: m for m in tar.getmembers()}
        info = json.load(tar.extractfile(members.pop("MANIFEST.json")))
        for name, entry in info["files"].items():
            if name not in members:
                problems.append(f"{name}: listed in the manifest but not in the archive")
                continue
            data = tar.extractfile(members.pop(name)).read()
            if hashlib.sha256(data).hexdigest() != entry["sha256"]:
                problems.append(f"{name}: sha256 differs from the manifest")
        problems += [f"{name}: in the archive but not in the manifest" for name in members]
    return problems


def _computed_table(name: str) -> bool:
    """A CSV that the same config reproduces byte for byte: not a record of measured wall times
    (the benchmark records, and ``results/run/`` that compares them with the plan)."""
    return (name.endswith(".csv") and not _benchmark_record(name)
            and Path(name).parts[:2] != ("results", "run"))


def table_hashes(run: Path) -> dict[str, str]:
    """sha256 of every computed table of a run (``_computed_table``): from an archive's manifest,
    or computed from a checkout's ``results/``."""
    if run.is_dir():
        tables = [str(p.relative_to(run)) for p in run.glob("results/**/*.csv")]
        return {name: sha256(run / name) for name in sorted(tables) if _computed_table(name)}
    if not run.is_file() or not tarfile.is_tarfile(run):
        raise SystemExit(f"{run}: neither a checkout nor a bundle archive")
    with tarfile.open(run, "r:gz") as tar:
        files = json.load(tar.extractfile("MANIFEST.json"))["files"]
    return {name: entry["sha256"] for name, entry in files.items() if _computed_table(name)}


def compare(first: Path, second: Path) -> dict[str, list[str]]:
    """The tables of two runs by outcome: ``identical``, ``different``, ``only_first``,
    ``only_second`` (each a sorted list of paths relative to the run)."""
    a, b = table_hashes(first), table_hashes(second)
    both = sorted(set(a) & set(b))
    return {"identical": [t for t in both if a[t] == b[t]],
            "different": [t for t in both if a[t] != b[t]],
            "only_first": sorted(set(a) - set(b)), "only_second": sorted(set(b) - set(a))}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    make = sub.add_parser("build", help="bundle the outputs of the last run")
    make.add_argument("--config", default="config/config.yaml", type=Path)
    make.add_argument("--out", default="dist", type=Path)
    make.add_argument("--name", help="the archive's name after expressivity- (default: the commit)")
    check = sub.add_parser("verify", help="check an archive against its manifest")
    check.add_argument("archive", type=Path)
    diff = sub.add_parser("compare", help="the tables that differ between two runs "
                          "(archives, or checkouts holding a run); exit 1 when any does")
    diff.add_argument("first", type=Path)
    diff.add_argument("second", type=Path)
    args = parser.parse_args()
    root = Path(__file__).resolve().parents[1]
    if args.command == "build":
        print(build(root, args.config, root / args.out, args.name))
        return 0
    if args.command == "compare":
        outcome = compare(args.first, args.second)
        for key, label in (("different", "differs"), ("only_first", f"only in {args.first}"),
                           ("only_second", f"only in {args.second}")):
            print("".join(f"{table}: {label}\n" for table in outcome[key]), end="")
        print(", ".join(f"{len(tables)} {key.replace('_', ' ')}" for key, tables in outcome.items()))
        return 1 if outcome["different"] else 0
    problems = verify(args.archive)
    print("\n".join(problems) or f"{args.archive}: every file matches its manifest entry")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
