"""Unit tests: targets, the approximation check, the construction and the one-pass d_min search."""

import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from expressivity.attention import softmax
from expressivity.random_projection import (
    gaussian_columns_T,
    jl_dimension,
    jl_error_bound,
)
from expressivity.sparse_approximation import (
    DENSE_N_MAX,
    KINDS,
    Construction,
    SearchResult,
    SparseTarget,
    TargetError,
    check_attention,
    check_logits,
    coupled_factors,
    d_grid,
    fixed_weights,
    gram_logits,
    identity_error,
    las_vegas,
    logit_values,
    make_target,
    naive_search,
    one_pass_search,
    search_d_min,
    slack_at,
)

EPS_R, EPS_Z = 1.0, 0.1


def dense_B(target, eps_r=EPS_R, eps_z=EPS_Z):
    B = np.zeros((target.n, target.n))
    B[np.arange(target.n)[:, None], target.cols] = logit_values(target, eps_r, eps_z)
    return B


# ---- targets ------------------------------------------------------------------------------------

@settings(max_examples=40, deadline=None)
@given(kind=st.sampled_from(KINDS), n=st.integers(4, 40), k=st.integers(1, 4),
       R=st.floats(1.0, 50.0), seed=st.integers(0, 10**6))
def test_targets_are_in_the_class(kind, n, k, R, seed):
    T = make_target(kind, n, k, R, np.random.default_rng(seed))
    A = T.to_dense()
    nz = A > 0
    assert nz.any(axis=1).all()
    assert nz.sum(axis=1).max() <= k and nz.sum(axis=0).max() <= k
    assert A[nz].min() >= 1.0 and A[nz].max() <= R
    assert T.ratio <= R * (1 + 1e-12)
    back = SparseTarget.from_dense(A, k)
    assert np.array_equal(back.to_dense(), A)


def test_permutation_target_with_k1_is_a_permutation():
    A = make_target("permutations", 50, 1, 1.0, np.random.default_rng(0)).to_dense()
    assert np.array_equal(A.sum(axis=0), np.ones(50)) and np.array_equal(A.sum(axis=1), np.ones(50))


@pytest.mark.parametrize(("A", "k", "message"), [
    (np.array([[1.0, 0.0], [0.0, 0.0]]), 1, "row 1 has no nonzero"),
    (np.array([[1.0, -0.5], [0.0, 1.0]]), 2, r"entry \(0, 1\) is negative"),
    (np.array([[1.0, 1.0, 0.0], [0.0, 0.0, 1.0], [0.0, 0.0, 1.0]]), 1, "row 0 has 2 nonzeros"),
    (np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 0.0, 1.0]]), 1, "column 2 has 2 nonzeros"),
    (np.array([[1.0, np.nan], [0.0, 1.0]]), 1, "not finite"),
    (np.ones((2, 3)), 3, "square"),
    (np.eye(3), 0, "positive integer"),
])
def test_bad_targets_are_refused_naming_the_place(A, k, message):
    with pytest.raises(TargetError, match=message):
        SparseTarget.from_dense(A, k)


def test_bad_stored_target_is_refused():
    cols = np.array([[0], [0]])
    with pytest.raises(TargetError, match="column 0 has 2 nonzeros"):
        SparseTarget(cols=cols, vals=np.ones((2, 1)), count=np.ones(2, int), k=1).validate()
    with pytest.raises(TargetError, match="entry"):
        SparseTarget(cols=np.array([[0], [1]]), vals=np.array([[1.0], [0.0]]),
                     count=np.ones(2, int), k=1).validate()


# ---- the check ----------------------------------------------------------------------------------

@settings(max_examples=30, deadline=None)
@given(kind=st.sampled_from(KINDS), n=st.integers(4, 30), k=st.integers(1, 3),
       eps_r=st.floats(0.05, 1.0), eps_z=st.floats(1e-3, 0.9), seed=st.integers(0, 10**6),
       frac=st.floats(0.0, 0.999))
def test_exact_B_passes_and_small_errors_keep_passing(kind, n, k, eps_r, eps_z, seed, frac):
    rng = np.random.default_rng(seed)
    T = make_target(kind, n, k, 8.0, rng)
    B = dense_B(T, eps_r, eps_z)
    chk = check_logits(T, B, eps_r, eps_z)
    assert np.allclose(chk.ratio_error, 0, atol=1e-12)
    full_rows = T.count == n  # a row whose support is every column has no zero condition
    assert np.allclose(chk.slack[~full_rows], eps_r, atol=1e-12)
    # an entrywise error below eps_r / 2 keeps both conditions (the margin of B)
    noise = rng.uniform(-1, 1, B.shape) * frac * eps_r / 2
    assert check_logits(T, B + noise + rng.normal(size=(n, 1)), eps_r, eps_z).ok


def test_check_fails_when_a_ratio_or_a_zero_is_broken():
    T = make_target("permutations", 20, 2, 4.0, np.random.default_rng(3))
    B = dense_B(T)
    bad = B.copy()
    bad[0, T.cols[0, 0]] += 1.5 * EPS_R  # ratio error 1.5 eps_r on row 0 (if it has 2 nonzeros)
    j_off = next(j for j in range(20) if j not in T.cols[1])
    bad[1, j_off] = B[1, T.cols[1]].min()  # an off-support entry as large as a support entry
    chk = check_logits(T, bad, EPS_R, EPS_Z)
    assert chk.slack[1] < 0 and not chk.ok
    if T.count[0] == 2:
        assert chk.ratio_error[0] == pytest.approx(1.5 * EPS_R)


def test_check_on_attention_matches_check_on_logits():
    T = make_target("band", 16, 3, 4.0, np.random.default_rng(1))
    S = dense_B(T) + np.random.default_rng(2).normal(scale=0.2, size=(16, 16))
    a, b = check_logits(T, S, EPS_R, EPS_Z), check_attention(T, softmax(S), EPS_R, EPS_Z)
    assert np.allclose(a.slack, b.slack, atol=1e-12)
    with pytest.raises(FloatingPointError, match="underflow"):
        check_attention(T, np.zeros((16, 16)), EPS_R, EPS_Z)


def test_tolerances_outside_their_range_are_refused():
    T = make_target("band", 8, 1, 1.0, np.random.default_rng(0))
    for eps_r, eps_z in [(0.0, 0.1), (1.5, 0.1), (1.0, 1.0), (1.0, 0.0)]:
        with pytest.raises(ValueError, match="eps_"):
            logit_values(T, eps_r, eps_z)


# ---- the construction ---------------------------------------------------------------------------

@pytest.mark.parametrize("form", ["row", "column"])
def test_construction_logits_through_fixed_weights(form):
    T = make_target("permutations", 24, 2, 4.0, np.random.default_rng(0))
    B = logit_values(T, EPS_R, EPS_Z)
    d = 40
    QT, KT = coupled_factors(T, B, np.random.default_rng(1), d, form)
    c = Construction(QT, KT, d, form)
    assert c.X.shape == (24, 2 * d)
    G = gaussian_columns_T(np.random.default_rng(1), 24, d).T / math.sqrt(d)
    Bd = dense_B(T)
    expected = Bd @ G @ G.T if form == "row" else G @ G.T @ Bd
    assert np.allclose(c.logits(), expected, atol=1e-12)
    assert np.allclose(QT.T @ KT / d, expected, atol=1e-12)
    W_Q, W_K = fixed_weights(d)
    assert W_Q.shape == (2 * d, d) and np.allclose(W_Q.T @ W_K, 0)
    assert identity_error(QT, KT, d) <= 1


def test_projection_is_unbiased():
    n, d = 6, 20000
    GT = gaussian_columns_T(np.random.default_rng(5), n, d) / math.sqrt(d)
    assert np.abs(GT.T @ GT - np.eye(n)).max() < 0.05  # E[G G^T] = I, sd 1/sqrt(d) = 0.007


def test_projection_prefix_property():
    a = gaussian_columns_T(np.random.default_rng(9), 7, 70)
    b = gaussian_columns_T(np.random.default_rng(9), 7, 200)
    assert np.array_equal(a, b[:70])
    g = d_grid(8, 500, 0.05, 8)
    assert np.array_equal(g, d_grid(8, 2000, 0.05, 8)[: len(g)]) and g[-1] <= 500


@pytest.mark.parametrize("form", ["row", "column"])
def test_construction_works_at_the_jl_dimension(form):
    T = make_target("permutations", 32, 1, 4.0, np.random.default_rng(2))
    d = jl_dimension(32, 1, 4.0, EPS_R, EPS_Z, 0.1)
    res = las_vegas(T, d, EPS_R, EPS_Z, np.random.default_rng(3), max_rounds=3, form=form)
    assert res.ok and res.rounds == 1
    # the attention of the fixed module applied to X meets both tolerances
    assert check_logits(T, res.construction.logits(), EPS_R, EPS_Z).ok


def test_construction_fails_with_too_small_d():
    """Built to fail: d = 4 cannot separate 64 keys with margin log(1/eps_zero)."""
    T = make_target("permutations", 64, 2, 4.0, np.random.default_rng(4))
    res = las_vegas(T, 4, EPS_R, EPS_Z, np.random.default_rng(5), max_rounds=3)
    assert not res.ok and res.rounds == 3 and res.construction is None and res.min_slack < 0


def test_jl_dimension_and_error_bound():
    # the table of shared/papers/likhosherstov.md §6.2 (k = 1, R = 4, eps = (1, 0.1), delta = 0.1)
    assert [jl_dimension(n, 1, 4, 1.0, 0.1, 0.1) for n in (64, 256, 1024, 4096)] == [
        4547, 5597, 6647, 7697]
    beta = math.sqrt(2) * (math.log(4) + math.log(10) + 1)
    d = jl_dimension(100, 2, 4, 1.0, 0.1, 0.1)
    assert jl_error_bound(100, d, beta, 0.1) <= 0.5 + 1e-9
    assert jl_error_bound(100, d / 2, beta, 0.1) > 0.5
    assert jl_error_bound(100, 1, beta, 0.1) == math.inf


# ---- the search ---------------------------------------------------------------------------------

@pytest.mark.parametrize(("kind", "n", "k", "form", "seed"), [
    ("permutations", 48, 1, "row", 0), ("permutations", 64, 2, "row", 1),
    ("band", 40, 3, "row", 2), ("block", 50, 2, "column", 3), ("permutations", 33, 2, "column", 4),
])
def test_one_pass_search_equals_naive_search(kind, n, k, form, seed):
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
    assert fast.max_error[-1] == pytest.approx(np.abs(S - dense_B(T)).max(), rel=1e-9)
    assert slack_at(T, QT, KT, int(fast.d_min), EPS_R, EPS_Z).ok


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


@pytest.mark.parametrize("n, k", [(8, 3), (10, 4), (5, 3)])
def test_short_last_block_pads_consistently(n, k):
    # a short last block repeats its first (column, value) pair; the exact logits then pass
    T = make_target("block", n, k, 8.0, np.random.default_rng(0))
    assert np.array_equal(T.count, np.minimum((np.arange(n) // k + 1) * k, n) - (np.arange(n) // k) * k)
    chk = check_logits(T, dense_B(T, 1.0, 0.5), 1.0, 0.5)
    assert np.allclose(chk.ratio_error, 0, atol=1e-12)


@pytest.mark.parametrize("form", ["row", "column"])
@pytest.mark.parametrize("d", [40, 512, 700])  # below, at and across a GRAM_CHUNK boundary
def test_gram_logits_are_the_constructions_logits(form, d):
    """B G G^T (or G G^T B) through the Gram matrix equals X1 X2^T from the factors, up to float64
    rounding of a length-d sum, and leaves the generator where coupled_factors leaves it."""
    T = make_target("permutations", 48, 3, 4.0, np.random.default_rng(6))
    B = logit_values(T, EPS_R, EPS_Z)
    rng_a, rng_b = np.random.default_rng(7), np.random.default_rng(7)
    S = gram_logits(T, B, rng_a, d, form)
    QT, KT = coupled_factors(T, B, rng_b, d, form)
    direct = QT.T @ KT / d
    # both sum d k products b G G, each at most max|b| g^2; each sum errs by <= (d + k) u of that
    g = np.abs(KT if form == "row" else QT).max()
    bound = 2 * (d + 3) * 2.0**-53 * 3 * np.abs(B).max() * g**2
    assert np.abs(S - direct).max() <= bound
    assert rng_a.standard_normal() == rng_b.standard_normal()


def test_gram_logits_refuse_a_dense_matrix_beyond_the_limit():
    T = make_target("band", DENSE_N_MAX + 1, 1, 1.0, np.random.default_rng(0))
    with pytest.raises(ValueError, match=str(DENSE_N_MAX + 1)):
        gram_logits(T, logit_values(T, EPS_R, EPS_Z), np.random.default_rng(0), 8)


def test_the_benchmark_runs_and_reports_every_ratio():
    """benchmarks/sparse_approximation.py at a small n: it runs and prints each comparison (the
    ratios themselves are measurements, never asserted)."""
    script = Path(__file__).parents[2] / "benchmarks" / "sparse_approximation.py"
    out = subprocess.run([sys.executable, str(script), "--n", "128", "--k", "2"], check=True,
                         capture_output=True, text=True).stdout
    for line in ("ratio search / plain matmul", "bisection up to d_JL", "oracle horizon"):
        assert line in out


@pytest.mark.parametrize(("n", "k", "seed"), [(200, 1, 10), (150, 2, 11), (97, 3, 12)])
def test_pruned_search_keeps_d_min_d_stable_and_the_passing_slacks(n, k, seed):
    """Pruning skips only grid points some block already failed: d_min, d_stable and every slack
    where all rows pass are those of the full search; a skipped point's slack stays negative and
    no further from 0 than the full one (the decision margin remains a lower bound)."""
    rng = np.random.default_rng(seed)
    T = make_target("permutations", n, k, 4.0, rng)
    grid = d_grid(8, 3000, 0.05, 8)
    QT, KT = coupled_factors(T, logit_values(T, EPS_R, EPS_Z), rng, int(grid[-1]))
    full = one_pass_search(T, QT, KT, grid, EPS_R, EPS_Z, block=32, prune=False)
    pruned = one_pass_search(T, QT, KT, grid, EPS_R, EPS_Z, block=32)
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
