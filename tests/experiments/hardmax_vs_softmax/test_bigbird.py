"""The BigBird job (expressivity.experiments.hardmax_vs_softmax.bigbird): hardmax exact, softmax
accuracy against beta, the smallest working beta and the two sufficient bounds per instance, its
settings and cost."""

import math

import pandas as pd
import pytest
from cases import HVS_BIGBIRD, HVS_BIGBIRD_N

from expressivity.experiments.hardmax_vs_softmax.bigbird import (
    START_SECONDS,
    bigbird_cost,
    bigbird_table,
    smallest_working_beta,
)


def test_smallest_working_beta_reads_the_last_failure():
    assert smallest_working_beta({1.0: 0.5, 2.0: 1.0, 3.0: 0.9, 4.0: 1.0, 5.0: 1.0}) == (4.0, 3.0)
    emp, fail = smallest_working_beta({1.0: 1.0, 2.0: 1.0})
    assert emp == 1.0 and math.isnan(fail)
    emp, fail = smallest_working_beta({1.0: 0.2, 2.0: 0.9})
    assert math.isnan(emp) and fail == 2.0


def test_bigbird_job_rows():
    n = min(HVS_BIGBIRD_N)
    rows = bigbird_table(n=n, **HVS_BIGBIRD)
    hard = [r for r in rows if r["sigma"] == "hardmax"]
    assert len(hard) == HVS_BIGBIRD["trials"] and all(r["accuracy"] == 1.0 for r in hard)
    assert all(r["d"] == math.ceil(math.log2(n)) ** 2 for r in rows)
    for trial in range(HVS_BIGBIRD["trials"]):
        soft = [r for r in rows if r["trial"] == trial and r["sigma"] == "softmax"]
        emp = soft[0]["beta_empirical"]
        assert emp <= soft[0]["beta_sharp"] <= soft[0]["beta_sufficient"] * 1.5
        assert all(r["accuracy"] == 1.0 for r in soft if r["beta"] >= emp)
        assert any(r["accuracy"] < 1.0 for r in soft if r["beta"] < emp)
        assert {r["kind"] for r in soft} == {"grid", "sufficient", "sharp", "bisection"}


@pytest.mark.parametrize("call, match", [
    (lambda: bigbird_table(n=16, **{**HVS_BIGBIRD, "beta_min": math.nan}), "beta_min"),
    (lambda: bigbird_table(n=2, **HVS_BIGBIRD), "n >= 4"),
])
def test_bad_job_settings_are_refused_by_name(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_cost_grows_like_n_squared_d():
    small, large = (bigbird_cost(n=n, trials=3, n_betas=25) for n in (1024, 8192))
    work = [cost[0] - START_SECONDS for cost in (small, large)]
    assert work[1] / work[0] == pytest.approx(64 * 169 / 100)
    assert large[1] > small[1]


def test_chunks_of_trials_give_the_unsplit_jobs_rows(tmp_path):
    """The workflow splits a point's trials into jobs (``chunked_jobs``): the chunks' tables,
    gathered as the gather rule does (workflow/scripts/concat_tables.py), are the bytes of the
    gathered table of one job of all the trials."""
    from expressivity.io import read_table, write_table

    def job(first, trials):
        path = tmp_path / f"t{first}-{first + trials - 1}.csv"
        rows = bigbird_table(n=min(HVS_BIGBIRD_N), **{**HVS_BIGBIRD, "first": first, "trials": trials})
        write_table(pd.DataFrame(rows), path)
        return path

    def gathered(parts, name):
        write_table(pd.concat([read_table(p) for p in parts], ignore_index=True), tmp_path / name)
        return (tmp_path / name).read_bytes()

    assert gathered([job(0, 1), job(1, 2)], "chunks.csv") == gathered([job(0, 3)], "whole.csv")
    with pytest.raises(ValueError, match="first >= 0"):
        bigbird_table(n=16, **{**HVS_BIGBIRD, "first": -1})
