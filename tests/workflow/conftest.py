"""Fixtures: Snakemake on config/ci.yaml in temporary copies of the repository."""

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
