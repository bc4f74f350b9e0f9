"""pyproject.toml, environment.yml and the lock (requirements.lock, and requirements-torch.lock for
torch's CPU build) pin the same versions; environment.yml names no path (Snakemake's `--sdm conda`
creates the environment from a copy elsewhere)."""

import re
import tomllib

import pytest
import yaml

PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([0-9][A-Za-z0-9.+!-]*)$")


def _name(name: str) -> str:
    """The normalised project name (PEP 503): case and runs of -_. do not matter."""
    return re.sub(r"[-_.]+", "-", name).lower()


def _pins(root) -> dict[str, str]:
    project = tomllib.loads((root / "pyproject.toml").read_text())["project"]
    pins = list(project["dependencies"])
    pins += [p for group in project["optional-dependencies"].values() for p in group]
    out = {}
    for pin in pins:
        match = PIN.match(pin)
        assert match, f"{pin} is not pinned exactly (name==version)"
        out[_name(match[1])] = match[2]
    return out


def _env_pip(root) -> list[str]:
    env = yaml.safe_load((root / "environment.yml").read_text())
    return next(d["pip"] for d in env["dependencies"] if isinstance(d, dict) and "pip" in d)


LOCKS = ("requirements.lock", "requirements-torch.lock")


def _lock(root, files=LOCKS) -> dict[str, tuple[str, list[str]]]:
    """The lock files as {name: (version, hashes)}."""
    entries, current = {}, None
    for line in (text for name in files for text in (root / name).read_text().splitlines()):
        if match := re.match(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)", line):
            current = _name(match[1])
            assert current not in entries, f"{current} is pinned twice in the lock"
            entries[current] = (match[2], [])
        elif match := re.search(r"--hash=sha256:([0-9a-f]{64})", line):
            entries[current][1].append(match[1])
        elif line.strip() and not line.lstrip().startswith("#"):
            pytest.fail(f"unexpected line in the lock: {line!r}")
    return entries


def test_environment_yml_mirrors_pyproject_pins(root):
    project = tomllib.loads((root / "pyproject.toml").read_text())["project"]
    env_pins = {}
    for entry in _env_pip(root):
        match = PIN.match(entry)
        assert match, f"environment.yml: {entry!r} is not name==version"
        env_pins[_name(match[1])] = match[2]
    assert env_pins == _pins(root)
    env = yaml.safe_load((root / "environment.yml").read_text())
    python = next(d for d in env["dependencies"] if isinstance(d, str) and d.startswith("python="))
    assert python.split("=")[1] >= project["requires-python"].lstrip(">=")


def test_environment_yml_names_no_path(root):
    """Snakemake creates the conda environment from a copy of environment.yml under
    .snakemake/conda/: a relative path (`-e .`, `./lib`, `-r requirements.lock`) would name the wrong
    folder there, so every entry must be a package name with a version."""
    env = yaml.safe_load((root / "environment.yml").read_text())
    entries = [d for d in env["dependencies"] if isinstance(d, str)] + _env_pip(root)
    for entry in entries:
        assert not entry.startswith(("-", ".", "/", "~", "file:")), f"environment.yml: {entry!r}"
        assert "/" not in entry and "\\" not in entry, f"environment.yml names a path: {entry!r}"


def test_lock_pins_every_direct_pin_with_its_version(root):
    lock = _lock(root)
    for name, version in _pins(root).items():
        assert name in lock, f"{name} is pinned in pyproject.toml, not in requirements.lock: run `make lock`"
        assert lock[name][0].split("+")[0] == version, (
            f"{name}: pyproject.toml pins {version}, the lock {lock[name][0]}: run `make lock`")


def test_lock_has_a_hash_for_every_package(root):
    lock = _lock(root)
    assert len(lock) > len(_pins(root)), "the lock should hold the dependencies too"
    for name, (version, hashes) in lock.items():
        assert hashes, f"requirements.lock: {name}=={version} has no hash"
        assert "+" not in version or name == "torch", f"{name}=={version} carries a local label"
    # pip, setuptools and wheel are locked too (--allow-unsafe): `make` installs nothing unlocked
    assert {"pip", "setuptools"} <= set(lock)


def test_make_installs_from_the_lock(root):
    makefile = (root / "Makefile").read_text()
    stamp = makefile.split("$(STAMP):", 1)[1].split("\n\n", 1)[0]
    assert "requirements.lock" in stamp.splitlines()[0], "the install stamp must depend on the lock"
    assert "$(TORCH_STAMP)" in stamp.splitlines()[0], "the install stamp must depend on torch's step"
    assert "-r requirements.lock" in stamp and "--no-deps" in stamp
    torch = makefile.split("$(TORCH_STAMP):", 1)[1].split("\n\n", 1)[0]
    assert "$(TORCH_LOCK)" in torch.splitlines()[0] and "-r $(TORCH_LOCK)" in torch
