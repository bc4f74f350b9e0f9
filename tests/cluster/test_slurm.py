"""config/ci.yaml through SLURM (a real single-node cluster on localhost) gives the same bytes as a
local run. Run with `make test-cluster`, which starts the cluster (tests/cluster/start_slurm.sh)."""

import os
import shutil
import subprocess

import pytest

from bundle import table_hashes
from harness import Workflow, copy_project

pytestmark = pytest.mark.skipif(
    os.environ.get("EXPRESSIVITY_TEST_CLUSTER") != "1" or shutil.which("sbatch") is None,
    reason="needs a running SLURM cluster: make test-cluster",
)


def test_slurm_run_matches_local_run_byte_for_byte(tmp_path):
    state = subprocess.run(["sinfo", "-h", "-o", "%T"], capture_output=True, text=True).stdout
    assert state.strip(), "sinfo reports no node: is slurmd running?"
    local = Workflow(copy_project(tmp_path / "local"))
    local.run()
    cluster = Workflow(copy_project(tmp_path / "cluster"))
    proc = cluster.run("--workflow-profile", "workflow/profiles/slurm")
    submitted = (proc.stdout + proc.stderr).count("has been submitted with SLURM jobid")
    assert submitted > 0, "no job went through SLURM"
    ours, theirs = table_hashes(local.path), table_hashes(cluster.path)
    assert ours and ours.keys() == theirs.keys()
    differ = [name for name in ours if ours[name] != theirs[name]]
    assert not differ, f"SLURM and local runs differ in {differ}"
