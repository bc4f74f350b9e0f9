"""Exhaustive separation of the rank-1 layer's outputs (expressivity.rank1.separation): float64,
direct ball arithmetic, certified normalised differences and the exact limits agree where they
should; float64 collapses where it must."""

import math

import numpy as np
import pytest
from cases import rank1_case
from hypothesis import given, settings
from hypothesis import strategies as st

from expressivity.rank1.contexts import contexts, values_exact, values_float
from expressivity.rank1.layer import (
    FLOAT64_DIGITS,
    Rank1Layer,
    digits_bound,
    lam_theory,
    log10_delta_theory,
)
from expressivity.rank1.separation import (
    cross_token_min,
    separation_arb,
    separation_certified,
    separation_exact,
    separation_float,
)
from expressivity.reference.memorization import (
    cross_token_min_brute_force,
    same_token_min_brute_force,
)


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 10**6), lam=st.sampled_from([0.0, 0.3, 2.0, 8.0]))
def test_certified_agrees_with_direct_arb_and_brute_force(seed, lam):
    ds, v, cx, alpha = rank1_case(seed, V=5, d=3, n=3)
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
    ds, v, cx, alpha = rank1_case(seed, V=6, d=2, n=3)
    c = values_float(cx, lam) * cx.sign
    fast = cross_token_min(ds, cx, c, alpha, v)
    assert math.isclose(fast, cross_token_min_brute_force(ds, cx, c, alpha, v), rel_tol=1e-9)
    assert fast >= ds.eps / 2 - 1e-12


def test_lam_theory_certified_and_float64_collapses():
    ds, v, cx, alpha = rank1_case(3, V=4, d=2, n=2)
    lt = lam_theory(2, 2, 4, ds.eps, ds.r_min)
    direct = separation_arb(ds, cx, Rank1Layer.for_dataset(ds, v, lt), digits_bound(lt, ds.r_max))
    assert direct.certified and direct.asymptotic_order  # the difference lemma's order
    assert direct.log10_delta >= log10_delta_theory(2, 2, 4, ds.eps, ds.r_min, ds.r_max)
    cert = separation_certified(ds, cx, Rank1Layer.for_dataset(ds, v, lt))
    assert math.isclose(cert.log10_delta, direct.log10_delta, abs_tol=1e-6)
    assert cert.digits_needed > FLOAT64_DIGITS
    assert separation_float(ds, cx, Rank1Layer.for_dataset(ds, v, lt)).log10_delta == -math.inf  # collapsed


def test_exact_separation_counts_collisions_and_refuses_bad_arguments():
    ds, v, cx, alpha = rank1_case(7, V=6, d=2, n=3)
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
