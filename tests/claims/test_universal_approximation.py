"""Each universal-approximation claim at small scale, from tables computed here."""

import numpy as np
import pandas as pd
import pytest

from expressivity.claims import stage_claims
from expressivity.claims.universal_approximation import CLAIMS
from expressivity.contextual_shift import (
    contextual_properties,
    dense_network,
    lemma6_check,
    run_integer,
    sparse_mapping_check,
)
from expressivity.polynomial import regression_table, staircase_table
from expressivity.quantization import grid_digits
from expressivity.sparse_patterns import PATTERNS, assumption_table, pattern_masks
from expressivity.universal import approximation_table, sample

BETAS = [4.0 * 2**k for k in range(10)]


@pytest.fixture(scope="module")
def tables():
    rows, curves = [], []
    for m, d, n in [(2, 1, 2), (3, 1, 3), (2, 2, 2), (3, 2, 2)]:
        r, c = lemma6_check(m, d, n, 10**4, BETAS, 1e-9, 256)
        rows.append(r)
        curves += c
    X = sample(np.random.default_rng(0), 300, 3, 1)
    approx = []
    for name in ("sin_mean", "softmax_average", "weighted_shift"):
        approx += approximation_table(name, [2, 4, 8], X, 1.0, 10**4,
                                      np.random.default_rng(1), 30)
    rng = np.random.default_rng(2)
    patterns = [r for n in (16, 64, 256) for r in assumption_table(n, PATTERNS, rng)]
    sparse = [r for name in ("fixed", "window", "star")
              for r in sparse_mapping_check(name, pattern_masks(name, 5), 2, 1, 5)]
    return {
        "lemma6": pd.DataFrame(rows),
        "lemma6_softmax": pd.DataFrame(curves),
        "approximation": pd.DataFrame(approx),
        "patterns": pd.DataFrame(patterns),
        "sparse_mapping": pd.DataFrame(sparse),
        "polynomial_staircase": pd.DataFrame(staircase_table(1, 3, 4, rng, 300)),
        "polynomial_regression": pd.DataFrame(regression_table(
            1, 2, [2, 1], [64, 256, 1024, 4096], 0.1, 8, rng, 300)),
    }


def test_registry_lists_every_claim():
    assert [c.id for c in stage_claims("universal_approximation")] == [c.id for c in CLAIMS]
    assert all(c.id.startswith("universal_approximation.") for c in CLAIMS)


@pytest.mark.parametrize("claim", CLAIMS, ids=lambda c: c.id.split(".")[1])
def test_claim_holds(claim, tables):
    row = claim.judge(tables)
    assert row["status"] == "pass", (row["measured"], row["note"])


def test_broken_contextual_mapping_fails_the_claim(tables):
    """Built to fail: a global shift window too small for the values breaks Lemma 6."""
    net = dense_network(3, 1, 3)
    net.layers[-1] = type(net.layers[-1])("select", 0, 2, 3**4)
    digits = grid_digits(3, 3, 1, 100)
    props = contextual_properties(net, digits, run_integer(net, digits))
    bad = tables["lemma6"].copy()
    for key, value in props.items():
        if key.endswith("violations"):
            bad.loc[0, key] = value
    claim = next(c for c in CLAIMS if c.id.endswith("lemma6_properties"))
    assert claim.judge({**tables, "lemma6": bad})["status"] == "fail"


def test_small_shift_factor_fails_the_sparse_claim(tables):
    """Built to fail: the pitfall rows (shift factor delta^-d) relabelled as the construction."""
    df = tables["sparse_mapping"]
    pit = df[df["shift"] == "delta_pow_minus_d"].assign(shift="code_range")
    claim = next(c for c in CLAIMS if c.id.endswith("sparse_contextual_mapping"))
    assert claim.judge({**tables, "sparse_mapping": pit})["status"] == "fail"


def test_too_few_blocks_fail_the_exactness_claim(tables):
    """Built to fail: cells with blocks < degree relabelled as exact."""
    df = tables["polynomial_staircase"]
    wrong = df.assign(blocks=df["degree"])
    claim = next(c for c in CLAIMS if c.id.endswith("polynomial_exact"))
    assert claim.judge({**tables, "polynomial_staircase": wrong})["status"] == "fail"
