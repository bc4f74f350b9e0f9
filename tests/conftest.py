"""Shared fixtures: the repository root and the workflow package on sys.path."""

import os
import sys
from pathlib import Path

import pytest
from hypothesis import settings

# CI (which sets CI=true) replays the same examples every run, so a red build is reproducible and
# never a matter of luck; local runs keep exploring new examples.
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

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
