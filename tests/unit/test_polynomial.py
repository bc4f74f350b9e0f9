"""Fixed attention blocks generate polynomials exactly (our construction for Fang et al. 2022)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from expressivity.polynomial import (
    SCALES,
    VARIANTS,
    block,
    embed,
    evaluate_polynomial,
    features,
    fit_readout,
    fit_scales,
    layer_norm,
    make_blocks,
    n_tokens,
    noisy_sample,
    random_polynomial,
    readout_excess,
    readout_floor,
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


def regression_excess(d, blocks, degree, n_train, sigma, rng, n_test):
    """The excess risk of ``blocks`` fresh blocks' read-out on one fresh draw."""
    model, poly = make_blocks(d, blocks, rng), random_polynomial(d, degree, rng)
    x, y = noisy_sample(poly, n_train, sigma, rng)
    x_test = rng.uniform(-1, 1, size=(n_test, d))
    return readout_excess(model, x, y, x_test, evaluate_polynomial(poly, x_test))


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


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 3), st.integers(1, 3), st.floats(1e-3, 1e3), st.integers(0, 2**31))
def test_softmax_blocks_keep_the_value_slot_constant(d, L, scale, seed):
    """Row-stochastic scores map the constant slot z = 1 to itself plus 1 per block: the softmax
    blocks' features are 2^L at every token, input and scale."""
    rng = np.random.default_rng(seed)
    model = make_blocks(d, L, rng)
    z = features(model, rng.uniform(-1, 1, size=(4, d)), variant="softmax", scale=scale)
    assert np.allclose(z, 2.0**L, rtol=1e-12)


def test_layernorm_block_normalises_every_token():
    rng = np.random.default_rng(0)
    model = make_blocks(2, 2, rng)
    X = block(model, embed(model, rng.uniform(-1, 1, size=(3, 2))), "layernorm")
    assert np.allclose(X.mean(axis=-1), 0, atol=1e-12)
    assert np.allclose((X**2).mean(axis=-1), 1, atol=1e-4)
    assert np.allclose(layer_norm(X), X, atol=1e-4)


def test_layernorm_features_are_full_rank_but_not_the_powers():
    rng = np.random.default_rng(1)
    model = make_blocks(2, 2, rng)
    x = rng.uniform(-1, 1, size=(40, 2))
    z = features(model, x, variant="layernorm")
    assert np.linalg.matrix_rank(z) == model.tokens
    assert not np.allclose(z, (1 + x @ model.a.T + model.c) ** 2)


def test_unknown_variant_is_refused_naming_it():
    model = make_blocks(1, 1, np.random.default_rng(0))
    with pytest.raises(ValueError, match="'relu'.*softmax_free"):
        features(model, np.zeros((2, 1)), variant="relu")
    assert set(VARIANTS) == {"softmax_free", "softmax", "softmax_scaled", "layernorm"}


def test_readout_floor_is_rounding_and_grows_with_the_coefficients():
    """On the exact features of a degree-L target the floor is float64 rounding (far below the
    cut-off's O(1) error), and zero where the features are orthonormal columns."""
    rng = np.random.default_rng(2)
    model = make_blocks(2, 3, rng)
    x, xt = rng.uniform(-1, 1, size=(4 * model.tokens, 2)), rng.uniform(-1, 1, size=(300, 2))
    y = evaluate_polynomial(random_polynomial(2, 3, rng), x)
    floor = readout_floor(features(model, x), features(model, xt), y)
    assert 0 <= floor < 1e-10
    Q = np.linalg.qr(rng.normal(size=(50, 4)))[0]
    assert readout_floor(Q, Q, Q @ np.arange(1.0, 5.0)) < 1e-14


def test_fit_scales_picks_a_grid_scale_per_target():
    rng = np.random.default_rng(3)
    model = make_blocks(1, 2, rng)
    x = rng.uniform(-1, 1, size=(12, 1))
    scales = fit_scales(model, x, [x[:, 0], x[:, 0] ** 2])
    assert len(scales) == 2 and all(s in SCALES for s in scales)
    Z = features(model, x, variant="softmax_scaled", scale=scales[0])
    assert np.linalg.norm(Z @ fit_readout(Z, x[:, 0]) - x[:, 0]) > 0.1
