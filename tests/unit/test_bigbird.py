"""BigBird Proposition 1: one dense attention layer finds the furthest vector; two sufficient
inverse temperatures and the smallest that works."""

import math

import numpy as np
import pytest

from expressivity.bigbird import (
    beta_bounds,
    furthest_reference,
    furthest_vector_attention,
    random_unit_vectors,
    sharp_beta,
    softmax_accuracy,
    squared_distances,
    sufficient_beta,
)


def instance(seed, n=32, d=25):
    return random_unit_vectors(np.random.default_rng(seed), n, d)


def test_bigbird_hardmax_returns_the_furthest_vector_exactly():
    rng = np.random.default_rng(4)
    n = 64
    U = random_unit_vectors(rng, n, math.ceil(math.log2(n)) ** 2)
    out = furthest_vector_attention(U, "hardmax")
    np.testing.assert_array_equal(out, U[furthest_reference(U)])


def test_furthest_reference_equals_explicit_distances_also_on_ties():
    U = instance(1)
    explicit = np.argmax(squared_distances(U, U), axis=1)
    np.testing.assert_array_equal(furthest_reference(U), explicit)
    tied = np.vstack([U, -U[:1], -U[:1]])  # two identical furthest vectors for u_0: first wins
    tied /= np.linalg.norm(tied, axis=1, keepdims=True)
    assert furthest_reference(tied)[0] == np.argmax(squared_distances(tied[:1], tied)[0]) == 32


@pytest.mark.parametrize("seed", range(6))
def test_both_bounds_suffice_and_the_sharp_one_is_lower(seed):
    U = instance(seed)
    truth = furthest_reference(U)
    suff, sharp = beta_bounds(U)
    assert (suff, sharp) == (sufficient_beta(U), sharp_beta(U))
    assert sharp < suff
    for beta in (sharp, 1.5 * sharp, suff, 10 * suff):
        assert softmax_accuracy(U, truth, beta) == 1.0
    assert softmax_accuracy(U, truth, 1.0) < 1.0


def test_sharp_beta_solves_its_equation():
    """At beta_sharp the worst query's F_i(beta) = sum_j e^{-beta g_ij} D_ij equals s_i / 2."""
    U = instance(7, n=20, d=16)
    beta = sharp_beta(U)
    G = U @ U.T
    worst = 0.0
    for i in range(len(U)):
        far = int(np.argmin(G[i]))
        D = np.linalg.norm(U - U[far], axis=1)
        others = np.arange(len(U)) != far
        F = np.sum(np.exp(-beta * (G[i] - G[i, far]))[others] * D[others])
        worst = max(worst, F / (D[others].min() / 2))
    assert worst == pytest.approx(1.0, rel=1e-9)


@pytest.mark.parametrize("call, match", [
    (lambda: sufficient_beta(np.ones((3, 2))), "unit vectors"),
    (lambda: furthest_reference(np.ones(3)), "shape"),
    (lambda: random_unit_vectors(np.random.default_rng(0), 0, 2), "n must"),
])
def test_bad_arguments_are_refused_by_name(call, match):
    with pytest.raises(ValueError, match=match):
        call()
