"""Releases and the citation file (workflow/release.py): CITATION.cff kept equal to the registry's
papers and the version, and `make release` in a throwaway repository: every refusal before any
change, and a release's commit, CHANGELOG entry, bundle and tag."""

import hashlib
import json
import shutil
import subprocess

import pytest
import yaml

import bundle
import release
from expressivity.claims import PAPERS, STAGES


def test_citation_file_is_current(root):
    assert (root / "CITATION.cff").read_text() == release.citation(root), (
        "CITATION.cff is stale: run `make readme`")


def test_citation_file_lists_every_paper_with_its_arxiv_id(root):
    cff = yaml.safe_load((root / "CITATION.cff").read_text())
    assert {"cff-version", "message", "title", "authors", "version"} <= set(cff)
    assert cff["version"] == release.version(root)
    refs = cff["references"]
    assert [r["notes"].split(";")[0] for r in refs] == [f"key {key}" for key in PAPERS]
    for ref, paper in zip(refs, PAPERS.values(), strict=True):
        assert {"type", "title", "authors", "year"} <= set(ref) and ref["authors"]
        assert ref["identifiers"][0]["value"] == f"https://arxiv.org/abs/{paper.arxiv}"


SUMMARY = "Findings: 1/2 passed, 1 failed, 0 not evaluated; demonstrations: ...; checks: ..."


def git(repo, *args):
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True,
                          text=True).stdout.strip()


@pytest.fixture
def repo(root, tmp_path):
    """A repository with the project's release files and a finished full default run."""
    repo = tmp_path / "repo"
    for name in ("pyproject.toml", "CHANGELOG.md", "CITATION.cff", "requirements.lock",
                 "requirements-torch.lock", "config/config.yaml"):
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(root / name, repo / name)
    (repo / ".gitignore").write_text("results/\ndist/\n")
    (repo / "results/run").mkdir(parents=True)
    (repo / "results/claims.csv").write_text("id,status\na,pass\nb,fail\n")
    (repo / "results/report.html").write_text("<html></html>\n")
    sha = hashlib.sha256((repo / "config/config.yaml").read_bytes()).hexdigest()
    (repo / "results/run/summary.json").write_text(json.dumps({
        "summary": SUMMARY, "stages": list(STAGES), "configfiles": ["config/config.yaml"],
        "config_sha256": [sha], "papers": {"fang2022": f"Fang et al. 2022 (4 claims): {SUMMARY}"}}))
    git(repo, "init", "--quiet")
    git(repo, "config", "user.email", "test@example.org")
    git(repo, "config", "user.name", "test")
    git(repo, "add", "-A")
    git(repo, "commit", "--quiet", "-m", "start")
    return repo


def test_a_release_commits_its_changelog_entry_bundles_and_tags(repo):
    unreleased = (repo / "CHANGELOG.md").read_text().split("## Unreleased", 1)[1].strip()
    archive = release.release(repo, "9.1.0", today="2031-02-03", up_to_date=lambda root: None)
    log = (repo / "CHANGELOG.md").read_text()
    assert "## Unreleased\n\n## [9.1.0] - 2031-02-03\n\n" + unreleased in log
    notes = release.notes(repo, "9.1.0")
    assert notes.startswith(unreleased) and f"- {SUMMARY}\n" in notes and "  - Fang et al. 2022" in notes
    assert release.version(repo) == "9.1.0"
    cff = yaml.safe_load((repo / "CITATION.cff").read_text())
    assert cff["version"] == "9.1.0" and str(cff["date-released"]) == "2031-02-03"
    assert git(repo, "log", "-1", "--format=%s") == "Release 9.1.0"
    assert not git(repo, "status", "--porcelain", "--untracked-files=no")
    assert git(repo, "rev-list", "-n", "1", "v9.1.0") == git(repo, "rev-parse", "HEAD")
    assert SUMMARY in git(repo, "tag", "-l", "--format=%(contents)", "v9.1.0")
    assert archive == repo / "dist/expressivity-9.1.0.tar.gz" and not bundle.verify(archive)
    # the next release starts from an empty Unreleased section, which is refused
    git(repo, "tag", "--delete", "v9.1.0")
    with pytest.raises(release.ReleaseError, match="'## Unreleased' section is empty"):
        release.release(repo, "9.2.0", up_to_date=lambda root: None)


def dirty(repo):
    (repo / "pyproject.toml").write_text((repo / "pyproject.toml").read_text() + "\n")


def partial_run(repo):
    record = json.loads((repo / "results/run/summary.json").read_text())
    (repo / "results/run/summary.json").write_text(json.dumps({**record, "stages": list(STAGES[:1])}))


def edited_config(repo):
    with (repo / "config/config.yaml").open("a") as handle:
        handle.write("\n# edited after the run\n")
    git(repo, "commit", "--quiet", "-am", "edit the config")


def stale_run(root):
    raise release.ReleaseError("the default run is not complete or not current")


@pytest.mark.parametrize("version, damage, up_to_date, message", [
    ("1.2", None, None, "not MAJOR.MINOR.PATCH"),
    ("9.1.0", lambda repo: git(repo, "tag", "v9.1.0"), None, "the tag v9.1.0 exists already"),
    ("9.1.0", dirty, None, "uncommitted changes"),
    ("9.1.0", partial_run, None, "not config/config.yaml on every stage"),
    ("9.1.0", edited_config, None, "config/config.yaml changed since the last run"),
    ("9.1.0", lambda repo: (repo / "results/report.html").unlink(), None, "report.html is missing"),
    ("9.1.0", None, stale_run, "not complete or not current"),
])
def test_a_release_is_refused_before_any_change(repo, version, damage, up_to_date, message):
    if damage:
        damage(repo)
    before = {name: (repo / name).read_text() for name in ("CHANGELOG.md", "pyproject.toml")}
    head = git(repo, "rev-parse", "HEAD")
    with pytest.raises(release.ReleaseError, match=message):
        release.release(repo, version, up_to_date=up_to_date or (lambda root: None))
    assert {name: (repo / name).read_text() for name in before} == before
    assert git(repo, "rev-parse", "HEAD") == head and not (repo / "dist").exists()


def test_the_release_workflow_publishes_on_a_version_tag(root):
    flow = yaml.safe_load((root / ".github/workflows/release.yml").read_text())
    assert flow[True]["push"]["tags"] == ["v[0-9]+.[0-9]+.[0-9]+"]  # YAML 1.1 reads `on` as True
    steps = " ".join(str(step) for step in flow["jobs"]["publish"]["steps"])
    assert "make" in steps and "bundle.py build" in steps and "gh release create" in steps
    assert flow["permissions"] == {} and flow["jobs"]["publish"]["permissions"] == {"contents": "write"}
