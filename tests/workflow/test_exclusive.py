"""One run at a time per directory: a second run is refused at once, naming the first one's pid."""

import shutil
import subprocess
import time

from cases import ROOT


def test_a_second_run_is_refused_with_the_first_ones_pid(tmp_path):
    shutil.copy(ROOT / "workflow/exclusive.sh", tmp_path / "exclusive.sh")
    first = subprocess.Popen(["bash", "exclusive.sh", "config/x.yaml", "sleep", "30"], cwd=tmp_path)
    try:
        deadline = time.monotonic() + 20
        while not (tmp_path / ".snakemake/run.pid").is_file() and time.monotonic() < deadline:
            time.sleep(0.05)
        second = subprocess.run(["bash", "exclusive.sh", "config/x.yaml", "true"], cwd=tmp_path,
                                capture_output=True, text=True)
        assert second.returncode == 75
        assert f"Another run is using this directory (pid {first.pid}" in second.stderr
        assert "CONFIG=config/x.yaml" in second.stderr
    finally:
        first.kill()
        first.wait()
    again = subprocess.run(["bash", "exclusive.sh", "config/x.yaml", "true"], cwd=tmp_path)
    assert again.returncode == 0
