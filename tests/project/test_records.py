"""The record of measured times and counts (benchmarks/records.csv) and the README that quotes it."""

import hashlib
import importlib.util
import json
import re

import pytest

from expressivity.claims import STAGES, registry

CLAIMS = [(c.id, c.kind) for c in registry()]


def records_module(root):
    spec = importlib.util.spec_from_file_location("records", root / "benchmarks/records.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def records(root):
    return records_module(root)


def test_readme_quotes_the_record(records):
    """Every measured number of the README is the record's (`make readme` after a change)."""
    text = records.README.read_text()
    assert records.MARK.search(text) and records.TABLE.search(text)
    assert records.filled(text, records.read(), list(STAGES), CLAIMS) == text, (
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
        records.filled(text, records.read(path), [], [])
    assert records.filled(text.split(" and ")[0], records.read(path), [], []) == (
        "took <!-- record:a -->1.0 s<!-- /record -->")


def finished_run(root, tmp_path, stages, configfiles=("config/config.yaml",)):
    """A checkout holding a run's summary and benchmark records, as the workflow writes them."""
    (tmp_path / "config").mkdir()
    (tmp_path / "config/config.yaml").write_bytes((root / "config/config.yaml").read_bytes())
    summary = {"summary": "Findings: 1/1 passed", "stages": list(stages), "configfiles": list(configfiles),
               "config_sha256": [hashlib.sha256((root / "config/config.yaml").read_bytes()).hexdigest()]}
    (tmp_path / "results/run").mkdir(parents=True)
    (tmp_path / "results/run/summary.json").write_text(json.dumps(summary))
    (tmp_path / "results/claims.csv").write_text("id,kind,status\ns.a,finding,fail\ns.b,finding,pass\n"
                                                 "s.c,check,fail\ns.d,finding,fail\n")
    for stage in stages:
        folder = tmp_path / "results/benchmarks" / stage
        folder.mkdir(parents=True)
        for name, seconds in (("small", 1.25), ("big", 10.0)):
            (folder / f"{name}.tsv").write_text(f"s\th:m:s\tmax_rss\n{seconds}\t0:00:01\t10\n")
    tables, benchmarks = tmp_path / "results/trained_models", tmp_path / "results/benchmarks/trained_models"
    tables.mkdir(parents=True)
    benchmarks.mkdir(parents=True, exist_ok=True)
    for _, _, table, _, prefix in records_module(root).FAMILIES:
        (tables / f"{table}.csv").write_text(
            "outcome,steps_to_target,longest_stall,window,budget\nreached,700,300,1000,3000\n"
            "reached,900,450,1000,3000\nplateau,,2000,1000,3000\n")
        (benchmarks / f"{prefix}x.tsv").write_text(
            "s\th:m:s\tmax_rss\tcpu_time\n2.5\t0:00:01\t10\t2.5\n")
    return tmp_path


def test_a_full_default_run_is_recorded(records, root, tmp_path):
    rows = records.run_records(finished_run(root, tmp_path, STAGES), list(STAGES))
    assert rows["run.summary"] == ("Findings: 1/1 passed", "text")
    assert rows["run.failed_findings"] == ("s.a s.d", "text")  # findings only
    assert rows["run.claims"] == (records.fingerprint([("s.a", "finding"), ("s.b", "finding"),
                                                       ("s.c", "check"), ("s.d", "finding")]), "text")
    stage = STAGES[0]
    assert rows[f"run.{stage}.compute_s"] == (11.2, "s")
    assert rows[f"run.{stage}.largest_job"] == ("big", "text")


def test_each_trained_family_records_its_stalls_against_its_window(records, root, tmp_path):
    """The longest stall and time to target count runs that reached the target only (a plateau's
    stall of 2,000 is no evidence about what success needs); the rule flags a window under twice
    the stall, a family where no run reached has nothing to flag."""
    rows = records.run_records(finished_run(root, tmp_path, STAGES), list(STAGES))
    assert rows["run.family.copy.stall"] == (450, "count")
    assert rows["run.family.copy.slowest"] == (900, "count")
    assert rows["run.family.copy.window"] == (1000, "count")
    assert rows["run.family.copy.budget"] == (3000, "count")
    assert rows["run.family.copy.cpu_s"] == (2.5, "s")
    rows["run.family.width.stall"] = (501, "count")
    rows["run.family.hybrid.stall"] = ("-", "text")
    table = records.pd.DataFrame([(k, str(v), u) for k, (v, u) in rows.items()],
                                 columns=["key", "value", "unit"])
    trained = {section: {"window": 1000} for *_, sections, _ in records.FAMILIES for section in sections}
    assert records.windows_below_rule(table, {"trained_models": trained}) == ["width"]
    shown = records.family_table(table)
    assert "| width (epochs) | 501 | 900 | 1,000 | **no**: the rule asks 1,002 |" in shown
    assert "| hybrids (steps) | - | 900 | 1,000 | - |" in shown


def test_the_default_windows_hold_the_recorded_stalls(records, root):
    """Every window of config/config.yaml is at least twice the longest stall of a run that reached
    the target in the recorded default run, except the families the README names (its bullets
    after the generated table): a new record with longer stalls fails here until the windows or the
    README follow."""
    config = records.yaml.safe_load((root / "config/config.yaml").read_text())
    readme = (root / "README.md").read_text()
    after_table = readme[readme.index("<!-- record-table:families -->"):].split("\n\n")[2]
    named = re.findall(r"^- \*\*(\w+)\*\*:", after_table, re.M)
    assert records.windows_below_rule(records.read(), config) == named


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


def recorded(records, tmp_path, claims, failed="s.a"):
    path = tmp_path / "records.csv"
    records.update({"run.summary": ("Findings: 1/2 passed, 1 failed", "text"),
                    "run.failed_findings": (failed, "text"),
                    "run.claims": (records.fingerprint(claims), "text")}, "make record", path,
                   when="2030-01-02", where="a machine, 2 CPUs")
    return records.read(path)


def test_the_expected_summary_is_the_recorded_line_of_these_claims(records, tmp_path):
    claims = [("s.a", "finding"), ("s.b", "finding"), ("s.c", "check")]
    text = records.expected_summary(recorded(records, tmp_path, claims), claims)
    assert text.startswith("> Findings: 1/2 passed, 1 failed\n\nThe findings it fails: `s.a`. ")
    assert "Recorded on 2030-01-02, a machine, 2 CPUs, by `make record`" in text
    assert "It fails no finding." in records.expected_summary(
        recorded(records, tmp_path, claims, failed=""), claims)


@pytest.mark.parametrize("now", [
    [("s.a", "finding"), ("s.b", "check"), ("s.c", "check")],  # a claim changed kind
    [("s.a", "finding"), ("s.b", "finding"), ("s.c", "check"), ("s.d", "check")],  # one more
    [("s.a", "finding"), ("s.x", "finding"), ("s.c", "check")],  # one replaced
])
def test_a_summary_recorded_before_the_claims_changed_says_so(records, tmp_path, now):
    table = recorded(records, tmp_path, [("s.a", "finding"), ("s.b", "finding"), ("s.c", "check")])
    text = records.expected_summary(table, now)
    assert "before the claims last changed" in text and "The findings it fails" not in text
    kinds = [k for _, k in now]
    assert f"(they are now {kinds.count('finding')} findings, 0 demonstrations, " \
           f"{kinds.count('check')} checks)" in text


def test_without_a_recorded_run_the_readme_says_what_to_do(records):
    text = records.expected_summary(records.read(records.RECORDS).iloc[0:0], [("s.a", "finding")])
    assert text.startswith("No default run of the current claims (1 findings, 0 demonstrations, 0 checks)")
    assert "`make record`" in text


def test_make_readme_rewrites_a_stale_readme_and_the_check_fails_until_then(records, tmp_path,
                                                                              monkeypatch):
    readme, original = tmp_path / "README.md", records.README.read_text()
    readme.write_text(original.replace(
        "<!-- record:clone.make_s -->", "<!-- record:clone.make_s -->1 s", 1))
    monkeypatch.setattr(records, "README", readme)
    assert records.main(["readme"]) == 1
    assert records.main(["readme", "--write"]) == 0
    assert records.main(["readme"]) == 0
    assert readme.read_text() == records.filled(original, records.read(), list(STAGES), CLAIMS)


def test_the_clone_counts_every_test_pytest_ran(root, monkeypatch):
    monkeypatch.syspath_prepend(str(root / "benchmarks"))
    from fresh_clone import tests_run

    output = "....\n= 2857 passed, 3 skipped, 1 xfailed, 12 warnings in 366.10s (0:06:06) =\n"
    assert tests_run(output) == 2861
