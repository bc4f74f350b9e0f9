"""How a point's trials (or cells) are split into jobs (expressivity.experiments.trial_chunks), as
the sweeps, BigBird and the trained blocks use it."""

import pytest

from expressivity.experiments import trial_chunks


def test_trial_chunks_fit_the_job_limit():
    assert trial_chunks(5, 10.0, 1.0) == [(0, 4)]
    assert trial_chunks(5, 1500.0, 1.0) == [(0, 0), (1, 2), (3, 4)]  # sizes 1, 2, 2
    assert trial_chunks(20, 3600 / 19, 1.0) == [(0, 9), (10, 19)]  # not 19 and 1
    assert trial_chunks(3, 10 * 3600.0, 1.0) == [(0, 0), (1, 1), (2, 2)]  # one trial a job
    with pytest.raises(ValueError):
        trial_chunks(0, 1.0, 1.0)
