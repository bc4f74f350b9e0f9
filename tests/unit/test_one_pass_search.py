"""Unit tests: the one-pass search for d_min against the reference searches, and its results."""

import math

import numpy as np
import pytest

from expressivity.approximation_check import logit_values
from expressivity.attention_mass import sample_rows
from expressivity.d_min_search import search_d_min
from expressivity.fixed_module import coupled_factors
from expressivity.one_pass_search import SearchResult, d_grid, one_pass_search, row_blocks
from expressivity.reference.sparse_approximation import binary_search, naive_search, slack_at
from expressivity.sparse_target import make_target

EPS_R, EPS_Z = 1.0, 0.1


def test_grid_prefix_property():
    g = d_grid(8, 500, 0.05, 8)
    assert np.array_equal(g, d_grid(8, 2000, 0.05, 8)[: len(g)]) and g[-1] <= 500


@pytest.mark.parametrize(("kind", "n", "k", "form", "seed"), [
    ("permutations", 48, 1, "row", 0), ("permutations", 64, 2, "row", 1),
    ("band", 40, 3, "row", 2), ("block", 50, 2, "column", 3), ("permutations", 33, 2, "column", 4),
])
def test_one_pass_search_equals_the_reference_searches(kind, n, k, form, seed):
    rng = np.random.default_rng(seed)
    T = make_target(kind, n, k, 4.0, rng)
    B = logit_values(T, EPS_R, EPS_Z)
    grid = d_grid(8, 1500, 0.05, 8)
    QT, KT = coupled_factors(T, B, rng, int(grid[-1]), form)
    fast = one_pass_search(T, QT, KT, grid, EPS_R, EPS_Z, block=7, B=B)
    slow = naive_search(T, QT, KT, grid, EPS_R, EPS_Z, block=16)
    assert fast.decided and slow.decided
    assert fast.d_min == slow.d_min and not math.isnan(fast.d_min)
    assert fast.d_stable == slow.d_stable
    assert np.array_equal(fast.row_first, slow.row_first)
    assert np.array_equal(fast.row_last_fail, slow.row_last_fail)
    assert np.allclose(fast.slack, slow.slack, atol=1e-9)
    # the tracked logit error agrees with a dense computation at the last grid point
    d = int(grid[-1])
    S = QT[:d].T @ KT[:d] / d
    assert fast.max_error[-1] == pytest.approx(np.abs(S - T.to_dense(B)).max(), rel=1e-9)
    assert slack_at(T, QT, KT, int(fast.d_min), EPS_R, EPS_Z).ok
    # bisection returns a working d; where success is monotone in d, it is d_min
    d_bin, probes = binary_search(T, QT, KT, grid, EPS_R, EPS_Z)
    assert slack_at(T, QT, KT, int(d_bin), EPS_R, EPS_Z).ok
    assert probes <= math.ceil(math.log2(len(grid))) + 1
    works = fast.slack >= 0
    if (np.diff(works.astype(int)) >= 0).all():
        assert d_bin == fast.d_min


def test_d_min_definition_with_non_monotone_success():
    res = SearchResult(grid=np.array([10, 20, 30, 40, 50]), slack=np.array([-1, 0.5, -0.2, 1, 2]),
                       row_first=np.zeros(1, int), row_last_fail=np.array([2]), rounding_tol=1e-12)
    assert res.d_min == 20 and res.d_stable == 40 and res.decision_margin == 0.2
    censored = SearchResult(grid=np.array([10, 20]), slack=np.array([1.0, -1.0]),
                            row_first=np.zeros(1, int), row_last_fail=np.array([1]),
                            rounding_tol=1e-12)
    # works at 10, fails again at d_max: d_min is 10, nothing is stable within the horizon
    assert censored.d_min == 10 and math.isnan(censored.d_stable)
    assert math.isnan(censored.row_d_min[0])
    never = SearchResult(grid=np.array([10, 20]), slack=np.array([-1.0, -1.0]),
                         row_first=-np.ones(1, int), row_last_fail=np.array([1]), rounding_tol=1e-12)
    assert math.isnan(never.d_min) and math.isnan(never.d_stable)


def test_search_extends_a_short_horizon():
    T = make_target("permutations", 64, 1, 4.0, np.random.default_rng(6))
    res = search_d_min(T, np.random.default_rng(7), EPS_R, EPS_Z, d_max=64, d_start=8,
                       min_step=8, resolution=0.05, horizon_factor=1.25, max_extensions=8)
    assert res.extensions > 0
    assert 1.25 * res.d_min <= res.grid[-1]
    assert res.meta["identity_error"] <= 1


@pytest.mark.parametrize(("n", "k", "seed"), [(200, 1, 10), (150, 2, 11), (97, 3, 12)])
def test_pruned_search_keeps_d_min_d_stable_and_the_passing_slacks(n, k, seed):
    """Pruning skips only grid points some block already failed: d_min, d_stable and every slack
    where all rows pass are those of the full search; a skipped point's slack stays negative and
    no further from 0 than the full one (the decision margin remains a lower bound). The tracked
    rows (two blocks of them, spread over the sequence) get the full search's own d."""
    rng = np.random.default_rng(seed)
    T = make_target("permutations", n, k, 4.0, rng)
    grid = d_grid(8, 3000, 0.05, 8)
    QT, KT = coupled_factors(T, logit_values(T, EPS_R, EPS_Z), rng, int(grid[-1]))
    full = one_pass_search(T, QT, KT, grid, EPS_R, EPS_Z, block=32)
    tracked = sample_rows(n, 40)
    pruned = one_pass_search(T, QT, KT, grid, EPS_R, EPS_Z, block=32, tracked=tracked)
    assert not math.isnan(full.d_min)
    assert pruned.d_min == full.d_min
    assert pruned.d_stable == full.d_stable or (math.isnan(pruned.d_stable)
                                                and math.isnan(full.d_stable))
    passing = full.slack >= 0
    assert np.array_equal(pruned.slack >= 0, passing)
    # folding skipped columns into one product changes the order of the sums: rounding only
    tol = full.rounding_tol
    assert full.decision_margin > tol
    assert np.allclose(pruned.slack[passing], full.slack[passing], rtol=0, atol=tol)
    assert (pruned.slack[~passing] >= full.slack[~passing] - tol).all()
    assert pruned.decision_margin <= full.decision_margin + tol
    assert np.array_equal(pruned.rows, tracked)
    assert np.array_equal(pruned.row_first, full.row_first[tracked])
    assert np.array_equal(pruned.row_last_fail, full.row_last_fail[tracked])
    assert np.array_equal(pruned.row_d_min, full.row_d_min[tracked], equal_nan=True)
    # the checks split over threads (rows apart) give the same numbers
    threaded = one_pass_search(T, QT, KT, grid, EPS_R, EPS_Z, block=32, tracked=tracked, threads=3)
    assert np.array_equal(threaded.slack, pruned.slack)
    assert np.array_equal(threaded.row_last_fail, pruned.row_last_fail)


def test_row_blocks_put_the_tracked_rows_first_and_refuse_bad_ones():
    blocks = row_blocks(10, 3, np.array([1, 5, 8]))
    assert [(list(rows), full) for rows, full in blocks] == [
        ([1, 5, 8], True), ([0, 2, 3], False), ([4, 6, 7], False), ([9], False)]
    assert all(full for _, full in row_blocks(5, 2, None))
    for bad in (np.array([3, 1]), np.array([0, 10]), np.array([], dtype=int), np.array([0.5])):
        with pytest.raises(ValueError, match="tracked"):
            row_blocks(10, 3, bad)


def test_search_refuses_bad_arguments_and_reports_progress():
    T = make_target("permutations", 40, 1, 4.0, np.random.default_rng(0))
    QT, KT = coupled_factors(T, logit_values(T, EPS_R, EPS_Z), np.random.default_rng(1), 100)
    for grid in (np.array([], dtype=int), np.array([50, 40]), np.array([8, 200]),
                 np.array([0, 8]), np.array([8.0, 16.0])):
        with pytest.raises(ValueError, match="grid must be a non-empty increasing list"):
            one_pass_search(T, QT, KT, grid, EPS_R, EPS_Z)
    with pytest.raises(ValueError, match="factors"):
        one_pass_search(T, QT[:, :30], KT[:, :30], [8, 16], EPS_R, EPS_Z)
    with pytest.raises(ValueError, match="block"):
        one_pass_search(T, QT, KT, [8, 16], EPS_R, EPS_Z, block=0)
    with pytest.raises(ValueError, match="threads"):
        one_pass_search(T, QT, KT, [8, 16], EPS_R, EPS_Z, threads=0)
    bad = QT.copy()
    bad[3, 5] = np.nan
    with pytest.raises(ValueError, match="finite"):
        one_pass_search(T, bad, KT, [8, 16], EPS_R, EPS_Z)
    with pytest.raises(ValueError, match="d_max"):
        search_d_min(T, np.random.default_rng(1), EPS_R, EPS_Z, 0)
    seen = []
    one_pass_search(T, QT, KT, [8, 16, 32], EPS_R, EPS_Z, block=16,
                    progress=lambda done, total: seen.append((done, total)))
    assert seen == [(16, 40), (32, 40), (40, 40)]
