"""The job log: a script's start line, progress with remaining time, and a failing script's
traceback all reach the log file its rule declares."""

import ast
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = sorted((ROOT / "workflow/scripts").rglob("*.py"))

SCRIPT = """
import sys, types
sys.path.insert(0, {lib!r})
from expressivity.joblog import Progress, job_log
snakemake = types.SimpleNamespace(log=[{log!r}], rule="demo", wildcards={{"n": "8"}},
                                  params={{"k": 2}})
log = job_log(snakemake)
progress = Progress(log, "trials", 4, min_seconds=1e9, min_fraction=0.5)
for done in range(1, 5):
    progress.update(done)
print("to stderr", file=sys.stderr)
{last}
"""


def run(tmp_path, last):
    log = tmp_path / "job.log"
    code = SCRIPT.format(lib=str(ROOT / "lib"), log=str(log), last=last)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    return proc, log.read_text()


def test_a_finished_job_logs_start_progress_and_end(tmp_path):
    proc, text = run(tmp_path, "")
    assert proc.returncode == 0
    assert "start demo {'n': '8'} params {'k': 2}" in text
    assert "trials: 2/4 (50%) elapsed" in text and "remaining" in text
    assert "trials: 4/4 (100%)" in text
    assert "trials: 1/4" not in text and "trials: 3/4" not in text  # at most one line per 50%
    assert "to stderr" in text
    assert "done demo in" in text
    assert "\r" not in text


def test_the_end_line_counts_the_cpu_the_whole_process_spent(tmp_path):
    """The end line's CPU time is the process's, all of it: a job that burns about a second of
    CPU after the log opened (and spent more to start) logs at least that, and
    ``logged_cpu_seconds`` reads it back; a failed job's log has none."""
    from expressivity.joblog import logged_cpu_seconds

    burn = "import time\nend = time.process_time() + 1.0\nwhile time.process_time() < end: pass"
    _, text = run(tmp_path, burn)
    cpu = logged_cpu_seconds(text)
    assert cpu is not None and cpu >= 1.0
    assert f"CPU {cpu:.1f} s" in text.splitlines()[-1]
    _, failed = run(tmp_path, "raise RuntimeError('injected failure')")
    assert logged_cpu_seconds(failed) is None


def test_a_failing_job_leaves_its_traceback_in_the_log(tmp_path):
    proc, text = run(tmp_path, "raise RuntimeError('injected failure')")
    assert proc.returncode != 0
    assert "Traceback" in text and "RuntimeError: injected failure" in text
    assert "done demo" not in text
    assert "injected failure" in proc.stderr and "job.log" in proc.stderr


@pytest.mark.parametrize("script", SCRIPTS, ids=[str(s.relative_to(ROOT)) for s in SCRIPTS])
def test_every_script_opens_its_job_log_first(script):
    """The first statement after the imports opens the job log: ``log = job_log(snakemake)`` (or
    a bare ``job_log(snakemake)`` where the script logs nothing itself)."""
    body = [node for node in ast.parse(script.read_text()).body
            if not isinstance(node, ast.Import | ast.ImportFrom)
            and not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant))]
    first = ast.unparse(body[0]) if body else ""
    assert first in ("log = job_log(snakemake)", "job_log(snakemake)"), textwrap.shorten(first, 100)
