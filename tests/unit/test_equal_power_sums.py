"""Token sets with equal power sums: uniform averaging and hardmax provably fail, softmax separates
(``expressivity.equal_power_sums``; the family generalises Kajitsuka & Sato 2024's Theorem 1 pair)."""

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from expressivity.equal_power_sums import (
    equal_power_sum_pair,
    matched_degree,
    prouhet_sets,
    small_lam_log10_delta,
)
from expressivity.rank1.contexts import contexts
from expressivity.rank1.layer import Rank1Layer, lam_theory, output_scale, rank1_attention
from expressivity.rank1.projection import draw_projection
from expressivity.rank1.separation import separation_certified, separation_exact
from expressivity.theorem1 import THEOREM1_TOKENS


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(1, 40), min_size=2, max_size=4, unique=True))
def test_prouhet_sets_have_equal_power_sums_up_to_k_and_not_beyond(c):
    try:
        A, B = prouhet_sets(c)
    except ValueError:
        return  # two subsets with one sum: refused, not silently merged
    k = len(c) - 1
    assert len(A) == len(B) == 2**k and not set(A) & set(B)
    for j in range(1, k + 1):
        assert sum(a**j for a in A) == sum(b**j for b in B)
    # degree k + 1 differs by (k+1)! prod c (the (k+1)-fold finite difference)
    assert abs(sum(a ** (k + 1) for a in A) - sum(b ** (k + 1) for b in B)) == \
        math.factorial(k + 1) * math.prod(c)
    assert matched_degree(A, B) == k


def test_theorem1_pair_is_the_first_member():
    A, B = prouhet_sets([1, 3])
    assert [Fraction(4 + x, 2) for x in A] == [2, 4]  # (1, 2, 4, 5): interior 2, 4
    assert [Fraction(4 + x, 2) for x in B] == [Fraction(5, 2), Fraction(7, 2)]
    pair = equal_power_sum_pair(np.random.default_rng(0), family="theorem1", k=1, d=3,
                                n_classes=2)
    assert sorted(pair.t) == sorted(set(np.concatenate(THEOREM1_TOKENS)))
    assert pair.k == 1 and len(pair.shared) == 2


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10**6), k=st.integers(1, 3), d=st.integers(1, 5),
       extra=st.integers(0, 3))
def test_uniform_and_hardmax_give_delta_zero_exactly_and_softmax_separates(seed, k, d, extra):
    rng = np.random.default_rng(seed)
    pair = equal_power_sum_pair(rng, family="prouhet", k=k, d=d, n_classes=3, extra_shared=extra)
    ds = pair.dataset
    # the float64 tokens are exactly t e, and the vector sums of the two sets are equal exactly
    for i, t in enumerate(pair.t):
        assert all(Fraction(float(x)) == Fraction(float(t)) * Fraction(float(e))
                   for x, e in zip(ds.vocab[i], pair.e, strict=True))
    sums = [[sum(Fraction(float(ds.vocab[t, j])) for t in seq) for j in range(d)]
            for seq in ds.sequences]
    assert sums[0] == sums[1]
    v, _, _ = draw_projection(rng, ds.vocab)
    cx = contexts(ds, v)
    alpha = output_scale(ds.eps, ds.r_max)
    for arm in ("uniform", "hardmax"):
        res = separation_exact(ds, cx, Rank1Layer.for_dataset(ds, v, 0.0), arm)
        assert res.collisions == len(pair.shared) and res.log10_delta == -math.inf
    # hardmax in float64 agrees: the outputs at the shared tokens are bit for bit equal
    Y = rank1_attention(ds.inputs(), v, 3.0, alpha * v, "hardmax")
    for t in pair.shared:
        i, j = (list(seq).index(t) for seq in ds.sequences)
        assert np.array_equal(Y[0, i], Y[1, j])
    # every shared token carries two labels: no token-wise readout can memorize both
    for t in pair.shared:
        i, j = (list(seq).index(t) for seq in ds.sequences)
        assert ds.labels[0, i] != ds.labels[1, j]
    lt = lam_theory(ds.n, ds.d, ds.vocab_size, ds.eps, ds.r_min)
    for lam in (1.0, lt):
        sep = separation_certified(ds, cx, Rank1Layer.for_dataset(ds, v, lam))
        assert sep.certified and math.isfinite(sep.log10_delta)


@pytest.mark.parametrize("k", [1, 2, 3])
def test_softmax_separation_vanishes_like_lam_to_the_k(k):
    """Built to fail if the order were wrong: lam^(k-1) or lam^(k+1) miss by a decade a decade."""
    rng = np.random.default_rng(k)
    pair = equal_power_sum_pair(rng, family="prouhet", k=k, d=2, n_classes=2)
    ds = pair.dataset
    v, _, _ = draw_projection(rng, ds.vocab)
    cx = contexts(ds, v)
    alpha = output_scale(ds.eps, ds.r_max)
    coef = small_lam_log10_delta(pair, v, alpha)
    for lam in (1e-4, 1e-3):
        measured = separation_certified(ds, cx, Rank1Layer.for_dataset(ds, v, lam)).log10_delta
        assert abs(measured - (coef + k * math.log10(lam))) < 1e-3


def test_bad_arguments_are_named():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="family must be one of"):
        equal_power_sum_pair(rng, family="random", k=1, d=2, n_classes=2)
    with pytest.raises(ValueError, match="n_classes must be an integer >= 2"):
        equal_power_sum_pair(rng, family="prouhet", k=1, d=2, n_classes=1)
    with pytest.raises(ValueError, match="k must be an integer >= 1"):
        equal_power_sum_pair(rng, family="prouhet", k=0, d=2, n_classes=2)
    with pytest.raises(ValueError, match="c = \\[1, 2, 3\\]: two subsets have the same sum"):
        prouhet_sets([1, 2, 3])
    with pytest.raises(ValueError, match="c must hold at least 2"):
        prouhet_sets([4])
