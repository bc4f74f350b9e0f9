"""Fixtures: Snakemake on config/ci.yaml in temporary copies of the repository."""

import fcntl
import os
import shutil
import subprocess

import pytest

from harness import Workflow, copy_project


def _built_once(shared) -> Workflow:
    """The run of config/ci.yaml in ``shared``/ci_run, made by the first process that asks (the
    others wait on a lock); a failed run is cleared, so the next process that asks tries again."""
    path, done = shared / "ci_run", shared / "ci_run.done"
    with open(shared / "ci_run.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.exists():
            shutil.rmtree(path, ignore_errors=True)
            result = Workflow(copy_project(path)).run()
            (shared / "ci_run.stdout").write_text(result.stdout)
            (shared / "ci_run.stderr").write_text(result.stderr)
            done.touch()
    return Workflow(path)


@pytest.fixture(scope="session")
def ci_run(tmp_path_factory) -> Workflow:
    """A full run of config/ci.yaml, shared by the tests that only read its outputs. Under
    pytest-xdist (`make test`) the workers share one run: the first to ask builds it in the run's
    common folder and each worker takes its own copy (its tests edit and rerun it)."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker is None:
        flow = Workflow(copy_project(tmp_path_factory.mktemp("ci_run")))
        flow.result = flow.run()
        return flow
    shared = tmp_path_factory.getbasetemp().parent
    built = _built_once(shared)
    flow = Workflow(tmp_path_factory.mktemp("ci_run") / "copy")
    shutil.copytree(built.path, flow.path, symlinks=True)
    flow.result = subprocess.CompletedProcess(
        [], 0, (shared / "ci_run.stdout").read_text(), (shared / "ci_run.stderr").read_text())
    return flow


@pytest.fixture
def fresh_copy(tmp_path) -> Workflow:
    return Workflow(copy_project(tmp_path))


@pytest.fixture
def built_copy(ci_run, tmp_path) -> Workflow:
    """A copy of the finished ``ci_run`` (outputs and Snakemake's records): for tests that damage
    what a run built, without building it again."""
    dest = tmp_path / "built"
    shutil.copytree(ci_run.path, dest, symlinks=True)
    return Workflow(dest)
