"""`make artifacts`: the archive's manifest matches its files, and tampering is detected."""

import gzip
import hashlib
import io
import json
import shutil
import tarfile
from importlib import metadata

import pytest

import bundle


@pytest.fixture
def run_tree(tmp_path, root):
    for name in ("pyproject.toml", "requirements.lock", "config/ci.yaml"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(root / name, tmp_path / name)
    (tmp_path / "figures/s").mkdir(parents=True)
    (tmp_path / "figures/s/a.png").write_bytes(b"png")
    (tmp_path / "figures/s/a.pdf").write_bytes(b"pdf")
    (tmp_path / "results/s").mkdir(parents=True)
    (tmp_path / "results/s/t.csv").write_text("x\n1\n")
    (tmp_path / "results/benchmarks").mkdir()
    (tmp_path / "results/benchmarks/j.tsv").write_text("s\n1\n")
    (tmp_path / "results/benchmarks/j.csv").write_text("s\n1\n")
    (tmp_path / "results/benchmarks.csv").write_text("stage,seconds\ns,1\n")  # make bench
    (tmp_path / "results/claims.csv").write_text("id,status\na,pass\nb,fail\n")
    (tmp_path / "results/report.html").write_text("<html></html>")
    return tmp_path


def test_bundle_manifest_matches_files_and_is_deterministic(run_tree):
    first = bundle.build(run_tree, bundle.Path("config/ci.yaml"), run_tree / "dist")
    data = first.read_bytes()
    assert bundle.verify(first) == []
    again = bundle.build(run_tree, bundle.Path("config/ci.yaml"), run_tree / "dist")
    assert again.read_bytes() == data
    with tarfile.open(first, "r:gz") as tar:
        names = set(tar.getnames())
        info = json.load(tar.extractfile("MANIFEST.json"))
    assert names == {"MANIFEST.json", "figures/s/a.png", "figures/s/a.pdf", "results/s/t.csv",
                     "results/claims.csv", "results/report.html"}
    assert info["claims"] == {"total": 2, "passed": 1}
    assert info["config"] == (run_tree / "config/ci.yaml").read_text()
    assert "snakemake" in info["packages"] and "commit" in info


def test_manifest_names_every_installed_package_and_the_lock(run_tree):
    archive = bundle.build(run_tree, bundle.Path("config/ci.yaml"), run_tree / "dist")
    with tarfile.open(archive, "r:gz") as tar:
        info = json.load(tar.extractfile("MANIFEST.json"))
    installed = {bundle._normalise(d.metadata["Name"]) for d in metadata.distributions()}
    assert set(info["packages"]) == installed
    # dependencies of the pins are recorded too, not only the pins
    assert info["packages"]["numpy"] == metadata.version("numpy")
    assert info["packages"]["jsonschema-specifications"] == metadata.version("jsonschema-specifications")
    lock = (run_tree / "requirements.lock").read_bytes()
    assert info["lock"]["sha256"] == hashlib.sha256(lock).hexdigest()
    assert set(info["lock"]["differs"]) <= set(bundle.locked_versions(run_tree / "requirements.lock"))


def test_lock_record_reports_versions_that_differ(tmp_path):
    (tmp_path / "requirements.lock").write_text(
        "numpy==2.4.6 \\\n    --hash=sha256:" + "0" * 64 + "\n    # via x\n"
        "torch==2.13.0 \\\n    --hash=sha256:" + "1" * 64 + "\n"
        "Py_YAML==6.0.3 \\\n    --hash=sha256:" + "2" * 64 + "\n")
    record = bundle.lock_record(tmp_path, {"numpy": "2.4.5", "torch": "2.13.0+cpu", "py-yaml": "6.0.3"})
    assert record["differs"] == {"numpy": {"locked": "2.4.6", "installed": "2.4.5"}}
    assert record["sha256"] == hashlib.sha256((tmp_path / "requirements.lock").read_bytes()).hexdigest()
    assert bundle.lock_record(tmp_path / "nowhere", {})["sha256"] is None


def test_verify_detects_a_changed_file(run_tree, tmp_path):
    archive = bundle.build(run_tree, bundle.Path("config/ci.yaml"), run_tree / "dist")
    with tarfile.open(archive, "r:gz") as tar:
        members = [(m, tar.extractfile(m).read()) for m in tar.getmembers()]
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        for member, data in members:
            if member.name == "results/s/t.csv":
                data = b"x\n2\n"
            tar.addfile(member, io.BytesIO(data))
    forged = tmp_path / "forged.tar.gz"
    forged.write_bytes(gzip.compress(buffer.getvalue()))
    assert bundle.verify(forged) == ["results/s/t.csv: sha256 differs from the manifest"]


def test_incomplete_run_is_refused(run_tree):
    (run_tree / "results/report.html").unlink()
    with pytest.raises(SystemExit, match="report.html missing"):
        bundle.build(run_tree, bundle.Path("config/ci.yaml"), run_tree / "dist")


def test_compare_names_the_tables_that_differ_in_archives_and_checkouts(run_tree, tmp_path_factory):
    first = bundle.build(run_tree, bundle.Path("config/ci.yaml"), tmp_path_factory.mktemp("a"))
    (run_tree / "results/s/t.csv").write_text("x\n2\n")
    (run_tree / "results/s/u.csv").write_text("y\n1\n")
    (run_tree / "results/run").mkdir()
    (run_tree / "results/run/plan_vs_measured.csv").write_text("measured_s\n0.64\n")  # times
    outcome = bundle.compare(first, run_tree)
    assert outcome == {"identical": ["results/claims.csv"], "different": ["results/s/t.csv"],
                       "only_first": [], "only_second": ["results/s/u.csv"]}
    second = bundle.build(run_tree, bundle.Path("config/ci.yaml"), tmp_path_factory.mktemp("b"))
    assert bundle.compare(second, run_tree)["different"] == []
    assert bundle.compare(run_tree, second)["identical"] == ["results/claims.csv", "results/s/t.csv",
                                                             "results/s/u.csv"]
    with pytest.raises(SystemExit, match="neither a checkout nor a bundle archive"):
        bundle.compare(run_tree / "results/s/t.csv", run_tree)
    with pytest.raises(SystemExit, match="neither a checkout nor a bundle archive"):
        bundle.compare(run_tree, run_tree / "no-such-run")
