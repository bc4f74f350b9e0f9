"""Torch models and training loops: formulas, bounds, determinism, bad input."""

import io

import numpy as np
import pandas as pd
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from expressivity.attention import Head, self_attention
from expressivity.datasets import token_separated_dataset
from expressivity.io import write_table
from expressivity.training import (
    configure_torch,
    construction_parameters,
    copy_task,
    count_task,
    hardmax_ceiling,
    hybrid_mixers,
    memorize,
    minimal_width,
    token_ceiling,
    train_encoder,
)
from expressivity.transformer_models import (
    SequenceEncoder,
    TiedAttention,
    TokenClassifier,
)

configure_torch(1)


def tiny(seed=0, **kw):
    args = dict(vocab_size=16, d=4, n=3, N=12, n_classes=2)
    args.update(kw)
    return token_separated_dataset(np.random.default_rng(seed), **args)


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


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**31))
def test_ceilings_bound_any_model(seed):
    """No FFN after a hardmax rank-1 layer beats hardmax_ceiling; none without attention beats
    token_ceiling (exact bounds, checked on random weights)."""
    ds = tiny(seed % 1000, N=20)
    torch.manual_seed(seed)
    X, y = torch.as_tensor(ds.inputs()), torch.as_tensor(ds.labels)
    model = TokenClassifier(ds.d, 2, 16, dtype=torch.float64)
    free = TokenClassifier(ds.d, 2, 16, heads=0, dtype=torch.float64)
    with torch.no_grad():
        hard = float((model(X, "hardmax").argmax(-1) == y).double().mean())
        plain = float((free(X).argmax(-1) == y).double().mean())
    assert hard <= hardmax_ceiling(ds, model.attention.w.detach().numpy()[0, :, 0]) + 1e-12
    assert plain <= token_ceiling(ds) + 1e-12


def test_memorize_reaches_100_percent_and_stops_there():
    ds = tiny(1)
    res = memorize(ds, width=64, epochs=1500, lr=0.03, seed=3, record_every=50)
    assert res["accuracy"] == 1.0
    assert res["epochs_to_perfect"] == res["curve"][-1]["epoch"]
    assert res["curve"][-1]["accuracy"] == 1.0


def test_no_attention_cannot_memorize():
    """Built to fail: a token-wise model is capped by token_ceiling < 1 on set-dependent labels."""
    ds = tiny(2, N=30)
    assert token_ceiling(ds) < 1
    res = memorize(ds, width=64, heads=0, epochs=300, lr=0.03, seed=1)
    assert res["accuracy"] <= token_ceiling(ds) + 1e-12
    assert res["epochs_to_perfect"] is None


def test_minimal_width_stops_at_first_success():
    ds = tiny(3)
    best, runs = minimal_width(ds, [1, 64, 128], epochs=800, lr=0.03, seed=2)
    assert best == runs[-1]["width"] and runs[-1]["accuracy"] == 1.0
    assert all(r["accuracy"] < 1.0 for r in runs[:-1])
    assert len(runs) <= 2


def test_construction_parameters():
    c = construction_parameters(N=500, n=6, d=10)
    assert c == {"attention": 40, "ffn": 6010, "ffn_width": 3000, "total": 6050}
    with pytest.raises(ValueError, match="N must be >= 1"):
        construction_parameters(0, 6, 10)


def test_tasks():
    rng = np.random.default_rng(0)
    tokens, targets, scored = copy_task(rng, 5, 8, 4)
    assert tokens.shape == targets.shape == scored.shape == (5, 8)
    assert np.all(tokens[:, 4:] == 0) and np.all(tokens[:, :4] >= 1)
    np.testing.assert_array_equal(targets[:, 4:], tokens[:, :4])
    assert scored[:, 4:].all() and not scored[:, :4].any()
    with pytest.raises(ValueError, match="even length"):
        copy_task(rng, 2, 7, 4)
    tokens, labels, _ = count_task(rng, 3, 10, 3, cap=20)
    for b in range(3):
        for k in range(10):
            assert labels[b, k] == np.sum(tokens[b] == tokens[b, k])


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


def _csv_bytes(res) -> bytes:
    path = io.StringIO()
    pd.DataFrame(res["curve"]).to_csv(path, index=False, float_format="%.17g")
    return path.getvalue().encode()


def test_two_runs_give_identical_csvs(tmp_path):
    runs = []
    for i in range(2):
        res = train_encoder(np.random.default_rng(5), task="copy", n=8, vocab=4,
                            mixers=["attention", "conv"], d_model=8, steps=20, batch=8,
                            lr=0.01, eval_size=16, record_every=5)
        write_table(pd.DataFrame(res["curve"]), tmp_path / f"run{i}.csv")
        runs.append((tmp_path / f"run{i}.csv").read_bytes())
    assert runs[0] == runs[1]
    ds = tiny(4)
    a, b = (memorize(ds, width=8, epochs=30, lr=0.01, seed=9) for _ in range(2))
    assert _csv_bytes(a) == _csv_bytes(b)


def test_hybrid_mixers():
    assert hybrid_mixers("conv", 1, 3) == ["conv", "conv", "attention"]
    with pytest.raises(ValueError, match="attention_layers"):
        hybrid_mixers("conv", 4, 3)


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="threads"):
        configure_torch(0)
    with pytest.raises(ValueError, match="device"):
        configure_torch(1, "tpu")
    with pytest.raises(ValueError, match="unknown mixer"):
        SequenceEncoder(4, 4, 8, ["lstm"], 4)
    with pytest.raises(ValueError, match="mask row 1"):
        SequenceEncoder(4, 2, 8, ["attention"], 4, masks=[np.array([[1, 0], [0, 0]], bool)])
    with pytest.raises(ValueError, match="w_fixed has shape"):
        TiedAttention(3, 1, 1, w_fixed=np.ones(3))
    with pytest.raises(ValueError, match="unknown attention normaliser"):
        TokenClassifier(3, 2, 4)(torch.zeros(1, 2, 3, dtype=torch.float64), sigma="sparsemax")
    with pytest.raises(ValueError, match="epochs"):
        memorize(tiny(), width=4, epochs=0, lr=0.1, seed=0)
    with pytest.raises(ValueError, match="unknown task"):
        train_encoder(np.random.default_rng(0), task="sort", n=4, vocab=2, mixers=["conv"],
                      steps=1, batch=1, lr=0.1)
