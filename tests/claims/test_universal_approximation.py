"""Each universal-approximation claim at small scale, from tables computed here."""

import pandas as pd
import pytest
from cases import (
    UA_APPROXIMATION,
    UA_APPROXIMATION_D,
    UA_LEMMA6,
    UA_LEMMA6_GRIDS,
    UA_PATTERNS,
    UA_REGRESSION,
    UA_SPARSE_MAPPING,
    UA_STAIRCASE,
    UA_TARGETS,
)

from expressivity.claims import stage_claims
from expressivity.claims.universal_approximation import CLAIMS
from expressivity.contextual_mapping import contextual_properties
from expressivity.experiments.universal_approximation.approximation import approximation_table
from expressivity.experiments.universal_approximation.lemma6 import lemma6_check
from expressivity.experiments.universal_approximation.patterns import assumption_table, sparse_mapping_table
from expressivity.experiments.universal_approximation.polynomial import regression_table, staircase_table
from expressivity.quantization import grid_digits
from expressivity.selective_shift import dense_network, run_integer


@pytest.fixture(scope="module")
def tables():
    """The stage's tables on the cases of config/ci.yaml (Lemma 6 also on two d = 1 grids)."""
    rows, curves = [], []
    for m, d, n in [(2, 1, 2), (3, 1, 3), *UA_LEMMA6_GRIDS]:
        r, c = lemma6_check(m=m, d=d, n=n, **UA_LEMMA6)
        rows.append(r)
        curves += c
    approx = [r for name in UA_TARGETS for d in UA_APPROXIMATION_D
              for r in approximation_table(target=name, d=d, **UA_APPROXIMATION)]
    return {
        "lemma6": pd.DataFrame(rows),
        "lemma6_softmax": pd.DataFrame(curves),
        "approximation": pd.DataFrame(approx),
        "patterns": pd.DataFrame(assumption_table(**UA_PATTERNS)),
        "sparse_mapping": pd.DataFrame(sparse_mapping_table(**UA_SPARSE_MAPPING)),
        "polynomial_staircase": pd.DataFrame(staircase_table(**UA_STAIRCASE)),
        "polynomial_regression": pd.DataFrame(regression_table(**UA_REGRESSION)),
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


def _claim(name):
    return next(c for c in CLAIMS if c.id == f"universal_approximation.{name}")


def test_collisions_at_a_hot_softmax_fail_the_softmax_claim(tables):
    """Built to fail: the errors of a too hot softmax (the curve's first beta) as if at the
    derived beta."""
    curve = tables["lemma6_softmax"]
    first = curve.groupby(["inv_delta", "d", "n"]).head(1).set_index(["inv_delta", "d", "n"])
    bad = tables["lemma6"].copy()
    key = list(zip(bad["inv_delta"], bad["d"], bad["n"], strict=True))
    bad["error_at_derived"] = [first.loc[k, "max_abs_error"] for k in key]
    assert (bad["error_at_derived"] >= bad["margin"]).any()
    assert _claim("lemma6_softmax").judge({**tables, "lemma6": bad})["status"] == "fail"


def test_a_flat_error_fails_the_falls_claim(tables):
    """Built to fail: every delta given the error of the coarsest one."""
    df = tables["approximation"].copy()
    first = df.groupby(["d", "target", "route"])[["L1", "L2"]].transform("first")
    df[["L1", "L2"]] = first
    assert _claim("error_falls_with_delta").judge({**tables, "approximation": df})["status"] \
        == "fail"


def test_a_wrong_rate_fails_the_rate_claim(tables):
    """Built to fail: Yun et al.'s L^2 error at d = 1 made to fall like delta (the rate without
    the exceptional set, which the derived slope 1/2 rules out)."""
    df = tables["approximation"].copy()
    yun = (df["route"] == "yun") & (df["d"] == 1) & (df["status"] == "computed")
    df.loc[yun, "L2"] = df.loc[yun, "delta"] * 3.0
    assert _claim("error_rate_derived").judge({**tables, "approximation": df})["status"] \
        == "fail"


def test_a_deeper_route_that_wins_fails_the_depth_claim(tables):
    """Built to fail: Yun et al.'s errors halved below the three-layer route's."""
    df = tables["approximation"].copy()
    df[["L1_over_ks", "L2_over_ks"]] = 0.5
    assert _claim("depth_at_equal_delta").judge({**tables, "approximation": df})["status"] \
        == "fail"
