"""The Theorem 1 job (expressivity.experiments.hardmax_vs_softmax.theorem1): random one-layer
attentions on the counterexample, the memorizer under random labellings, settings and cost."""

import math

import pytest
from cases import HVS_THEOREM1

from expressivity.experiments.hardmax_vs_softmax.theorem1 import (
    memorizer_table,
    search_cost,
    theorem1_tables,
)


def test_search_rows_and_memorizer_tables():
    tables = theorem1_tables(**{**HVS_THEOREM1, "n_draws": 12, "exact_draws": 6})
    search = tables["search"]
    assert [r["draw"] for r in search] == list(range(12))
    assert all(r["hardmax_equal_exact"] for r in search[:6])
    assert all(r["hardmax_equal_exact"] is None for r in search[6:])
    for r in search:
        assert r["gap_hardmax"] <= r["bound_hardmax"]
        if r["weight_scale"] > 0:
            assert math.isfinite(r["log10_gap_softmax"])
    memo = tables["memorizer"]
    assert len(memo) == HVS_THEOREM1["labellings"]
    for r in memo:
        labels = [int(y) for y in r["labels"].split()]
        assert sorted(labels) == list(range(8))  # a permutation: all labels distinct
        assert r["n_correct"] == r["n_points"] == 8


def test_labellings_are_drawn_from_the_seed():
    one = memorizer_table(seed=1, d=3, lam=1.0, labellings=3)
    assert one == memorizer_table(seed=1, d=3, lam=1.0, labellings=3)
    assert [r["labels"] for r in one] != [r["labels"] for r in
                                          memorizer_table(seed=2, d=3, lam=1.0, labellings=3)]


@pytest.mark.parametrize("call, match", [
    (lambda: memorizer_table(seed=1, d=3, lam=1.0, labellings=0), "labellings"),
    (lambda: theorem1_tables(**{**HVS_THEOREM1, "n_draws": 2, "exact_draws": 3}), "exact_draws"),
])
def test_bad_job_settings_are_refused_by_name(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_search_cost_grows_with_the_draws():
    small = search_cost(n_draws=100, exact_draws=100, heads_max=5, head_size_max=3, labellings=4)
    large = search_cost(n_draws=10**5, exact_draws=10**4, heads_max=5, head_size_max=3,
                        labellings=200)
    assert large[1] > small[1] and large[0] > 100 * small[0]
