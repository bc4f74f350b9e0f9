"""Contexts of the rank-1 layer (expressivity.rank1.contexts): the values c of every (sequence,
position) in float64, ball arithmetic and exact rationals (the layer's two limits)."""



import numpy as np
from cases import rank1_case
from hypothesis import given, settings
from hypothesis import strategies as st

from expressivity.rank1.contexts import values_arb, values_exact
from expressivity.rank1.layer import (
    digits_bound,
    lam_theory,
    rank1_attention,
)
from expressivity.reference.memorization import (
    context_values_mpmath,
    limit_values_fractions,
)


def test_arb_values_are_the_mpmath_reference_values():
    ds, v, cx, _ = rank1_case(6, V=5, d=3, n=3)
    lam = lam_theory(3, 3, 5, ds.eps, ds.r_min) / 100
    digits = digits_bound(lam, ds.r_max)
    balls = values_arb(ds, cx, v, lam, digits)
    ref = context_values_mpmath(ds, cx, v, lam, digits)
    for ball, value in zip(balls, ref, strict=True):
        assert ball.rad() < 1e-50
        assert abs(float(ball.mid()) - float(value)) <= 1e-15 * max(1.0, abs(float(value)))


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10**6))
def test_exact_limits_are_the_float64_layer_at_lam_0_and_with_hardmax(seed):
    """``values_exact``: uniform averaging is the layer at lam = 0, hardmax the layer with hardmax
    attention (any lam > 0); the rationals agree with float64 to rounding."""
    ds, v, cx, alpha = rank1_case(seed, V=6, d=3, n=3)
    for arm, sigma, lam in (("uniform", "softmax", 0.0), ("hardmax", "hardmax", 2.5)):
        K, scale = values_exact(ds, cx, v, arm)
        assert [x * scale for x in K] == limit_values_fractions(ds, cx, v, arm)
        Y = rank1_attention(ds.inputs(), v, lam, alpha * v, sigma)
        for p in range(cx.n_contexts):
            y = Y[cx.seq[p], cx.pos[p]]
            expect = ds.vocab[cx.token[p]] + alpha * float(K[p] * scale) * cx.sign[p] * v
            assert np.allclose(y, expect, atol=1e-13), (arm, p)
