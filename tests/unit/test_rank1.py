"""The rank-1 contextual mapping (Kajitsuka & Sato 2024, Thm 2): construction and verification."""

import math
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from expressivity import contextual_mapping as cm
from expressivity.datasets import token_separated_dataset


def setup(seed, V=5, d=2, n=2, N=None, eps=1.0):  # noqa: N803
    rng = np.random.default_rng(seed)
    ds = token_separated_dataset(rng, V, d, n, N or math.comb(V, n), 3, eps=eps)
    v, draws, ratio = cm.draw_projection(rng, ds.vocab)
    return ds, v, cm.contexts(ds, v), ds.eps / (4 * ds.r_max)


def brute_same_min(cx, C):
    best = math.inf
    for i in range(cx.n_contexts):
        for j in range(i + 1, cx.n_contexts):
            if cx.token[i] == cx.token[j]:
                best = min(best, abs(C[i] - C[j]))
    return best


def test_projection_meets_lemma_bound_and_constants():
    ds, v, cx, _ = setup(0)
    assert cm.projection_ratio(ds.vocab, v) >= cm.projection_constant(5, 2)
    assert math.isclose(cm.lam_theory(3, 2, 5, 0.5, 1.0),
                        (2 * math.log(3) + 3) * math.pi * 2 * 6**4 / (8 * 0.5))
    # eq. (8)'s exponent equals 2 lam_theory r_max^2 (the spread of the scores) [D]
    lt = cm.lam_theory(3, 2, 5, 0.5, 1.0)
    assert math.isclose(-cm.log10_delta_theory(3, 2, 5, 0.5, 1.0, 2.0) * cm.LN10,
                        2 * lt * 4, rel_tol=1e-3)
    assert cm.digits_bound(lt, 2.0) > 2 * lt * 4 / cm.LN10


def test_projection_orthogonal_to_a_token_is_refused():
    ds, v, _, _ = setup(1)
    vocab = ds.vocab.copy()
    vocab[0] = [0.0, 1.5]
    ds = replace(ds, vocab=vocab)
    perp = np.array([1.0, 0.0])
    assert cm.projection_ratio(ds.vocab, perp) == 0  # fails the lemma's bound
    with pytest.raises(ValueError, match="projects to 0"):
        cm.contexts(ds, perp)


def test_layer_matches_attention_primitives():
    ds, v, cx, alpha = setup(2)
    layer = cm.Rank1Layer.for_dataset(ds, v, lam=3.0)
    C = cm.values_float(cx, 3.0) * cx.sign
    for p in range(cx.n_contexts):
        X = ds.vocab[ds.sequences[cx.seq[p]]]
        y = layer(X)[cx.pos[p]]
        assert np.allclose(y, ds.vocab[cx.token[p]] + alpha * C[p] * v, atol=1e-12)


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 10**6), lam=st.sampled_from([0.0, 0.3, 2.0, 8.0]))
def test_certified_agrees_with_direct_arb_and_brute_force(seed, lam):
    ds, v, cx, alpha = setup(seed, V=5, d=3, n=3)
    cert = cm.separation_certified(ds, cx, v, lam, alpha, v)
    direct = cm.separation_arb(ds, cx, v, lam, alpha, v, digits=60)
    assert cert["certified"] and direct["certified"]
    assert math.isclose(cert["log10_delta_same"], direct["log10_delta_same"], abs_tol=1e-6)
    # brute force over all pairs in float64 (lam small: float64 is accurate here)
    brute = brute_same_min(cx, cm.values_float(cx, lam))
    if brute > 1e-10:  # float64 resolves it (at larger lam it collapses, see below)
        assert math.isclose(math.log10(alpha * brute), cert["log10_delta_same"], abs_tol=1e-4)
    assert cert["max_norm"] <= ds.r_max + ds.eps / 4


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10**6), lam=st.floats(0, 20))
def test_cross_token_min_is_the_brute_force_minimum(seed, lam):
    ds, v, cx, alpha = setup(seed, V=6, d=2, n=3)
    c = cm.values_float(cx, lam) * cx.sign
    y = ds.vocab[cx.token] + alpha * c[:, None] * v[None, :]
    D = np.linalg.norm(y[:, None] - y[None], axis=-1)
    D[cx.token[:, None] == cx.token[None, :]] = np.inf
    assert math.isclose(cm.cross_token_min(ds, cx, c, alpha, v), D.min(), rel_tol=1e-9)
    assert cm.cross_token_min(ds, cx, c, alpha, v) >= ds.eps / 2 - 1e-12


def test_lam_theory_certified_and_float64_collapses():
    ds, v, cx, alpha = setup(3, V=4, d=2, n=2)
    lt = cm.lam_theory(2, 2, 4, ds.eps, ds.r_min)
    direct = cm.separation_arb(ds, cx, v, lt, alpha, v, cm.digits_bound(lt, ds.r_max))
    assert direct["certified"] and direct["asymptotic_order"]  # the difference lemma's order
    assert direct["log10_delta"] >= cm.log10_delta_theory(2, 2, 4, ds.eps, ds.r_min, ds.r_max)
    cert = cm.separation_certified(ds, cx, v, lt, alpha, v)
    assert math.isclose(cert["log10_delta"], direct["log10_delta"], abs_tol=1e-6)
    assert cert["digits_needed"] > cm.FLOAT64_DIGITS
    assert cm.separation_float(ds, cx, lt, alpha, v)["log10_delta"] == -math.inf  # collapsed


def test_lam_min_is_the_last_crossing():
    ds, v, cx, alpha = setup(4, V=6, d=2, n=3)
    lam_min = cm.lam_min_search(cx)["lam_min"]
    assert lam_min > 0
    above = cm.separation_certified(ds, cx, v, lam_min * 1.001, alpha, v)
    assert above["certified"] and above["asymptotic_order"]
    # just below the last crossing the asymptotic order is broken (two contexts swapped)
    below = cm.separation_certified(ds, cx, v, lam_min * 0.999, alpha, v)
    assert not below["asymptotic_order"]
    # and above it the order holds on a whole grid up to lam_theory
    lt = cm.lam_theory(3, 2, 6, ds.eps, ds.r_min)
    for lam in np.geomspace(lam_min * 1.01, lt, 6):
        assert cm.separation_certified(ds, cx, v, lam, alpha, v)["asymptotic_order"]


def test_normalised_log_gap_matches_float_differences():
    ds, v, cx, _ = setup(5, V=6, d=3, n=3)
    lo, hi = cx.adjacent_pairs()
    ps = cm.PairSums.build(cx, lo, hi)
    lam = 0.5
    C = cm.values_float(cx, lam)
    logg, F, err = ps.log_gap(lam * ps.scale)
    diff = C[hi] - C[lo]
    ok = diff > 1e-10
    assert np.allclose(logg[ok], np.log(diff[ok]), atol=1e-5)
