"""The Boltzmann-operator jobs (expressivity.experiments.hardmax_vs_softmax.boltzmann): every
property on random vectors, chunks, the limit curves, cost and progress."""



import pytest
from cases import HVS_BOLTZMANN, HVS_CURVES

from expressivity.experiments.hardmax_vs_softmax.boltzmann import (
    CURVE_SIZES,
    check_chunk,
    check_vectors,
    chunk_cost,
    limit_curves,
)


def test_all_properties_hold_on_random_vectors():
    rows = check_vectors(**HVS_BOLTZMANN)
    assert [r["vector"] for r in rows] == list(range(HVS_BOLTZMANN["first"], HVS_BOLTZMANN["last"]))
    for r in rows:
        assert r["upper_margin"] >= 0 and r["lower_margin"] >= 0 and r["limit_margin"] >= 0
        assert r["append_margin"] > 0
        assert r["rank1_abs_error"] <= r["rank1_tolerance"]
        assert r["precision"] == "float64" or r["precision"].startswith("arb-")


def test_rows_do_not_depend_on_chunking():
    keys = {k: v for k, v in HVS_BOLTZMANN.items() if k not in ("first", "last")}
    whole = check_vectors(**{**HVS_BOLTZMANN, "last": 20})
    parts = [row for chunk in range(3)
             for row in check_chunk(chunk=chunk, n_chunks=3, n_vectors=20, **keys)]
    assert whole == parts


def test_limit_curves_stay_between_the_bounds():
    rows = limit_curves(**HVS_CURVES)
    assert len(rows) == len(CURVE_SIZES) * HVS_CURVES["example_betas"]
    for row in rows:
        assert row["lower_bound"] - 1e-9 <= row["boltz_over_beta"] <= row["max"] + 1e-9


def test_chunk_ranges_and_costs():
    keys = {k: v for k, v in HVS_BOLTZMANN.items() if k not in ("first", "last")}
    with pytest.raises(ValueError, match="n_chunks"):
        check_chunk(chunk=3, n_chunks=3, n_vectors=20, **keys)
    small = chunk_cost(n_chunks=4, n_vectors=1000, size_max=64, scale_max=1e3, arb_dps=80)
    large = chunk_cost(n_chunks=4, n_vectors=100000, size_max=256, scale_max=1e3, arb_dps=80)
    assert large[1] > small[1] and large[0] > 100 * small[0]


def test_long_loops_report_progress_with_the_remaining_time(caplog):
    import logging

    log = logging.getLogger("test.boltzmann")
    with caplog.at_level(logging.INFO, logger="test.boltzmann"):
        check_vectors(**{**HVS_BOLTZMANN, "last": 20}, log=log)
    lines = [r.getMessage() for r in caplog.records]
    assert any(line.startswith("Boltzmann vectors: 20/20 (100%)") and "remaining" in line
               for line in lines)
