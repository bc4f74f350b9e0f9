"""`make`'s install: torch's CPU wheel in a step of its own, found by pip's own configuration or
else at TORCH_INDEX; every other locked package from requirements.lock.

The fallback is tested offline against a local ``file://`` simple index holding a small stand-in
wheel (same name and version as the locked torch, its own hash). The public indexes are asked only
whether they serve the locked files (``pip install --dry-run --report``, nothing installed), and
those tests are skipped, with the reason, where the index cannot be reached."""

import base64
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import urllib.request
import zipfile
from pathlib import Path

import pytest

PUBLIC_INDEX = "https://pypi.org/simple/"
#: The Makefile's default TORCH_INDEX.
TORCH_INDEX = re.search(r"^TORCH_INDEX \?= (\S+)$", (Path(__file__).resolve().parents[2] / "Makefile")
                        .read_text(), re.M)[1].rstrip("/") + "/"


def locked(path: Path) -> dict[str, tuple[str, set[str]]]:
    """A hash-locked requirements file as ``{name: (version, {sha256, ...})}``."""
    entries, current = {}, None
    for line in path.read_text().splitlines():
        if match := re.match(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)", line):
            current = re.sub(r"[-_.]+", "-", match[1]).lower()
            entries[current] = (match[2], set())
        elif match := re.search(r"--hash=sha256:([0-9a-f]{64})", line):
            entries[current][1].add(match[1])
    return entries


def stand_in_wheel(folder: Path, name: str, version: str) -> Path:
    """A small pure-Python wheel called ``name`` ``version`` (a module that says what it is)."""
    tag = f"{name}-{version}"
    wheel = folder / f"{tag}-py3-none-any.whl"
    files = {
        f"{name}/__init__.py": f'"""A stand-in for the install test."""\n__version__ = "{version}"\n',
        f"{tag}.dist-info/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n",
        f"{tag}.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: test_install\nRoot-Is-Purelib: true\n"
                                  "Tag: py3-none-any\n",
    }
    record = []
    for path, text in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=")
        record.append(f"{path},sha256={digest.decode()},{len(text.encode())}")
    files[f"{tag}.dist-info/RECORD"] = "\n".join([*record, f"{tag}.dist-info/RECORD,,"]) + "\n"
    folder.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(wheel, "w") as archive:
        for path, text in files.items():
            archive.writestr(zipfile.ZipInfo(path, (2020, 1, 1, 0, 0, 0)), text)
    return wheel


def simple_index(root: Path, wheel: Path | None, name: str) -> str:
    """A PEP 503 simple index under ``root`` listing ``wheel`` (or nothing) for ``name``."""
    page = root / "simple" / name
    page.mkdir(parents=True)
    links = ""
    if wheel is not None:
        digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
        links = f'<a href="{wheel.as_uri().replace("+", "%2B")}#sha256={digest}">{wheel.name}</a>\n'
    (page / "index.html").write_text(f"<!DOCTYPE html><html><body>\n{links}</body></html>\n")
    return (root / "simple").as_uri() + "/"


@pytest.fixture(scope="module")
def fresh_venv(tmp_path_factory, root) -> Path:
    """A virtual environment made by the Makefile's own rule (copied by each test that installs)."""
    venv = tmp_path_factory.mktemp("install") / "venv"
    subprocess.run(["make", "--no-print-directory", "-f", str(root / "Makefile"), f"{venv}/bin/python",
                    f"VENV={venv}", f"PYTHON={sys.executable}"], check=True, capture_output=True)
    return venv


@pytest.fixture
def torch_setup(tmp_path, root, fresh_venv):
    """A stand-in for the locked torch wheel, a lock file holding its hash, a fresh venv, and pip
    settings under which pip's own configuration finds nothing (an empty local index, no config)."""
    shutil.copytree(fresh_venv, tmp_path / "venv", symlinks=True)
    name, (version, _) = next(iter(locked(root / "requirements-torch.lock").items()))
    wheel = stand_in_wheel(tmp_path / "wheels", name, version)
    lock = tmp_path / "torch.lock"
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    lock.write_text(f"{name}=={version} \\\n    --hash=sha256:{digest}\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    env.update(PIP_CONFIG_FILE=os.devnull, PIP_INDEX_URL=simple_index(tmp_path / "empty", None, name),
               PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_CACHE_DIR="1")
    return {"name": name, "version": version, "wheel": wheel, "lock": lock, "env": env,
            "venv": tmp_path / "venv", "tmp": tmp_path}


def make_torch(root, setup, torch_index: str, **env):
    """``make <venv>/.torch`` with the stand-in lock: torch's install step alone."""
    venv = setup["venv"]
    return subprocess.run(
        ["make", "--no-print-directory", "-f", str(root / "Makefile"), f"{venv}/.torch", f"VENV={venv}",
         f"PYTHON={sys.executable}", f"TORCH_LOCK={setup['lock']}", f"TORCH_INDEX={torch_index}"],
        cwd=setup["tmp"], env={**setup["env"], **env}, capture_output=True, text=True)


def installed_version(setup) -> str:
    return subprocess.run([str(setup["venv"] / "bin/python"), "-c",
                           f"import {setup['name']}; print({setup['name']}.__version__)"],
                          capture_output=True, text=True, check=True).stdout.strip()


def test_torch_comes_from_torch_index_when_pip_alone_does_not_find_it(root, torch_setup):
    index = simple_index(torch_setup["tmp"] / "torch_index", torch_setup["wheel"], torch_setup["name"])
    proc = make_torch(root, torch_setup, index)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"trying {index}" in proc.stdout
    assert installed_version(torch_setup) == torch_setup["version"]
    assert (torch_setup["venv"] / ".torch").is_file()


def test_torch_index_is_not_asked_when_pip_finds_the_locked_wheel(root, torch_setup):
    """As on a machine whose pip is configured with the wheel (a find-links folder, an index)."""
    proc = make_torch(root, torch_setup, "file:///nonexistent/simple/",
                      PIP_FIND_LINKS=str(torch_setup["wheel"].parent))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "trying" not in proc.stdout
    assert installed_version(torch_setup) == torch_setup["version"]


def test_a_wheel_with_another_hash_is_refused_with_a_message(root, torch_setup):
    """The index holds a file of the locked name and version whose bytes differ (as PyPI's CUDA
    build does for torch 2.13.0): pip's hash check refuses it and make says what to do."""
    other = stand_in_wheel(torch_setup["tmp"] / "other", torch_setup["name"], torch_setup["version"])
    with zipfile.ZipFile(other, "a") as archive:
        archive.writestr("extra.txt", "different bytes\n")
    index = simple_index(torch_setup["tmp"] / "torch_index", other, torch_setup["name"])
    proc = make_torch(root, torch_setup, index)
    assert proc.returncode != 0
    assert f"found neither by pip's configuration nor at TORCH_INDEX={index}" in proc.stderr
    assert "PIP_FIND_LINKS=<folder> make" in proc.stderr
    assert "hash" in (torch_setup["venv"] / "torch-install.log").read_text().lower()
    assert not (torch_setup["venv"] / ".torch").exists()


def test_the_main_lock_leaves_torch_to_its_own_step(root):
    main, torch = locked(root / "requirements.lock"), locked(root / "requirements-torch.lock")
    assert list(torch) == ["torch"] and "torch" not in main
    version, hashes = torch["torch"]
    assert version.endswith("+cpu") and len(hashes) == 1, "the lock names the CPU build's one file"


def reachable(url: str) -> str | None:
    """``None`` when ``url`` answers within 10 s, else why not."""
    try:
        with urllib.request.urlopen(url, timeout=10):
            return None
    except OSError as err:
        return f"{url} cannot be reached from here ({err})"


def dry_run_report(tmp_path, requirements: Path, *index: str) -> dict[str, tuple[str, str]]:
    """``{name: (version, sha256)}`` of the files pip would install from ``requirements`` on a
    machine configured with nothing but ``index`` (``--isolated``: no config file, no PIP_*)."""
    report = tmp_path / f"{requirements.stem}.json"
    proc = subprocess.run([sys.executable, "-m", "pip", "install", "--isolated", "--dry-run",
                           "--ignore-installed", "--no-deps", "--quiet", "--report", str(report),
                           *index, "-r", str(requirements)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    found = {}
    for item in json.loads(report.read_text())["install"]:
        archive = item["download_info"].get("archive_info", {})
        digest = archive.get("hashes", {}).get("sha256") or archive.get("hash", "=").split("=", 1)[1]
        name = re.sub(r"[-_.]+", "-", item["metadata"]["name"]).lower()
        found[name] = (item["metadata"]["version"], digest)
    return found


@pytest.mark.network
def test_the_public_index_serves_every_other_locked_file(root, tmp_path):
    """What `make` installs on a machine whose pip knows only PyPI: every package of
    requirements.lock resolves there to a file whose hash the lock holds."""
    if why := reachable(PUBLIC_INDEX):
        pytest.skip(why)
    lock = locked(root / "requirements.lock")
    found = dry_run_report(tmp_path, root / "requirements.lock")
    assert set(found) == set(lock)
    for name, (version, digest) in found.items():
        assert version == lock[name][0], name
        assert digest in lock[name][1], f"{name}: PyPI's file has sha256 {digest}, not in the lock"


@pytest.mark.network
def test_torch_index_serves_the_locked_torch_wheel(root, tmp_path):
    if why := reachable(TORCH_INDEX + "torch/"):
        pytest.skip(why)
    (version, hashes), = locked(root / "requirements-torch.lock").values()
    found = dry_run_report(tmp_path, root / "requirements-torch.lock", "--index-url", TORCH_INDEX)
    assert found["torch"][0] == version and found["torch"][1] in hashes


def test_a_python_other_than_3_11_is_refused_before_a_venv_is_made(root, tmp_path):
    fake = tmp_path / "python3.12"
    fake.write_text('#!/bin/sh\n[ "$1" = "-V" ] && echo "Python 3.12.1"\nexit 1\n')
    fake.chmod(0o755)
    venv = tmp_path / "venv"
    proc = subprocess.run(["make", "--no-print-directory", "-f", str(root / "Makefile"), f"{venv}/bin/python",
                           f"VENV={venv}", f"PYTHON={fake}"], capture_output=True, text=True)
    assert proc.returncode != 0
    assert "resolved for CPython 3.11" in proc.stderr and "is Python 3.12.1" in proc.stderr
    assert not venv.exists()
