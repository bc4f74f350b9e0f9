"""Unit tests: the (eps_ratio, eps_zero)-approximation, the exact logits B and the check."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from expressivity.approximation_check import check_attention, check_logits, logit_values
from expressivity.attention import softmax
from expressivity.sparse_target import KINDS, make_target

EPS_R, EPS_Z = 1.0, 0.1


@settings(max_examples=30, deadline=None)
@given(kind=st.sampled_from(KINDS), n=st.integers(4, 30), k=st.integers(1, 3),
       eps_r=st.floats(0.05, 1.0), eps_z=st.floats(1e-3, 0.9), seed=st.integers(0, 10**6),
       frac=st.floats(0.0, 0.999))
def test_exact_B_passes_and_small_errors_keep_passing(kind, n, k, eps_r, eps_z, seed, frac):
    rng = np.random.default_rng(seed)
    T = make_target(kind, n, k, 8.0, rng)
    B = T.to_dense(logit_values(T, eps_r, eps_z))
    chk = check_logits(T, B, eps_r, eps_z)
    assert np.allclose(chk.ratio_error, 0, atol=1e-12)
    full_rows = T.count == n  # a row whose support is every column has no zero condition
    assert np.allclose(chk.slack[~full_rows], eps_r, atol=1e-12)
    # an entrywise error below eps_r / 2 keeps both conditions (the margin of B)
    noise = rng.uniform(-1, 1, B.shape) * frac * eps_r / 2
    assert check_logits(T, B + noise + rng.normal(size=(n, 1)), eps_r, eps_z).ok


def test_check_fails_when_a_ratio_or_a_zero_is_broken():
    T = make_target("permutations", 20, 2, 4.0, np.random.default_rng(3))
    B = T.to_dense(logit_values(T, EPS_R, EPS_Z))
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
    S = T.to_dense(logit_values(T, EPS_R, EPS_Z))
    S += np.random.default_rng(2).normal(scale=0.2, size=(16, 16))
    a, b = check_logits(T, S, EPS_R, EPS_Z), check_attention(T, softmax(S), EPS_R, EPS_Z)
    assert np.allclose(a.slack, b.slack, atol=1e-12)
    with pytest.raises(FloatingPointError, match="underflow"):
        check_attention(T, np.zeros((16, 16)), EPS_R, EPS_Z)


def test_tolerances_outside_their_range_are_refused():
    T = make_target("band", 8, 1, 1.0, np.random.default_rng(0))
    for eps_r, eps_z in [(0.0, 0.1), (1.5, 0.1), (1.0, 1.0), (1.0, 0.0)]:
        with pytest.raises(ValueError, match="eps_"):
            logit_values(T, eps_r, eps_z)
