"""Small cases shared by the unit tests, the claims tests and the benchmarks.

Every case is taken from ``config/ci.yaml`` (the smoke-scale config the workflow tests run), so a
test, a benchmark and a workflow job exercise the same instances; a test that needs a different
size says so next to the case. One block per stage, each maintained with that stage's code.
"""

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
#: config/ci.yaml as written (sections keyed by stage).
CI = yaml.safe_load((ROOT / "config/ci.yaml").read_text())
SEED = CI["seed"]


def section(stage: str) -> dict:
    """The ``config/ci.yaml`` section of one stage."""
    return CI[stage]


# ---- hardmax_vs_softmax ----

# ---- memorization ----

# ---- sparse_approximation ----

# ---- universal_approximation ----

# ---- trained_models ----
