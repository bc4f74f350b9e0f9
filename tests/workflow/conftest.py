"""Fixtures: Snakemake on config/ci.yaml in temporary copies of the repository."""

import shutil

import pytest

from harness import Workflow, copy_project


@pytest.fixture(scope="session")
def ci_run(tmp_path_factory) -> Workflow:
    """A full run of config/ci.yaml, shared by the tests that only read its outputs."""
    flow = Workflow(copy_project(tmp_path_factory.mktemp("ci_run")))
    flow.result = flow.run()
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
