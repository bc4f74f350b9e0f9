"""The rank-1 contextual mapping (Kajitsuka & Sato 2024, Thm 2): construction and verification."""

import math
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from expressivity.attention import self_attention
from expressivity.datasets import token_separated_dataset
from expressivity.rank1.contexts import contexts, values_arb, values_exact, values_float
from expressivity.rank1.layer import (
    FLOAT64_DIGITS,
    LN10,
    Rank1Layer,
    digits_bound,
    lam_theory,
    log10_delta_theory,
    output_scale,
    rank1_attention,
)
from expressivity.rank1.pair_sums import PairSums, last_crossing_search
from expressivity.rank1.projection import draw_projection, projection_constant, projection_ratio
from expressivity.rank1.separation import (
    cross_token_min,
    separation_arb,
    separation_certified,
    separation_exact,
    separation_float,
)
from expressivity.reference.memorization import (
    context_values_mpmath,
    cross_token_min_brute_force,
    limit_values_fractions,
    same_token_min_brute_force,
)


def setup(seed, V=5, d=2, n=2, N=None, eps=1.0):
    rng = np.random.default_rng(seed)
    ds = token_separated_dataset(rng, V, d, n, N or math.comb(V, n), 3, eps=eps)
    v, draws, ratio = draw_projection(rng, ds.vocab)
    return ds, v, contexts(ds, v), output_scale(ds.eps, ds.r_max)


def test_projection_meets_lemma_bound_and_constants():
    ds, v, cx, _ = setup(0)
    assert projection_ratio(ds.vocab, v) >= projection_constant(5, 2)
    assert math.isclose(lam_theory(3, 2, 5, 0.5, 1.0),
                        (2 * math.log(3) + 3) * math.pi * 2 * 6**4 / (8 * 0.5))
    # eq. (8)'s exponent equals 2 lam_theory r_max^2 (the spread of the scores) [D]
    lt = lam_theory(3, 2, 5, 0.5, 1.0)
    assert math.isclose(-log10_delta_theory(3, 2, 5, 0.5, 1.0, 2.0) * LN10, 2 * lt * 4,
                        rel_tol=1e-3)
    assert digits_bound(lt, 2.0) > 2 * lt * 4 / LN10


def test_projection_orthogonal_to_a_token_is_refused():
    ds, v, _, _ = setup(1)
    vocab = ds.vocab.copy()
    vocab[0] = [0.0, 1.5]
    ds = replace(ds, vocab=vocab)
    perp = np.array([1.0, 0.0])
    assert projection_ratio(ds.vocab, perp) == 0  # fails the lemma's bound
    with pytest.raises(ValueError, match="projects to 0"):
        contexts(ds, perp)


def test_layer_matches_its_context_values_and_the_general_attention():
    ds, v, cx, alpha = setup(2)
    layer = Rank1Layer.for_dataset(ds, v, lam=3.0)
    C = values_float(cx, 3.0) * cx.sign
    for p in range(cx.n_contexts):
        X = ds.vocab[ds.sequences[cx.seq[p]]]
        y = layer(X)[cx.pos[p]]
        assert np.allclose(y, ds.vocab[cx.token[p]] + alpha * C[p] * v, atol=1e-12)
        for sigma in ("softmax", "hardmax"):
            assert np.allclose(layer(X, sigma), self_attention(X, [layer.head], sigma=sigma),
                               atol=1e-12)
    batch = ds.inputs()
    assert np.array_equal(layer(batch), np.stack([layer(X) for X in batch]))


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(1, 8), lam=st.floats(0, 50))
def test_rank1_attention_is_the_same_for_every_order_of_the_keys(seed, n, lam):
    """The keys are summed in increasing ``z``: a permuted sequence gives the permuted outputs,
    bit for bit."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 3))
    v = rng.standard_normal(3)
    v /= np.linalg.norm(v)
    perm = rng.permutation(n)
    Y = rank1_attention(X, v, lam, 0.1 * v)
    assert np.array_equal(rank1_attention(X[perm], v, lam, 0.1 * v), Y[perm])


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 10**6), lam=st.sampled_from([0.0, 0.3, 2.0, 8.0]))
def test_certified_agrees_with_direct_arb_and_brute_force(seed, lam):
    ds, v, cx, alpha = setup(seed, V=5, d=3, n=3)
    cert = separation_certified(ds, cx, Rank1Layer.for_dataset(ds, v, lam))
    direct = separation_arb(ds, cx, Rank1Layer.for_dataset(ds, v, lam), digits=60)
    assert cert.certified and direct.certified
    assert math.isclose(cert.log10_delta_same, direct.log10_delta_same, abs_tol=1e-6)
    # brute force over all pairs in float64 (lam small: float64 is accurate here)
    brute = same_token_min_brute_force(cx, values_float(cx, lam))
    if brute > 1e-10:  # float64 resolves it (at larger lam it collapses, see below)
        assert math.isclose(math.log10(alpha * brute), cert.log10_delta_same, abs_tol=1e-4)
    assert cert.max_norm <= ds.r_max + ds.eps / 4


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10**6), lam=st.floats(0, 20))
def test_cross_token_min_is_the_brute_force_minimum(seed, lam):
    ds, v, cx, alpha = setup(seed, V=6, d=2, n=3)
    c = values_float(cx, lam) * cx.sign
    fast = cross_token_min(ds, cx, c, alpha, v)
    assert math.isclose(fast, cross_token_min_brute_force(ds, cx, c, alpha, v), rel_tol=1e-9)
    assert fast >= ds.eps / 2 - 1e-12


def test_arb_values_are_the_mpmath_reference_values():
    ds, v, cx, _ = setup(6, V=5, d=3, n=3)
    lam = lam_theory(3, 3, 5, ds.eps, ds.r_min) / 100
    digits = digits_bound(lam, ds.r_max)
    balls = values_arb(ds, cx, v, lam, digits)
    ref = context_values_mpmath(ds, cx, v, lam, digits)
    for ball, value in zip(balls, ref, strict=True):
        assert ball.rad() < 1e-50
        assert abs(float(ball.mid()) - float(value)) <= 1e-15 * max(1.0, abs(float(value)))


def test_lam_theory_certified_and_float64_collapses():
    ds, v, cx, alpha = setup(3, V=4, d=2, n=2)
    lt = lam_theory(2, 2, 4, ds.eps, ds.r_min)
    direct = separation_arb(ds, cx, Rank1Layer.for_dataset(ds, v, lt), digits_bound(lt, ds.r_max))
    assert direct.certified and direct.asymptotic_order  # the difference lemma's order
    assert direct.log10_delta >= log10_delta_theory(2, 2, 4, ds.eps, ds.r_min, ds.r_max)
    cert = separation_certified(ds, cx, Rank1Layer.for_dataset(ds, v, lt))
    assert math.isclose(cert.log10_delta, direct.log10_delta, abs_tol=1e-6)
    assert cert.digits_needed > FLOAT64_DIGITS
    assert separation_float(ds, cx, Rank1Layer.for_dataset(ds, v, lt)).log10_delta == -math.inf  # collapsed


def test_last_crossing_is_sufficient_not_the_smallest_lam_that_separates():
    ds, v, cx, alpha = setup(4, V=6, d=2, n=3)
    last = last_crossing_search(cx)["lam_last_crossing"]
    assert last > 0
    above = separation_certified(ds, cx, Rank1Layer.for_dataset(ds, v, last * 1.001))
    assert above.certified and above.asymptotic_order
    # just below the last crossing the asymptotic order is broken (two contexts swapped)
    below = separation_certified(ds, cx, Rank1Layer.for_dataset(ds, v, last * 0.999))
    assert not below.asymptotic_order
    # and above it the order holds on a whole grid up to lam_theory
    lt = lam_theory(3, 2, 6, ds.eps, ds.r_min)
    for lam in np.geomspace(last * 1.01, lt, 6):
        assert separation_certified(ds, cx, Rank1Layer.for_dataset(ds, v, lam)).asymptotic_order
    # far below it the layer still separates these random data: uniform averaging (lam = 0) does
    assert separation_exact(ds, cx, Rank1Layer.for_dataset(ds, v, 0.0), "uniform").collisions == 0
    assert separation_certified(ds, cx, Rank1Layer.for_dataset(ds, v, last / 4)).certified


def test_pair_sums_are_the_differences_of_context_values():
    """``C_hi - C_lo = F(b) e^{b smax} / (Z_hi Z_lo)`` with the cancelling terms dropped."""
    ds, v, cx, _ = setup(5, V=6, d=3, n=3)
    lo, hi = cx.adjacent_pairs()
    ps = PairSums.build(cx, lo, hi)
    lam = 0.5
    b = lam * ps.scale
    F, err = ps.F(b)

    def log_z(w):
        return w[:, 0] * b + np.log(np.exp(b[:, None] * (w - w[:, :1])).sum(1))

    C = values_float(cx, lam)
    diff = C[hi] - C[lo]
    ok = (np.abs(diff) > 1e-10) & (np.abs(F) > err)
    assert ok.sum() >= len(lo) // 2
    assert np.array_equal(np.sign(F[ok]), np.sign(diff[ok]))
    logg = np.log(np.abs(F[ok])) + b[ok] * ps.smax[ok] - log_z(ps.w_hi)[ok] - log_z(ps.w_lo)[ok]
    assert np.allclose(logg, np.log(np.abs(diff[ok])), atol=1e-5)


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10**6))
def test_exact_limits_are_the_float64_layer_at_lam_0_and_with_hardmax(seed):
    """``values_exact``: uniform averaging is the layer at lam = 0, hardmax the layer with hardmax
    attention (any lam > 0); the rationals agree with float64 to rounding."""
    ds, v, cx, alpha = setup(seed, V=6, d=3, n=3)
    for arm, sigma, lam in (("uniform", "softmax", 0.0), ("hardmax", "hardmax", 2.5)):
        K, scale = values_exact(ds, cx, v, arm)
        assert [x * scale for x in K] == limit_values_fractions(ds, cx, v, arm)
        Y = rank1_attention(ds.inputs(), v, lam, alpha * v, sigma)
        for p in range(cx.n_contexts):
            y = Y[cx.seq[p], cx.pos[p]]
            expect = ds.vocab[cx.token[p]] + alpha * float(K[p] * scale) * cx.sign[p] * v
            assert np.allclose(y, expect, atol=1e-13), (arm, p)


def test_exact_separation_counts_collisions_and_refuses_bad_arguments():
    ds, v, cx, alpha = setup(7, V=6, d=2, n=3)
    hard = separation_exact(ds, cx, Rank1Layer.for_dataset(ds, v, 0.0), "hardmax")
    # contexts of a token whose largest w is shared collide under hardmax: counted exactly
    K, _ = values_exact(ds, cx, v, "hardmax")
    pairs = sum(1 for i in range(cx.n_contexts) for j in range(i + 1, cx.n_contexts)
                if cx.token[i] == cx.token[j] and K[i] == K[j])
    assert hard.collisions == pairs > 0 and hard.log10_delta == -math.inf
    with pytest.raises(ValueError, match="arm must be one of"):
        separation_exact(ds, cx, Rank1Layer.for_dataset(ds, v, 0.0), "mean")
    with pytest.raises(ValueError, match="alpha must be"):
        separation_exact(ds, cx, Rank1Layer(v=v, u=v, lam=0.0, alpha=-1.0), "uniform")
    with pytest.raises(ValueError, match="lam must be a finite number >= 0"):
        separation_certified(ds, cx, Rank1Layer.for_dataset(ds, v, math.nan))
    with pytest.raises(ValueError, match="u must be a finite vector of shape"):
        separation_float(ds, cx, Rank1Layer(v=v, u=v[:1], lam=1.0, alpha=alpha))
    with pytest.raises(ValueError, match="v must be a finite vector of shape"):
        contexts(ds, np.ones(5))


def test_projection_ratio_in_blocks_is_the_all_pairs_minimum(monkeypatch):
    import expressivity.rank1.projection as projection

    ds, v, _, _ = setup(8, V=9, d=3, n=2)
    pts = np.vstack([ds.vocab, np.zeros((1, 3))])
    i, j = np.triu_indices(len(pts), 1)
    diff = pts[i] - pts[j]
    brute = float(np.min(np.abs(diff @ v) / np.linalg.norm(diff, axis=1)))
    assert math.isclose(projection_ratio(ds.vocab, v), brute, rel_tol=1e-12)
    monkeypatch.setattr(projection, "_BLOCK_VALUES", 7)  # one row of pairs at a time
    assert math.isclose(projection_ratio(ds.vocab, v), brute, rel_tol=1e-12)
    with pytest.raises(ValueError, match="vocab_size must be an integer"):
        projection_constant(0, 2)


def test_layer_constants_refuse_bad_arguments():
    with pytest.raises(ValueError, match="eps must be a finite number > 0"):
        output_scale(math.nan, 2.0)
    with pytest.raises(ValueError, match="n must be an integer >= 1"):
        lam_theory(0, 2, 4, 1.0, 1.0)
    with pytest.raises(ValueError, match="r_min must be a finite number > 0"):
        lam_theory(2, 2, 4, 1.0, -1.0)
    with pytest.raises(ValueError, match="W_O must have shape"):
        rank1_attention(np.ones((3, 2)), np.ones(2), 1.0, np.ones(3))
    with pytest.raises(ValueError, match="T must be finite"):
        rank1_attention(np.full((3, 2), np.nan), np.ones(2), 1.0, np.ones(2))
    with pytest.raises(ValueError, match="n_grid must be an integer >= 3"):
        last_crossing_search(setup(0)[2], n_grid=1)
