"""The memorization stage's cost model and progress lines
(expressivity.experiments.memorization.cost)."""

import logging

import pytest

from expressivity.experiments.memorization.cost import (
    progress_tracker,
    search_cost,
    theory_cost,
)


def test_cost_model_grows_with_the_work_and_flags_absurd_configs():
    small_job = search_cost(V=16, d=4, n=[3], N=[30], n_grid=64)
    big_job = search_cost(V=16, d=4, n=[6], N=[1000], n_grid=64)
    assert big_job[0] > 10 * small_job[0] and big_job[1] > small_job[1]
    # N above C(|V|, n) is skipped by the job, so it costs nothing
    assert search_cost(V=4, d=2, n=[3], N=[30], n_grid=64)[0] == 0
    huge = search_cost(V=4096, d=256, n=[64], N=[100000], n_grid=4096)
    assert huge[0] > 86400 and huge[1] > 2**40  # more than a day and a TiB: visible in the plan
    near = dict(V=6, d=3, n=[3], N_max=1000, r_min=1.0, r_max=2.0, eps=1.0)
    assert theory_cost(**near, max_digits=60000)[0] > theory_cost(**near, max_digits=100)[0]
    with pytest.raises(ValueError, match="n_grid must be an integer >= 1"):
        search_cost(V=16, d=4, n=[3], N=[30], n_grid=0)


def test_progress_lines_have_the_remaining_time(caplog):
    log = logging.getLogger("test_memorizer")
    done = progress_tracker(log, "work", [1.0, 1.0, 2.0])
    with caplog.at_level(logging.INFO, logger="test_memorizer"):
        for i in range(3):
            done(i, n=i)
    assert caplog.records and all("remaining" in r.getMessage() for r in caplog.records)
    assert "4/4 (100%)" in caplog.records[-1].getMessage()
    progress_tracker(None, "work", [1.0])(0)  # no log: silent
