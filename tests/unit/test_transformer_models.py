"""The torch layers: the row-form formulas, permutation equivariance, masks, bad input."""

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from expressivity.attention import Head, self_attention
from expressivity.transformer_models import (
    SequenceEncoder,
    TiedAttention,
    TokenClassifier,
    hybrid_mixers,
)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**31), n=st.integers(1, 6), d=st.integers(1, 5),
       heads=st.integers(1, 3), s=st.integers(1, 3))
def test_tied_attention_is_the_row_form_layer(seed, n, d, heads, s):
    """TiedAttention = F(X) = X + sum_h softmax(lam_h Q K^T) V W_O with W_Q = W_K = W_V = w_h."""
    torch.manual_seed(seed)
    layer = TiedAttention(d, heads, s, dtype=torch.float64)
    with torch.no_grad():
        layer.log_lam.copy_(torch.randn(heads, dtype=torch.float64))
    X = np.random.default_rng(seed).standard_normal((n, d))
    w, W_O = layer.w.detach().numpy(), layer.W_O.detach().numpy()
    lam = np.exp(layer.log_lam.detach().numpy())
    ref_heads = [Head(W_Q=lam[h] * w[h], W_K=w[h], W_V=w[h], W_O=W_O[h]) for h in range(heads)]
    got = layer(torch.as_tensor(X[None]))[0].detach().numpy()
    np.testing.assert_allclose(got, self_attention(X, ref_heads), rtol=1e-10, atol=1e-10)
    got_hard = layer(torch.as_tensor(X[None]), sigma="hardmax")[0].detach().numpy()
    np.testing.assert_allclose(got_hard, self_attention(X, ref_heads, sigma="hardmax"),
                               rtol=1e-10, atol=1e-10)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**31), perm_seed=st.integers(0, 2**31))
def test_token_classifier_is_permutation_equivariant(seed, perm_seed):
    torch.manual_seed(seed)
    model = TokenClassifier(3, 4, 8, heads=2, head_size=2, dtype=torch.float64)
    X = torch.as_tensor(np.random.default_rng(seed).standard_normal((1, 5, 3)))
    perm = torch.as_tensor(np.random.default_rng(perm_seed).permutation(5))
    with torch.no_grad():
        torch.testing.assert_close(model(X)[:, perm], model(X[:, perm]))


def test_mask_blocks_information():
    """With a diagonal mask (attend self only) a token's output ignores every other token."""
    torch.manual_seed(0)
    n = 6
    model = SequenceEncoder(5, n, 8, ["attention", "attention"], 5, masks=[np.eye(n, dtype=bool)] * 2)
    a = torch.tensor([[1, 2, 3, 4, 0, 1]])
    b = torch.tensor([[1, 4, 0, 2, 3, 3]])
    with torch.no_grad():
        torch.testing.assert_close(model(a)[0, 0], model(b)[0, 0])
        assert not torch.allclose(model(a)[0, 1], model(b)[0, 1])


def test_hybrid_mixers():
    assert hybrid_mixers("conv", 1, 3) == ["conv", "conv", "attention"]
    with pytest.raises(ValueError, match="attention_layers"):
        hybrid_mixers("conv", 4, 3)


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="unknown mixer"):
        SequenceEncoder(4, 4, 8, ["lstm"], 4)
    with pytest.raises(ValueError, match="mask row 1"):
        SequenceEncoder(4, 2, 8, ["attention"], 4, masks=[np.array([[1, 0], [0, 0]], bool)])
    with pytest.raises(ValueError, match="w_fixed has shape"):
        TiedAttention(3, 1, 1, w_fixed=np.ones(3))
    with pytest.raises(ValueError, match="unknown attention normaliser"):
        TokenClassifier(3, 2, 4)(torch.zeros(1, 2, 3, dtype=torch.float64), sigma="sparsemax")
