"""Unit tests: the sparse targets (families, validation, storage by rows)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from expressivity.approximation_check import check_logits, logit_values
from expressivity.sparse_target import KINDS, SparseTarget, TargetError, make_target


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


def test_unknown_kind_is_refused():
    with pytest.raises(ValueError, match="unknown target kind 'ring'"):
        make_target("ring", 8, 1, 1.0, np.random.default_rng(0))


@pytest.mark.parametrize(("A", "k", "message"), [
    (np.array([[1.0, 0.0], [0.0, 0.0]]), 1, "row 1 has no nonzero"),
    (np.array([[1.0, -0.5], [0.0, 1.0]]), 2, r"entry \(0, 1\) is negative"),
    (np.array([[1.0, 1.0, 0.0], [0.0, 0.0, 1.0], [0.0, 0.0, 1.0]]), 1, "row 0 has 2 nonzeros"),
    (np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 0.0, 1.0]]), 1, "column 2 has 2 nonzeros"),
    (np.array([[1.0, np.nan], [0.0, 1.0]]), 1, "not finite"),
    (np.ones((2, 3)), 3, "square"),
    (np.eye(3), 0, "k .*must be an integer >= 1"),
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


@pytest.mark.parametrize("n, k", [(8, 3), (10, 4), (5, 3)])
def test_short_last_block_pads_consistently(n, k):
    # a short last block repeats its first (column, value) pair; the exact logits then pass
    T = make_target("block", n, k, 8.0, np.random.default_rng(0))
    assert np.array_equal(T.count, np.minimum((np.arange(n) // k + 1) * k, n) - (np.arange(n) // k) * k)
    chk = check_logits(T, T.to_dense(logit_values(T, 1.0, 0.5)), 1.0, 0.5)
    assert np.allclose(chk.ratio_error, 0, atol=1e-12)


@pytest.mark.parametrize(("kind", "n", "k", "R", "message"), [
    ("permutations", 8, 1, float("nan"), "R .*finite"),
    ("band", 8, 1, float("inf"), "R .*finite"),
    ("block", 8, 1, 0.5, "R .*>= 1"),
    ("permutations", 8, 32, 4.0, "k = 32 .*exceeds n = 8"),
    ("block", 8, 9, 4.0, "k = 9 .*exceeds n = 8"),
    ("band", 0, 1, 4.0, "n .*must be an integer >= 1"),
    ("permutations", 8.0, 1, 4.0, "n .*must be an integer >= 1"),
    ("permutations", 8, True, 4.0, "k .*must be an integer >= 1"),
])
def test_make_target_refuses_bad_arguments_naming_them(kind, n, k, R, message):
    """Before any work: NaN or infinite R, k > n, a non-integer n or k (the old code built an
    R = 1 target for R = nan and a dense target labelled k = 32 for k > n)."""
    with pytest.raises(TargetError, match=message):
        make_target(kind, n, k, R, np.random.default_rng(0))
