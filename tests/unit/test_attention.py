"""Attention primitives: equivariance, tie averaging, the hardmax limit, direct formulas."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from expressivity.attention import Head, boltz, hardmax, self_attention, softmax

finite = st.floats(-10, 10, allow_nan=False, allow_infinity=False)


def random_heads(rng, d, h=2, s=2):
    return [Head(*(rng.standard_normal(shape) for shape in [(d, s), (d, s), (d, s), (s, d)]))
            for _ in range(h)]


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 7), st.integers(1, 4), st.integers(0, 2**32 - 1),
       st.sampled_from(["softmax", "hardmax"]))
def test_self_attention_is_permutation_equivariant(n, d, seed, sigma):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    heads = random_heads(rng, d)
    perm = rng.permutation(n)
    np.testing.assert_allclose(self_attention(X[perm], heads, sigma=sigma),
                               self_attention(X, heads, sigma=sigma)[perm], atol=1e-12)


def test_hardmax_averages_exact_ties():
    S = np.array([[1.0, 3.0, 3.0, 0.0], [2.0, 2.0, 2.0, 2.0], [5.0, 1.0, 0.0, 4.0]])
    np.testing.assert_array_equal(hardmax(S), [[0, 0.5, 0.5, 0], [0.25] * 4, [1, 0, 0, 0]])


def test_hardmax_tie_tolerance_merges_rounding_ties():
    S = np.array([[1.0, 1.0 + 1e-15, 0.0]])
    np.testing.assert_array_equal(hardmax(S), [[0, 1, 0]])
    np.testing.assert_array_equal(hardmax(S, tie_tol=1e-12), [[0.5, 0.5, 0]])
    with pytest.raises(ValueError, match="tie_tol"):
        hardmax(S, tie_tol=-1)


@settings(max_examples=60, deadline=None)
@given(arrays(float, (3, 5), elements=finite))
def test_softmax_of_beta_s_tends_to_hardmax(S):
    # The gap between a maximiser and the runner-up decides the rate: e^{-beta gap} per key.
    gaps = np.sort(S, axis=1)
    H = hardmax(S)
    for row in range(S.shape[0]):
        top = gaps[row, -1]
        below = gaps[row][gaps[row] < top]
        gap = top - below.max() if below.size else math.inf
        if gap < 1e-3:
            continue  # a near-tie: the limit is reached only at beta ~ 1/gap (tested elsewhere)
        beta = 50.0 / gap if np.isfinite(gap) else 1.0
        P = softmax(S[row : row + 1], beta=beta)
        assert np.max(np.abs(P - H[row])) <= 5 * math.exp(-50) + 1e-12


def test_softmax_matches_direct_formula():
    rng = np.random.default_rng(0)
    S = rng.standard_normal((4, 6)) * 3
    direct = np.array([[math.exp(s) / sum(math.exp(t) for t in row) for s in row] for row in S])
    np.testing.assert_allclose(softmax(S), direct, rtol=1e-13)


def test_softmax_is_stable_for_large_scores():
    P = softmax(np.array([[1000.0, 999.0, -1000.0]]))
    assert np.all(np.isfinite(P))
    np.testing.assert_allclose(P[0, :2], [1 / (1 + math.e**-1), math.e**-1 / (1 + math.e**-1)])


def test_self_attention_matches_column_form_of_the_paper():
    # F(Z) = Z + W_O W_V Z softmax[(W_K Z)^T (W_Q Z)] with Z = X^T, written with explicit loops.
    rng = np.random.default_rng(1)
    n, d, s = 5, 3, 2
    X = rng.standard_normal((n, d))
    head = random_heads(rng, d, h=1, s=s)[0]
    Z = X.T
    WQ, WK, WV, WO = head.W_Q.T, head.W_K.T, head.W_V.T, head.W_O.T  # paper shapes
    out = Z.copy()
    scores = (WK @ Z).T @ (WQ @ Z)  # [j, k]
    for k in range(n):
        col = np.exp(scores[:, k] - scores[:, k].max())
        col /= col.sum()
        out[:, k] += WO @ WV @ Z @ col
    np.testing.assert_allclose(self_attention(X, [head]), out.T, atol=1e-12)


def test_masked_attention_ignores_masked_keys():
    rng = np.random.default_rng(2)
    X = rng.standard_normal((4, 2))
    head = random_heads(rng, 2, h=1)[0]
    mask = np.eye(4, dtype=bool) | np.eye(4, k=1, dtype=bool)
    Y = self_attention(X, [head], mask=mask)
    X2 = X.copy()
    X2[0] += 10.0  # token 0 is visible only to itself
    Y2 = self_attention(X2, [head], mask=mask)
    np.testing.assert_allclose(Y[1:], Y2[1:], atol=1e-12)
    with pytest.raises(ValueError, match="row 2 attends to no key"):
        self_attention(X, [head], mask=np.eye(4, dtype=bool) & (np.arange(4) != 2)[:, None])


@settings(max_examples=200, deadline=None)
@given(arrays(float, st.integers(1, 30), elements=finite))
def test_boltz_bounds(a):
    b = float(boltz(a))
    slack = 1e-12 * (1 + np.max(np.abs(a)))
    assert a.max() - math.log(a.size) - slack <= b <= a.max() + slack


def test_boltz_matches_the_direct_sum():
    a = np.array([0.5, -1.0, 2.0, 2.0])
    direct = sum(x * math.exp(x) for x in a) / sum(math.exp(x) for x in a)
    assert boltz(a) == pytest.approx(direct, rel=1e-14)


@pytest.mark.parametrize("call, match", [
    (lambda: softmax(np.ones((2, 2)), beta=math.nan), "beta"),
    (lambda: softmax(np.ones((2, 2)), beta=math.inf), "beta"),
    (lambda: softmax(np.array([[1.0, math.nan]])), "scores S must be finite"),
    (lambda: softmax(np.array([[1e300, 1.0]]), beta=1e10), "overflows"),
    (lambda: hardmax(np.array([[math.inf, 1.0]])), "scores S must be finite"),
    (lambda: hardmax(np.ones((2, 2)), tie_tol=math.nan), "tie_tol"),
    (lambda: boltz(np.array([])), "non-empty"),
    (lambda: boltz(np.array([1.0, math.nan])), "a must be finite"),
])
def test_primitives_refuse_bad_arguments_by_name(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_self_attention_refuses_nan_inputs_and_mismatched_heads():
    rng = np.random.default_rng(3)
    X = rng.standard_normal((4, 3))
    heads = random_heads(rng, 3)
    bad = X.copy()
    bad[2, 1] = math.nan
    with pytest.raises(ValueError, match=r"X must be finite, got nan at index \(2, 1\)"):
        self_attention(bad, heads)
    with pytest.raises(ValueError, match=r"heads\[1\] reads dimension d = 2"):
        self_attention(X, [heads[0], random_heads(rng, 2, h=1)[0]])
    with pytest.raises(ValueError, match="sigma"):
        self_attention(X, heads, sigma="sparsemax")
    with pytest.raises(ValueError, match="X must have shape"):
        self_attention(X[None], heads)


@pytest.mark.parametrize("shapes, match", [
    ([(3, 2), (3, 3), (3, 2), (2, 3)], "W_Q, W_K: \\(d, s\\)"),
    ([(3, 2), (3, 2), (3, 2), (2, 4)], "W_O: \\(s_v, d\\)"),
    ([(3, 2), (3, 2), (4, 2), (2, 3)], "W_V: \\(d, s_v\\)"),
    ([(3,), (3, 2), (3, 2), (2, 3)], "matrices"),
])
def test_head_refuses_mismatched_shapes(shapes, match):
    with pytest.raises(ValueError, match=match):
        Head(*(np.ones(s) for s in shapes))
    with pytest.raises(ValueError, match="W_V must be finite"):
        Head(np.ones((3, 2)), np.ones((3, 2)), np.full((3, 2), math.nan), np.ones((2, 3)))
