"""Shared fixtures: the repository root and the workflow package on sys.path."""

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "workflow"))
sys.path.insert(0, str(ROOT / "tests"))


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT
