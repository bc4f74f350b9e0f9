"""Theorem 1 counterexample, the explicit memorizer, and BigBird's furthest-vector layer."""

import math

import numpy as np
import pytest

from expressivity.counterexamples import (
    THEOREM1_LABELS,
    furthest_reference,
    furthest_vector_attention,
    random_heads,
    random_unit_vectors,
    shared_token_gap,
    shared_tokens_equal_exactly,
    sufficient_beta,
    theorem1_sequences,
)
from expressivity.counterexamples import explicit_memorizer as build


def test_sequences_share_extremes_and_mean_but_differ_inside():
    X1, X2 = theorem1_sequences(np.array([0.6, 0.8]))
    assert np.allclose(X1.mean(0), X2.mean(0))
    assert np.allclose(X1[[0, 3]], X2[[0, 3]])
    assert not np.allclose(X1[1:3], X2[1:3])


@pytest.mark.parametrize("scale", [0.0, 0.3, 3.0])
def test_hardmax_outputs_equal_exactly_softmax_outputs_differ(scale):
    rng = np.random.default_rng(11)
    e = np.array([1.0, 2.0, 2.0]) / 3
    for _ in range(20):
        heads = random_heads(rng, 3, int(rng.integers(1, 6)), int(rng.integers(1, 4)), scale)
        assert shared_tokens_equal_exactly(heads, e)
        assert shared_token_gap(heads, e, "hardmax") <= 1e-12
    if scale > 0:
        assert shared_token_gap(heads, e, "softmax") > 1e-6


def test_exact_check_detects_a_difference():
    # A sequence pair that is NOT a counterexample (different maxima) must be caught.
    import expressivity.counterexamples as ce

    heads = random_heads(np.random.default_rng(3), 2, 1, 1, 1.0)
    original = ce.THEOREM1_TOKENS
    try:
        ce.THEOREM1_TOKENS = (np.array([1.0, 2.0, 4.0, 5.0]), np.array([1.0, 2.5, 3.5, 6.0]))
        assert not shared_tokens_equal_exactly(heads, np.array([1.0, 0.0]))
    finally:
        ce.THEOREM1_TOKENS = original


def test_explicit_memorizer_reproduces_every_label():
    e = np.eye(3)[0]
    model = build(e)
    outputs = np.concatenate([model(X) for X in theorem1_sequences(e)])
    np.testing.assert_allclose(outputs, np.concatenate(THEOREM1_LABELS), atol=1e-9)
    assert model.n_parameters == 4 * 3 + 2 * 8 + 3


def test_bigbird_hardmax_returns_the_furthest_vector_exactly():
    rng = np.random.default_rng(4)
    n = 64
    U = random_unit_vectors(rng, n, math.ceil(math.log2(n)) ** 2)
    out = furthest_vector_attention(U, "hardmax")
    np.testing.assert_array_equal(out, U[furthest_reference(U)])


def test_bigbird_softmax_is_exact_above_the_sufficient_beta_and_not_at_beta_one():
    rng = np.random.default_rng(5)
    U = random_unit_vectors(rng, 32, 25)
    truth = furthest_reference(U)
    beta = sufficient_beta(U)
    soft = furthest_vector_attention(U, "softmax", beta=beta)
    dist = ((soft[:, None] - U[None]) ** 2).sum(-1)
    assert np.array_equal(dist.argmin(1), truth)
    cold = furthest_vector_attention(U, "softmax", beta=1.0)
    assert not np.array_equal(((cold[:, None] - U[None]) ** 2).sum(-1).argmin(1), truth)
