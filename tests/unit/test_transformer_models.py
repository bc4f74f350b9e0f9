"""The torch layers: the row-form formulas, permutation equivariance, masks, bad input."""

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch.nn import functional as F

from expressivity.attention import Head, self_attention
from expressivity.sequence_encoder import (
    DepthwiseSeparableConv,
    MaskedSelfAttention,
    SequenceEncoder,
    generators,
    hybrid_mixers,
)
from expressivity.transformer_models import TiedAttention, TokenClassifier, _normalise


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**31), n=st.integers(1, 6), d=st.integers(1, 5),
       heads=st.integers(1, 3), s=st.integers(1, 3))
def test_tied_attention_is_the_row_form_layer(seed, n, d, heads, s):
    """TiedAttention = F(X) = X + sum_h sigma(lam_h Q K^T) V W_O with W_Q = W_K = W_V = w_h, for
    each of two replicas; uniform attention is sigma = softmax at beta = 0."""
    layer = TiedAttention(d, heads, s, dtype=torch.float64, seeds=(seed, seed + 1))
    with torch.no_grad():
        layer.log_lam.copy_(torch.randn(2, heads, dtype=torch.float64))
    X = np.random.default_rng(seed).standard_normal((n, d))
    got = {sigma: layer(torch.as_tensor(X[None]), sigma=sigma)[:, 0].detach().numpy()
           for sigma in ("softmax", "hardmax", "uniform")}
    for r in range(2):
        w, W_O = layer.w[r].detach().numpy(), layer.W_O[r].detach().numpy()
        lam = np.exp(layer.log_lam[r].detach().numpy())
        ref = [Head(W_Q=lam[h] * w[h], W_K=w[h], W_V=w[h], W_O=W_O[h]) for h in range(heads)]
        for sigma in ("softmax", "hardmax"):
            np.testing.assert_allclose(got[sigma][r], self_attention(X, ref, sigma=sigma),
                                       rtol=1e-10, atol=1e-10)
        np.testing.assert_allclose(got["uniform"][r], self_attention(X, ref, beta=0.0),
                                   rtol=1e-10, atol=1e-10)


def test_replicas_are_independent_models():
    """Replica r of a model built with several seeds is the model built with its seed alone."""
    X = torch.as_tensor(np.random.default_rng(0).standard_normal((2, 5, 3)))
    both = TokenClassifier(3, 4, 8, heads=2, head_size=2, seeds=(11, 12))
    alone = TokenClassifier(3, 4, 8, heads=2, head_size=2, seeds=(12,))
    with torch.no_grad():
        torch.testing.assert_close(both(X)[1], alone(X)[0])
        assert not torch.allclose(both(X)[0], both(X)[1])


def test_replicas_of_several_widths_are_their_own_widths_models():
    """A replica narrower than the widest is its own width's model, zero-padded: the same logits,
    the same parameter count, and padded units that get no gradient (so no optimiser moves them)."""
    X = torch.as_tensor(np.random.default_rng(0).standard_normal((2, 5, 3)))
    mixed = TokenClassifier(3, 4, [2, 8], heads=1, dtype=torch.float64, seeds=(11, 12))
    alone = [TokenClassifier(3, 4, q, heads=1, dtype=torch.float64, seeds=(s,))
             for q, s in ((2, 11), (8, 12))]
    with torch.no_grad():
        for r, model in enumerate(alone):
            torch.testing.assert_close(mixed(X)[r], model(X)[0])
    assert [mixed.ffn_parameters(r) for r in (0, 1)] == [m.ffn_parameters() for m in alone]
    mixed(X).square().sum().backward()
    assert mixed.W_1[0, :, 2:].abs().sum() == 0 and mixed.W_2[0, 2:].abs().sum() == 0
    for p in (mixed.W_1.grad[0, :, 2:], mixed.b_1.grad[0, 2:], mixed.W_2.grad[0, 2:]):
        assert p.abs().sum() == 0
    assert mixed.W_1.grad[0, :, :2].abs().sum() > 0
    with pytest.raises(ValueError, match="one per replica"):
        TokenClassifier(3, 4, [2, 8, 16], seeds=(1, 2))


def test_hardmax_trains_through_the_straight_through_estimator():
    """Forward: exact hardmax (ties averaged); backward: the softmax's gradient, so w learns."""
    S = torch.tensor([[1.0, 3.0, 3.0, 0.0]], requires_grad=True)
    A = _normalise(S, "hardmax")
    torch.testing.assert_close(A.detach(), torch.tensor([[0.0, 0.5, 0.5, 0.0]]))
    (A * torch.arange(4.0)).sum().backward()
    soft = torch.softmax(S.detach(), -1)
    expected = soft * (torch.arange(4.0) - (soft * torch.arange(4.0)).sum())
    torch.testing.assert_close(S.grad, expected)
    model = TokenClassifier(3, 2, 4, seeds=(0,))
    X = torch.as_tensor(np.random.default_rng(1).standard_normal((2, 4, 3)))
    model(X, "hardmax").sum().backward()
    assert model.attention.w.grad.abs().sum() > 0
    model.zero_grad()
    model(X, "uniform").sum().backward()
    assert model.attention.log_lam.grad is None  # lam plays no part at lam = 0


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**31), perm_seed=st.integers(0, 2**31))
def test_token_classifier_is_permutation_equivariant(seed, perm_seed):
    model = TokenClassifier(3, 4, 8, heads=2, head_size=2, dtype=torch.float64, seeds=(seed,))
    X = torch.as_tensor(np.random.default_rng(seed).standard_normal((1, 5, 3)))
    perm = torch.as_tensor(np.random.default_rng(perm_seed).permutation(5))
    with torch.no_grad():
        for sigma in ("softmax", "hardmax", "uniform"):
            torch.testing.assert_close(model(X, sigma)[:, :, perm], model(X[:, perm], sigma))


def test_mask_blocks_information():
    """With a diagonal mask (attend self only) a token's output ignores every other token."""
    n = 6
    model = SequenceEncoder(5, n, 8, ["attention", "attention"], 5, masks=[np.eye(n, dtype=bool)] * 2)
    a = torch.tensor([[[1, 2, 3, 4, 0, 1]]])
    b = torch.tensor([[[1, 4, 0, 2, 3, 3]]])
    with torch.no_grad():
        torch.testing.assert_close(model(a)[0, 0, 0], model(b)[0, 0, 0])
        assert not torch.allclose(model(a)[0, 0, 1], model(b)[0, 0, 1])


def test_a_mask_per_head_masks_each_head_alone():
    """A ``(heads, n, n)`` mask gives head h its own pattern: each head's output is
    ``softmax_{M_h}(Q_h K_h^T / sqrt(d_h)) V_h``, computed here by hand; the same mask for every
    head is the shared ``(n, n)`` mask."""
    n, d, heads = 5, 4, 2
    rng = np.random.default_rng(3)
    per_head = np.stack([np.eye(n, dtype=bool), (rng.random((n, n)) < 0.5) | np.eye(n, dtype=bool)])
    split = MaskedSelfAttention(d, heads, per_head)
    shared = MaskedSelfAttention(d, heads, per_head[1])
    shared.load_state_dict({**split.state_dict(), "mask": shared.mask})
    X = torch.as_tensor(rng.standard_normal((1, 2, n, d)), dtype=split.qkv.W.dtype)
    q, k, v = split.qkv(X).split(d, dim=-1)
    outs = []
    for h in range(heads):
        part = slice(h * d // heads, (h + 1) * d // heads)
        scores = q[..., part] @ k[..., part].transpose(-1, -2) / math.sqrt(d // heads)
        scores = scores.masked_fill(~torch.as_tensor(per_head[h]), float("-inf"))
        outs.append(torch.softmax(scores, dim=-1) @ v[..., part])
    with torch.no_grad():
        torch.testing.assert_close(split(X), split.out(torch.cat(outs, dim=-1)))
        both = MaskedSelfAttention(d, heads, np.stack([per_head[1]] * heads))
        both.load_state_dict({**split.state_dict(), "mask": both.mask})
        torch.testing.assert_close(both(X), shared(X))
    with pytest.raises(ValueError, match="row 2 of head 1 attends to no key"):
        bad = per_head.copy()
        bad[1, 2] = False
        MaskedSelfAttention(d, heads, bad)
    with pytest.raises(ValueError, match="a mask per head needs 2 masks, got 3"):
        MaskedSelfAttention(d, heads, np.ones((3, n, n), dtype=bool))


@pytest.mark.parametrize("mixers", [["attention", "conv"], ["bilinear", "attention"]])
def test_encoder_replicas_are_the_models_their_seeds_build_alone(mixers):
    """Replica r of an encoder built with several seeds is, byte for byte, the encoder its seed
    builds alone (weights and outputs): the replicas share nothing, not even their random draws."""
    n, mask = 6, np.tril(np.ones((6, 6), dtype=bool))
    masks = [mask if m == "attention" else None for m in mixers]
    both = SequenceEncoder(5, n, 8, mixers, 4, masks=masks, kernel=3, seeds=(3, 4))
    alone = SequenceEncoder(5, n, 8, mixers, 4, masks=masks, kernel=3, seeds=(4,))
    for (name, p), q in zip(both.named_parameters(), alone.parameters(), strict=True):
        assert torch.equal(p[1], q[0]), name
    tokens = torch.as_tensor(np.random.default_rng(0).integers(0, 5, (2, 3, n)))
    with torch.no_grad():
        torch.testing.assert_close(both(tokens)[1], alone(tokens[1:])[0])
        assert not torch.allclose(both(tokens)[0], both(tokens[[1, 1]])[0])


@pytest.mark.parametrize("n,kernel", [(7, 3), (7, 5), (4, 9), (1, 3)])
def test_the_convolution_is_each_channels_zero_padded_convolution(n, kernel):
    """``DepthwiseSeparableConv``'s band product gives, per replica and channel, the zero-padded
    cross-correlation ``sum_t w[c, t] X[i + t - kernel // 2, c]`` (torch's ``conv1d``), also with
    a kernel wider than the sequence, and the gradients of its weights and input."""
    conv = DepthwiseSeparableConv(4, kernel, generators((1, 2)))
    X = torch.randn(2, 3, n, 4, generator=torch.Generator().manual_seed(n * kernel),
                    requires_grad=True)
    mixed = conv(X) - conv.pointwise.b[:, None, None, :]
    expected = torch.stack([
        F.conv1d(X[r].transpose(1, 2), conv.depthwise[r, :, None, :], conv.depthwise_bias[r],
                 padding=kernel // 2, groups=4).transpose(1, 2) @ conv.pointwise.W[r]
        for r in range(2)])
    torch.testing.assert_close(mixed, expected)
    weight = torch.randn(mixed.shape, generator=torch.Generator().manual_seed(1))
    grads = [torch.autograd.grad((out * weight).sum(), (conv.depthwise, X)) for out in
             (mixed, expected)]
    for ours, torchs in zip(*grads, strict=True):
        torch.testing.assert_close(ours, torchs)


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
    with pytest.raises(ValueError, match="seed"):
        TiedAttention(3, 1, 1, seeds=())


@pytest.mark.parametrize("sigma", ["softmax", "hardmax", "uniform"])
def test_causal_layer_is_the_layer_on_each_prefix(sigma):
    """Masked attention: position k's output is the unmasked layer's on x_1..x_k, read at k (the
    same weights: the same seeds), so a causal model never sees a later token."""
    X = torch.as_tensor(np.random.default_rng(3).standard_normal((2, 5, 3)))
    causal = TokenClassifier(3, 4, 8, heads=2, head_size=2, dtype=torch.float64, seeds=(4, 5),
                             causal=True)
    full = TokenClassifier(3, 4, 8, heads=2, head_size=2, dtype=torch.float64, seeds=(4, 5))
    with torch.no_grad():
        out = causal(X, sigma)
        for k in range(5):
            torch.testing.assert_close(out[:, :, k], full(X[:, : k + 1], sigma)[:, :, k])
        assert not torch.allclose(out[:, :, 0], full(X, sigma)[:, :, 0])
    with pytest.raises(ValueError, match="causal"):
        TiedAttention(3, causal="yes")
