"""Fixed attention blocks generate polynomials exactly (our construction for Fang et al. 2022)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from expressivity.polynomial import (
    evaluate_polynomial,
    features,
    make_blocks,
    n_tokens,
    regression_excess,
    staircase_error,
)


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 3), st.integers(1, 4), st.integers(0, 2**31))
def test_blocks_compute_powers_of_affine_forms(d, L, seed):
    rng = np.random.default_rng(seed)
    model = make_blocks(d, L, rng)
    x = rng.uniform(-1, 1, size=(5, d))
    z = features(model, x)
    assert np.allclose(z, (1 + x @ model.a.T + model.c) ** L, rtol=1e-12, atol=1e-12)
    assert model.tokens == n_tokens(d, L)


@pytest.mark.parametrize("d", [1, 2, 3])
def test_staircase(d):
    rng = np.random.default_rng(d)
    for L in (1, 2, 3):
        assert staircase_error(d, L, L, rng, n_test=300)["max_rel_error"] <= 1e-9
        assert staircase_error(d, L, L + 1, rng, n_test=300)["max_rel_error"] >= 1e-2


def test_chebyshev_basis():
    poly = ([(0,), (2,)], np.array([1.0, 2.0]))        # 1 + 2 T_2(x) = 4 x^2 - 1
    x = np.array([[0.0], [0.5], [1.0]])
    assert np.allclose(evaluate_polynomial(poly, x), 4 * x[:, 0] ** 2 - 1)


def test_excess_risk_shrinks_only_when_exact():
    rng = np.random.default_rng(0)
    small = np.mean([regression_excess(1, 2, 2, 64, 0.1, rng, 300) for _ in range(6)])
    large = np.mean([regression_excess(1, 2, 2, 1024, 0.1, rng, 300) for _ in range(6)])
    assert large < small / 4
    short = [np.mean([regression_excess(1, 1, 2, N, 0.1, rng, 300) for _ in range(6)])
             for N in (64, 1024)]
    assert short[1] > short[0] / 4                # a floor: no 1/N decay


def test_bad_sizes():
    with pytest.raises(ValueError, match="blocks >= 1"):
        make_blocks(2, 0, np.random.default_rng(0))
