"""Unit tests: the construction (fixed weights, the input X, Gram logits, Las Vegas)."""

import math

import numpy as np
import pytest

from expressivity.approximation_check import check_logits, logit_values
from expressivity.fixed_module import (
    DENSE_N_MAX,
    Construction,
    coupled_factors,
    fixed_weights,
    gram_logits,
    identity_error,
    las_vegas,
)
from expressivity.random_projection import gaussian_columns_T, jl_dimension
from expressivity.sparse_target import make_target

EPS_R, EPS_Z = 1.0, 0.1


@pytest.mark.parametrize("form", ["row", "column"])
def test_construction_logits_through_fixed_weights(form):
    T = make_target("permutations", 24, 2, 4.0, np.random.default_rng(0))
    B = logit_values(T, EPS_R, EPS_Z)
    d = 40
    QT, KT = coupled_factors(T, B, np.random.default_rng(1), d, form)
    c = Construction(QT, KT, d, form)
    assert c.X.shape == (24, 2 * d)
    G = gaussian_columns_T(np.random.default_rng(1), 24, d).T / math.sqrt(d)
    Bd = T.to_dense(B)
    expected = Bd @ G @ G.T if form == "row" else G @ G.T @ Bd
    assert np.allclose(c.logits(), expected, atol=1e-12)
    assert np.allclose(QT.T @ KT / d, expected, atol=1e-12)
    W_Q, W_K = fixed_weights(d)
    assert W_Q.shape == (2 * d, d) and np.allclose(W_Q.T @ W_K, 0)
    assert identity_error(QT, KT, d) <= 1


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


def test_sparse_weights_are_the_fixed_weights():
    from expressivity.fixed_module import fingerprint, sparse_fixed_weights

    for d in (1, 7, 64):
        dense, sparse = fixed_weights(d), sparse_fixed_weights(d)
        assert all(np.array_equal(a, b.toarray()) for a, b in zip(dense, sparse, strict=True))
    assert fingerprint(*sparse_fixed_weights(9)) == fingerprint(*sparse_fixed_weights(9))
    assert fingerprint(*sparse_fixed_weights(9)) != fingerprint(*sparse_fixed_weights(10))
    with pytest.raises(ValueError, match="d must"):
        sparse_fixed_weights(0)


def test_las_vegas_through_the_weights_checks_the_attention_of_x():
    """Each draw is checked on X W_Q (X W_K)^T / sqrt(d); the returned construction is that draw,
    and the rows of ``logits(rows)`` are rows of the full logits."""
    T = make_target("block", 40, 2, 4.0, np.random.default_rng(8))
    d = jl_dimension(40, 2, 4.0, EPS_R, EPS_Z, 0.1)
    res = las_vegas(T, d, EPS_R, EPS_Z, np.random.default_rng(9), max_rounds=2, via_weights=True)
    assert res.ok and res.rounds == 1
    S = res.construction.logits()
    assert check_logits(T, S, EPS_R, EPS_Z).slack.min() == res.min_slack
    assert np.allclose(res.construction.logits(np.array([3, 17])), S[[3, 17]], rtol=0,
                       atol=1e-12)
    fail = las_vegas(T, 3, EPS_R, EPS_Z, np.random.default_rng(9), max_rounds=2, via_weights=True)
    assert not fail.ok and fail.rounds == 2 and fail.construction is None
    for bad, message in (({"d": 0}, "d must"), ({"max_rounds": 0}, "max_rounds")):
        kwargs = {"d": d, "max_rounds": 2, **bad}
        with pytest.raises(ValueError, match=message):
            las_vegas(T, kwargs["d"], EPS_R, EPS_Z, np.random.default_rng(0),
                      max_rounds=kwargs["max_rounds"])
