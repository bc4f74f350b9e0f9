"""The record of measured times and counts (benchmarks/records.csv) and the README that quotes it."""

import hashlib
import importlib.util
import json

import pytest

from expressivity.claims import STAGES


@pytest.fixture(scope="module")
def records(root):
    spec = importlib.util.spec_from_file_location("records", root / "benchmarks/records.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_readme_quotes_the_record(records):
    """Every measured number of the README is the record's (`make readme` after a change)."""
    text = records.README.read_text()
    assert records.MARK.search(text) and records.TABLE.search(text)
    assert records.filled(text, records.read(), list(STAGES)) == text, (
        "README.md's measured numbers differ from benchmarks/records.csv: run `make readme`")


def test_update_replaces_only_the_keys_it_measures(records, tmp_path):
    path = tmp_path / "records.csv"
    records.update({"a": (1.5, "s"), "b": (2, "count")}, "first", path, when="2000-01-01")
    table = records.update({"b": (3, "count")}, "second", path)
    rows = table.set_index("key")
    assert list(rows.index) == ["a", "b"]
    assert rows.loc["a", "source"] == "first" and rows.loc["a", "measured"] == "2000-01-01"
    assert rows.loc["b", "value"] == "3" and rows.loc["b", "source"] == "second"
    assert records.read(path).equals(table.reset_index(drop=True))


@pytest.mark.parametrize("value, unit, text", [
    ("2.81", "s", "2.8 s"), ("48.4", "s", "48 s"), ("531", "s", "8 min 51 s"), ("2857", "count", "2,857"),
    ("990.6", "MB", "991 MB"), ("Findings: 1/2 passed", "text", "Findings: 1/2 passed"),
])
def test_values_read_as_the_readme_prints_them(records, value, unit, text):
    assert records.shown(value, unit) == text


def test_a_quoted_key_missing_from_the_record_is_named(records, tmp_path):
    path = tmp_path / "records.csv"
    records.update({"a": (1, "s")}, "test", path)
    text = "took <!-- record:a -->old<!-- /record --> and <!-- record:gone -->x<!-- /record -->"
    with pytest.raises(KeyError, match="gone"):
        records.filled(text, records.read(path), [])
    assert records.filled(text.split(" and ")[0], records.read(path), []) == (
        "took <!-- record:a -->1.0 s<!-- /record -->")


def finished_run(root, tmp_path, stages, configfiles=("config/config.yaml",)):
    """A checkout holding a run's summary and benchmark records, as the workflow writes them."""
    (tmp_path / "config").mkdir()
    (tmp_path / "config/config.yaml").write_bytes((root / "config/config.yaml").read_bytes())
    summary = {"summary": "Findings: 1/1 passed", "stages": list(stages), "configfiles": list(configfiles),
               "config_sha256": [hashlib.sha256((root / "config/config.yaml").read_bytes()).hexdigest()]}
    (tmp_path / "results/run").mkdir(parents=True)
    (tmp_path / "results/run/summary.json").write_text(json.dumps(summary))
    for stage in stages:
        folder = tmp_path / "results/benchmarks" / stage
        folder.mkdir(parents=True)
        for name, seconds in (("small", 1.25), ("big", 10.0)):
            (folder / f"{name}.tsv").write_text(f"s\th:m:s\tmax_rss\n{seconds}\t0:00:01\t10\n")
    return tmp_path


def test_a_full_default_run_is_recorded(records, root, tmp_path):
    rows = records.run_records(finished_run(root, tmp_path, STAGES), list(STAGES))
    assert rows["run.summary"] == ("Findings: 1/1 passed", "text")
    stage = STAGES[0]
    assert rows[f"run.{stage}.compute_s"] == (11.2, "s")
    assert rows[f"run.{stage}.largest_job"] == ("big", "text")


@pytest.mark.parametrize("stages, configfiles, message", [
    (STAGES[:1], ("config/config.yaml",), "on stages"),
    (STAGES, ("config/ci.yaml",), "config/ci.yaml"),
])
def test_a_partial_or_other_run_is_not_recorded(records, root, tmp_path, stages, configfiles, message):
    checkout = finished_run(root, tmp_path, stages, configfiles)
    with pytest.raises(ValueError, match=message):
        records.run_records(checkout, list(STAGES))


def test_a_config_edited_since_the_run_is_not_recorded(records, root, tmp_path):
    checkout = finished_run(root, tmp_path, STAGES)
    (checkout / "config/config.yaml").write_text("seed: 1\n")
    with pytest.raises(ValueError, match="changed since the last run"):
        records.run_records(checkout, list(STAGES))
