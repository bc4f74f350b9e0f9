"""Fang et al.'s polynomial-block jobs (expressivity.experiments.universal_approximation.polynomial):
their settings are checked before any work (the rows are checked by the stage's claims tests)."""

import math

import pytest
from cases import UA_REGRESSION, UA_STAIRCASE

from expressivity.experiments.universal_approximation.polynomial import (
    regression_table,
    staircase_table,
)

#: The jobs' functions and the keywords ci.yaml gives them.
JOBS = {"staircase": (staircase_table, UA_STAIRCASE), "regression": (regression_table, UA_REGRESSION)}
CASES = [("staircase", {"d": []}, "d"), ("staircase", {"max_blocks": 0}, "max_blocks"),
         ("staircase", {"n_test": math.nan}, "n_test"), ("regression", {"sigma": math.nan}, "sigma"),
         ("regression", {"repeats": 0}, "repeats"), ("regression", {"n_train": []}, "n_train"),
         ("regression", {"degree": 1}, "degree")]


@pytest.mark.parametrize("job, change, named", CASES,
                         ids=[f"{job}-{next(iter(change))}" for job, change, _ in CASES])
def test_bad_settings_are_refused_naming_them(job, change, named):
    """Before any work, a ``ValueError`` (or ``TypeError``) whose message names the setting."""
    function, settings = JOBS[job]
    with pytest.raises((ValueError, TypeError)) as err:
        function(**{**settings, **change})
    assert named in str(err.value), str(err.value)


def test_staircase_rows_cover_every_dimension_blocks_and_degree():
    rows = staircase_table(**UA_STAIRCASE)
    cells = {(r["d"], r["blocks"], r["degree"]) for r in rows}
    assert len(rows) == len(cells) == len(UA_STAIRCASE["d"]) * UA_STAIRCASE["max_blocks"] \
        * UA_STAIRCASE["max_degree"]
