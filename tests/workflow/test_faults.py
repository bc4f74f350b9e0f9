"""Faults: a run killed mid-job resumes to the same bytes; unwritable or full output directories
fail with a message naming the path; a table damaged after its job wrote it is set aside and
rebuilt, with everything that reads it, to the same bytes."""

import base64
import hashlib
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from harness import SNAKEMAKE

pytestmark = pytest.mark.workflow


#: The stage these tests interrupt (one stage keeps them fast; the mechanism is the same for all).
STAGE = "hardmax_vs_softmax"
#: What they build of it: every table and the claims, not the figures (drawing adds time, not
#: mechanism): the stage's claims table and the tables only figures read.
TARGETS = (f"results/claims/{STAGE}.csv", f"results/{STAGE}/boltzmann_curves.csv",
           f"results/{STAGE}/theorem1_search.csv")


def csv_digests(root: Path) -> dict[str, str]:
    tables = [*(root / "results" / STAGE).rglob("*.csv"), root / "results/claims" / f"{STAGE}.csv"]
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(tables)}


def start(flow) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(flow.path / "lib")}
    return subprocess.Popen([str(SNAKEMAKE), *TARGETS, "--cores", "2", "--configfile", "config/ci.yaml"],
                            cwd=flow.path, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)


def wait_for_running_job(flow, proc, timeout=120.0) -> None:
    """Return once Snakemake has marked the outputs of a running job as incomplete."""
    markers = flow.path / ".snakemake" / "incomplete"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if markers.is_dir() and any(markers.iterdir()):
            return
        if proc.poll() is not None:
            pytest.fail("the workflow finished before a job could be interrupted")
        time.sleep(0.02)
    pytest.fail("no job started")


def wait_for_group(pgid: int, timeout=120.0) -> None:
    """Wait until every process of the killed run (orphaned jobs included) has ended."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.1)
    os.killpg(pgid, signal.SIGKILL)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
def test_killed_run_resumes_to_identical_outputs(ci_run, fresh_copy, sig):
    proc = start(fresh_copy)
    wait_for_running_job(fresh_copy, proc)
    os.kill(proc.pid, sig)  # the snakemake process only; its job processes are left alone
    proc.wait(timeout=120)
    wait_for_group(proc.pid)
    assert not list((fresh_copy.path / "results").rglob(".*.tmp")), "a temporary table survived"
    if sig == signal.SIGKILL:
        fresh_copy.run("--unlock")  # a killed Snakemake leaves its lock behind
    fresh_copy.run(*TARGETS, "--rerun-incomplete")
    assert csv_digests(fresh_copy.path) == csv_digests(ci_run.path)
    assert fresh_copy.planned_jobs(*TARGETS) == {}


def marked_incomplete(flow) -> list[str]:
    """Outputs Snakemake has marked incomplete (markers are base64 names under
    .snakemake/incomplete, split into '@'-prefixed directories when long)."""
    root = flow.path / ".snakemake" / "incomplete"
    names = []
    for marker in root.rglob("*"):
        if marker.is_file() and marker.name != "migration_underway":
            code = "".join(part.lstrip("@") for part in marker.relative_to(root).parts)
            names.append(base64.urlsafe_b64decode(code).decode())
    return names


def test_incomplete_outputs_are_never_taken_as_complete(ci_run, fresh_copy):
    proc = start(fresh_copy)
    wait_for_running_job(fresh_copy, proc)
    os.killpg(proc.pid, signal.SIGKILL)  # the whole run, jobs included: nothing cleans up
    proc.wait(timeout=60)
    wait_for_group(proc.pid)
    interrupted = marked_incomplete(fresh_copy)
    assert interrupted, "the kill came before any job was marked running"
    present = [name for name in interrupted if (fresh_copy.path / name).exists()]
    # Tables are renamed into place only when complete: an interrupted job leaves none behind.
    assert not [name for name in present if name.endswith(".csv")], present
    fresh_copy.run("--unlock")
    plain = fresh_copy.run(*TARGETS, check=False)
    if present:  # e.g. a half-written figure: Snakemake refuses to build on it
        assert plain.returncode != 0
        assert "--rerun-incomplete" in plain.stdout + plain.stderr
        fresh_copy.run(*TARGETS, "--rerun-incomplete")
    else:  # nothing partial exists: the interrupted jobs simply run again
        assert plain.returncode == 0, plain.stderr
    assert csv_digests(fresh_copy.path) == csv_digests(ci_run.path)


def mount_tmpfs(where: Path, *options: str) -> bool:
    where.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(["mount", "-t", "tmpfs", "-o", ",".join(options), "tmpfs", str(where)],
                          capture_output=True)
    return proc.returncode == 0


@pytest.fixture
def mounted(fresh_copy):
    points = []

    def mount(rel: str, *options: str) -> Path:
        where = fresh_copy.path / rel
        if os.geteuid() != 0 or not mount_tmpfs(where, *options):
            pytest.skip("needs root and tmpfs mounts to make a read-only or full directory")
        points.append(where)
        return where

    yield mount
    for where in reversed(points):
        subprocess.run(["umount", str(where)], check=False)


def test_read_only_results_directory_fails_naming_the_path(fresh_copy, mounted):
    mounted("results", "ro", "size=1m")
    proc = fresh_copy.run(*TARGETS, check=False)
    assert proc.returncode != 0
    assert "Read-only file system" in proc.stdout + proc.stderr
    assert "results/" in proc.stdout + proc.stderr


def test_full_results_directory_fails_naming_the_path(fresh_copy, mounted):
    mounted("results", "size=12k")
    proc = fresh_copy.run(*TARGETS, check=False)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert "No space left on device" in out
    assert "results/" in out


def cut_at_line(data: bytes) -> bytes:
    """The first half of the lines: a table that still parses and looks complete."""
    lines = data.splitlines(keepends=True)
    return b"".join(lines[: len(lines) // 2])


@pytest.mark.parametrize("table, damage", [
    ("results/hardmax_vs_softmax/theorem1_search.csv", cut_at_line),
    ("results/hardmax_vs_softmax/theorem1_search.csv", lambda data: data[: len(data) // 2]),
    ("results/claims/hardmax_vs_softmax.csv", lambda data: data[:500]),
], ids=["cut-at-line", "cut-mid-line", "claims-cut"])
def test_damaged_table_is_set_aside_and_rebuilt_with_its_dependents(built_copy, table, damage):
    assert built_copy.planned_jobs(*TARGETS) == {}
    before = csv_digests(built_copy.path)
    path = built_copy.path / table
    path.write_bytes(damage(path.read_bytes()))
    proc = built_copy.run(*TARGETS)
    assert f"{table}: table differs from what its job wrote" in proc.stdout + proc.stderr
    assert (built_copy.path / "results/.damaged" / Path(table).relative_to("results")).is_file()
    assert csv_digests(built_copy.path) == before


def test_an_error_injected_into_a_job_is_in_that_jobs_log(fresh_copy):
    script = fresh_copy.path / "workflow/scripts/hardmax_vs_softmax/curves.py"
    script.write_text(script.read_text() + "\nraise RuntimeError('injected failure')\n")
    proc = fresh_copy.run("results/hardmax_vs_softmax/boltzmann_curves.csv", check=False)
    assert proc.returncode != 0
    log = (fresh_copy.path / "logs/hardmax_vs_softmax/boltzmann_curves.log").read_text()
    assert "start hvs_boltzmann_curves" in log
    assert "Traceback" in log and "RuntimeError: injected failure" in log
    assert "injected failure" in proc.stdout + proc.stderr  # show-failed-logs prints it too


def test_damaged_part_whose_consumers_are_built_is_set_aside_and_rebuilt_on_request(built_copy):
    """A per-point table damaged after its gather consumed it: the gathered table and everything
    after it stay valid (they were computed from the undamaged part), so Snakemake does not need
    the part; it is set aside, nothing else changes, and asking for it rebuilds the same bytes."""
    part = "results/hardmax_vs_softmax/bigbird/n16_t0-1.csv"  # config/ci.yaml: 2 trials, one job
    assert built_copy.planned_jobs(*TARGETS) == {}
    before = csv_digests(built_copy.path)
    path = built_copy.path / part
    path.write_bytes(path.read_bytes().replace(b"1", b"7", 1))
    proc = built_copy.run(*TARGETS)
    assert f"{part}: table differs from what its job wrote" in proc.stdout + proc.stderr
    assert not path.exists()
    assert csv_digests(built_copy.path) == {k: v for k, v in before.items() if k != part}
    built_copy.run(part)
    assert csv_digests(built_copy.path) == before
