"""The workflow used as a Snakemake module (`module` directive, as snakedeploy writes it) from
another folder: the library, scripts, schemas and captions are found from the workflow's own
folder, never from the working directory or an installed copy of the package."""

import os
import subprocess
import sys
import sysconfig

import pandas as pd
import pytest

from harness import SNAKEMAKE

pytestmark = pytest.mark.workflow


def test_a_stage_runs_through_the_module_directive(fresh_copy, tmp_path):
    user = tmp_path / "user"
    user.mkdir()
    (user / "config.yaml").write_text((fresh_copy.path / "config/ci.yaml").read_text())
    (user / "Snakefile").write_text(
        'configfile: "config.yaml"\n\n\n'
        "module expressivity:\n"
        f'    snakefile: "{os.path.relpath(fresh_copy.path / "Snakefile", user)}"\n'
        "    config: config\n\n\n"
        "use rule * from expressivity as expressivity_*\n")
    # Python without site processing (-S): the installed (editable) project is invisible, only
    # the packages' folder is on the path; the library must come from the module's own folder.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = sysconfig.get_paths()["purelib"]
    probe = subprocess.run([sys.executable, "-S", "-c", "import expressivity"], env=env,
                           capture_output=True, text=True)
    assert probe.returncode != 0, "the library is importable without the module's folder"
    proc = subprocess.run([sys.executable, "-S", str(SNAKEMAKE), "expressivity_hardmax_vs_softmax",
                           "--cores", "2"], cwd=user, env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    claims = pd.read_csv(user / "results/claims/hardmax_vs_softmax.csv")
    assert len(claims) and (user / "figures/hardmax_vs_softmax/theorem1_gaps.png").is_file()
    assert not (fresh_copy.path / "results").exists(), "outputs belong in the user's folder"
