"""make's last line (workflow/last_line.py): this run's summary; after a full run with nothing to
do, the last run's when it covered every stage with the same config; otherwise none."""

import hashlib
import json

import pytest

import last_line


@pytest.fixture
def checkout(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "config.yaml").write_text("seed: 1\n")
    (tmp_path / "results/run").mkdir(parents=True)
    return tmp_path


def write_summary(line: str, all_stages: bool = True, config: str = "config.yaml") -> None:
    sha = hashlib.sha256(open(config, "rb").read()).hexdigest()
    last_line.SUMMARY.write_text(json.dumps({"summary": line, "stages": [], "all_stages": all_stages,
                                             "configfiles": [config], "config_sha256": [sha]}))


def test_a_run_prints_its_own_summary(checkout):
    write_summary("old")
    last_line.before()
    assert not last_line.SUMMARY.exists()
    write_summary("new")  # the Snakefile's onsuccess
    assert last_line.after("config.yaml", full=True) == "new"
    assert not last_line.ASIDE.exists()


def test_a_full_run_with_nothing_to_do_repeats_the_last_full_summary(checkout):
    write_summary("Findings: 1/1 passed")
    last_line.before()
    line = last_line.after("config.yaml", full=True)
    assert line.endswith("Findings: 1/1 passed") and line.startswith("Nothing to do")
    assert last_line.SUMMARY.is_file(), "kept for the next run with nothing to do"


@pytest.mark.parametrize("all_stages, full, edit", [
    (False, True, False),  # the last run covered some stages only
    (True, False, False),  # this run asked for part of the workflow (or was a dry run)
    (True, True, True),  # the config changed since
])
def test_otherwise_a_run_without_a_summary_prints_none(checkout, all_stages, full, edit):
    write_summary("Findings: 1/1 passed", all_stages)
    last_line.before()
    if edit:
        (checkout / "config.yaml").write_text("seed: 2\n")
    assert last_line.after("config.yaml", full=full) is None


def test_a_summary_set_aside_by_a_failed_run_is_not_reused(checkout):
    write_summary("before the failure")
    last_line.before()  # the run then fails: `after` never runs
    last_line.before()  # the next run
    assert last_line.after("config.yaml", full=True) is None
