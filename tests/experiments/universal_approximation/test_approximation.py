"""The end-to-end approximation job
(expressivity.experiments.universal_approximation.approximation): errors against delta for Yun et
al.'s and Kajitsuka & Sato's routes at the sizes of config/ci.yaml."""

import math

import numpy as np
import pytest
from cases import UA_APPROXIMATION, UA_APPROXIMATION_SERIES

from expressivity.experiments.universal_approximation.approximation import approximation_table

#: The first series of ci.yaml: its d, n and 1/delta.
SERIES = UA_APPROXIMATION_SERIES[0]


def test_error_falls_and_routes_compare():
    rows = approximation_table(target="softmax_average", **SERIES, **UA_APPROXIMATION)
    for route in ("yun", "kajitsuka_sato"):
        e = [r["L1"] for r in rows if r["route"] == route and r["status"] == "computed"]
        assert e[0] > e[1] > e[2]
    ks = [r for r in rows if r["route"] == "kajitsuka_sato" and r["status"] == "computed"]
    assert all(r["layers_total"] == 3 for r in ks)
    # the FFN is built within memorization_budget, the certificate runs to certificate_budget
    built = [r for r in ks if math.isfinite(r["memorization_residual"])]
    assert built and len(built) < len(ks)
    assert all(r["memorization_residual"] <= r["residual_bound"] for r in built)
    assert all(r["undecided_gaps"] == 0 and r["min_separation"] > 0 for r in ks)
    yun = [r for r in rows if r["route"] == "yun" and r["status"] == "computed"]
    # at equal delta the deep route is compared with the three-layer one
    assert all(r["layers_over_ks"] > 1 and r["L1_over_ks"] > 1 for r in yun
               if r["inv_delta"] <= 16)
    skipped = [r for r in rows if r["status"] != "computed"]
    assert skipped and all(r["route"] == "kajitsuka_sato" and "over the budget" in r["status"]
                           for r in skipped)


def test_positional_and_sparse_routes_run_at_every_delta():
    """Yun et al.'s positional route and its sparse variants build no table: every 1/delta of the
    series is computed (ci.yaml's reaches 32^3 grid inputs at n = 3, far over its grid_budget), the
    error falls, and a sparse pattern's contextual mapping gives the dense one's outputs with
    fewer connections per layer."""
    rows = approximation_table(target="weighted_shift", **SERIES, **UA_APPROXIMATION)
    by_route = {}
    for r in rows:
        assert r["status"] == "computed" and r["property4_violations"] == 0
        assert r["layers_ff_value"] == r["n"] * r["table_size"] == r["n"] * r["inv_delta"] ** (
            r["n"] * r["d"])
        by_route.setdefault(r["route"], []).append(r)
    assert set(by_route) == {"yun_positional"} | {f"yun_sparse_{p}" for p in
                                                  UA_APPROXIMATION["sparse_patterns"]}
    dense = by_route.pop("yun_positional")
    assert [r["inv_delta"] for r in dense] == SERIES["inv_delta"]
    assert dense[0]["L1"] > dense[len(dense) // 2]["L1"] > dense[-1]["L1"]
    for sparse in by_route.values():
        assert [r["L1"] for r in sparse] == [r["L1"] for r in dense]
        assert all(s["connections_per_layer"] < r["connections_per_layer"]
                   for s, r in zip(sparse, dense, strict=True))


def test_repeated_fraction_estimates_the_measure():
    rows = approximation_table(target="sin_mean", **{**SERIES, **UA_APPROXIMATION,
                                                            "inv_delta": [4, 8]})
    for r in rows:
        se = np.sqrt(r["repeated_measure"] * (1 - r["repeated_measure"]) / r["samples"])
        assert abs(r["repeated_fraction"] - r["repeated_measure"]) < 5 * se


def test_approximation_job_settings_are_refused_naming_them():
    with pytest.raises(ValueError, match="memorization_budget must be"):
        approximation_table(target="sin_mean", **{**SERIES, **UA_APPROXIMATION,
                                                        "memorization_budget": 0})



@pytest.mark.parametrize("change, named", [({"inv_delta": []}, "inv_delta"),
                                           ({"certificate_budget": math.nan},
                                            "certificate_budget"),
                                           ({"samples": math.nan}, "samples")])
def test_bad_settings_are_refused_naming_them(change, named):
    """Before any work, a ``ValueError`` (or ``TypeError``) whose message names the setting."""
    with pytest.raises((ValueError, TypeError)) as err:
        approximation_table(target="sin_mean", **{**SERIES, **UA_APPROXIMATION, **change})
    assert named in str(err.value), str(err.value)
