"""The sparse-pattern jobs (expressivity.experiments.universal_approximation.patterns): Assumption 1
and connections per pattern, the sparse contextual mapping."""

from __future__ import annotations

import math

import pytest
from cases import UA_PATTERNS, UA_SPARSE_MAPPING

from expressivity.experiments.universal_approximation.patterns import (
    assumption_table,
    sparse_mapping_check,
    sparse_mapping_table,
)
from expressivity.sparse_patterns import pattern_masks


def test_sparse_pitfall():
    rows = sparse_mapping_check("window", pattern_masks("window", 5), 2, 1, 5)
    by = {r["shift"]: r["repeated_values"] for r in rows}
    assert by["code_range"] == 0 and by["delta_pow_minus_d"] > 0


def test_connections_over_the_layers_needed():
    """The window needs s = n - 1 layers, so its connections over them grow like n^2."""
    rows = {(r["pattern"], r["n"]): r
            for r in assumption_table(n=[16, 64], names=["window", "star", "dense"], seed=0)}
    for n in (16, 64):
        assert rows[("window", n)]["s"] == n - 1
        assert rows[("window", n)]["connections_reach"] == (n - 1) * (3 * n - 2)
        assert rows[("star", n)]["connections_reach"] == 2 * rows[("star", n)]["connections_max"]
        assert rows[("dense", n)]["connections_reach"] == n * n



@pytest.mark.parametrize("function, settings, change, named", [
    (assumption_table, UA_PATTERNS, {"n": []}, "n"),
    (assumption_table, UA_PATTERNS, {"names": []}, "names"),
    (sparse_mapping_table, UA_SPARSE_MAPPING, {"grid_budget": math.nan}, "grid_budget"),
    (sparse_mapping_table, UA_SPARSE_MAPPING, {"grid_budget": 2}, "grid_budget"),
])
def test_bad_settings_are_refused_naming_them(function, settings, change, named):
    """Before any work, a ``ValueError`` (or ``TypeError``) whose message names the setting."""
    with pytest.raises((ValueError, TypeError)) as err:
        function(**{**settings, **change})
    assert named in str(err.value), str(err.value)
