"""The rank-1 attention layer of Kajitsuka & Sato 2024, Thm 2 (expressivity.rank1.layer): its constants,
its outputs against the context values and the general attention, its key order."""

import math

import numpy as np
import pytest
from cases import rank1_case
from hypothesis import given, settings
from hypothesis import strategies as st

from expressivity.attention import self_attention
from expressivity.rank1.contexts import values_float
from expressivity.rank1.layer import (
    LN10,
    Rank1Layer,
    digits_bound,
    lam_theory,
    log10_delta_theory,
    output_scale,
    rank1_attention,
)


def test_layer_constants_lam_theory_delta_and_digits():
    assert math.isclose(lam_theory(3, 2, 5, 0.5, 1.0),
                        (2 * math.log(3) + 3) * math.pi * 2 * 6**4 / (8 * 0.5))
    # eq. (8)'s exponent equals 2 lam_theory r_max^2 (the spread of the scores) [D]
    lt = lam_theory(3, 2, 5, 0.5, 1.0)
    assert math.isclose(-log10_delta_theory(3, 2, 5, 0.5, 1.0, 2.0) * LN10, 2 * lt * 4,
                        rel_tol=1e-3)
    assert digits_bound(lt, 2.0) > 2 * lt * 4 / LN10


def test_layer_matches_its_context_values_and_the_general_attention():
    ds, v, cx, alpha = rank1_case(2)
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
