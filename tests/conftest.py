"""Shared fixtures: the repository root and the workflow package on sys.path."""

import os
import sys
from pathlib import Path

import pytest

# One BLAS thread: on a 2-core machine the tests' many small products run up to 20x slower with
# several threads fighting for the cores (set before numpy is imported).
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "workflow"))
sys.path.insert(0, str(ROOT / "tests"))


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT
