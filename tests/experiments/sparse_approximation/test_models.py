"""The growth models of d_min in n on the sweep's tables
(expressivity.experiments.sparse_approximation.models)."""

import pandas as pd
import pytest
from cases import SA_MODELS, SA_REFERENCE

from expressivity.experiments.sparse_approximation.models import models_tables
from expressivity.experiments.sparse_approximation.reference import reference_table


@pytest.fixture(scope="module")
def reference():
    return reference_table(**SA_REFERENCE)


def test_models_tables_describe_both_series(sweep, mass, reference):
    tables = models_tables(sweep=sweep, mass=mass, reference=reference, **SA_MODELS)
    assert set(tables) == {"out_of_sample", "model_comparison", "flatness", "local_slopes",
                           "crossover", "medians"}
    comp = tables["model_comparison"]
    assert set(comp["model"]) == {"log", "power", "log_power"}
    assert ((comp["mean_error_lo"] <= comp["mean_error"] + 1e-12)
            | (comp["mean_error"] <= comp["mean_error_hi"] + 1e-12)).all()
    assert set(tables["flatness"]["by"]) == {"exact rule", "ln n", "per-entry"}
    assert (tables["flatness"]["margin"] > 0).all()
    assert set(tables["medians"]["series"]) == {"per-entry", "mass-calibrated"}
    med = tables["medians"]
    assert (med["d_min_lo"] <= med["d_min"]).all() and (med["d_min"] <= med["d_min_hi"]).all()
    again = models_tables(sweep=sweep, mass=mass, reference=reference, **SA_MODELS)
    for name, table in tables.items():  # same inputs, same bytes
        pd.testing.assert_frame_equal(table, again[name])
