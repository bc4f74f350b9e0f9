"""The accuracy ceilings bound every token-wise map after their context (exact bounds)."""

import numpy as np
import torch
from cases import TM_DATASET
from hypothesis import given, settings
from hypothesis import strategies as st

from expressivity.accuracy_ceilings import (
    blind_ceiling,
    hardmax_ceiling,
    pair_conflicts,
    prefix_blind_ceiling,
    token_ceiling,
)
from expressivity.datasets import token_separated_dataset
from expressivity.segment_pairs import prefix_segment_pair_dataset, segment_pair_dataset
from expressivity.transformer_models import TokenClassifier


def accuracy(model, X, y, sigma="softmax"):
    with torch.no_grad():
        return (model(X, sigma).argmax(-1) == y).double().reshape(model.replicas, -1).mean(1)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**31))
def test_ceilings_bound_any_model(seed):
    """No FFN after a hardmax rank-1 layer beats hardmax_ceiling for its w; none after hardmax or
    uniform attention beats blind_ceiling; none without attention beats token_ceiling (random
    weights, three replicas)."""
    sp = segment_pair_dataset(np.random.default_rng(seed % 1000), **TM_DATASET)
    ds = sp.dataset
    X, y = torch.as_tensor(ds.inputs()), torch.as_tensor(ds.labels)
    seeds = (seed, seed + 1, seed + 2)
    model = TokenClassifier(ds.d, 2, 16, dtype=torch.float64, seeds=seeds)
    free = TokenClassifier(ds.d, 2, 16, heads=0, dtype=torch.float64, seeds=seeds)
    hard, uniform = accuracy(model, X, y, "hardmax"), accuracy(model, X, y, "uniform")
    for r in range(3):
        w = model.attention.w[r].detach().numpy()[0, :, 0]
        assert hard[r] <= hardmax_ceiling(ds, w) + 1e-12
        assert hard[r] <= blind_ceiling(ds, sp.pairs) + 1e-12
        assert uniform[r] <= blind_ceiling(ds, sp.pairs) + 1e-12
        assert hardmax_ceiling(ds, w) <= blind_ceiling(ds, sp.pairs) + 1e-12
    assert accuracy(free, X, y).max() <= token_ceiling(ds) + 1e-12


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**31))
def test_prefix_ceilings_bound_any_causal_model(seed):
    """The causal (masked) layer: no FFN after causal hardmax beats hardmax_ceiling(causal=True)
    for its w; none after causal hardmax or uniform attention beats prefix_blind_ceiling (random
    weights, three replicas, the prefix segment pairs of the trained causal arm)."""
    sp = prefix_segment_pair_dataset(np.random.default_rng(seed % 1000), **TM_DATASET)
    ds = sp.dataset
    X, y = torch.as_tensor(ds.inputs()), torch.as_tensor(ds.labels)
    model = TokenClassifier(ds.d, 2, 16, dtype=torch.float64, seeds=(seed, seed + 1, seed + 2),
                            causal=True)
    hard, uniform = accuracy(model, X, y, "hardmax"), accuracy(model, X, y, "uniform")
    ceiling = prefix_blind_ceiling(ds, sp.pairs)
    assert ceiling < 1
    for r in range(3):
        w = model.attention.w[r].detach().numpy()[0, :, 0]
        assert hard[r] <= hardmax_ceiling(ds, w, causal=True) + 1e-12
        assert max(hard[r], uniform[r]) <= ceiling + 1e-12
        assert hardmax_ceiling(ds, w, causal=True) <= ceiling + 1e-12


def test_ceilings_are_one_when_every_group_has_one_label():
    """With one class every group is unanimous: both ceilings are exactly 1."""
    ds = token_separated_dataset(np.random.default_rng(0), 32, 8, 4, 12, 1)
    assert token_ceiling(ds) == 1.0
    assert hardmax_ceiling(ds, np.ones(ds.d)) == 1.0


def test_blind_ceiling_counts_each_conflict_once():
    sp = segment_pair_dataset(np.random.default_rng(1), **TM_DATASET)
    ds = sp.dataset
    conflicts = 0
    for i_a, i_b in sp.pairs:
        a = dict(zip(ds.sequences[i_a].tolist(), ds.labels[i_a].tolist(), strict=True))
        b = dict(zip(ds.sequences[i_b].tolist(), ds.labels[i_b].tolist(), strict=True))
        conflicts += sum(a[t] != b[t] for t in set(a) & set(b))
    assert pair_conflicts(ds, sp.pairs) == conflicts >= len(sp.pairs)
    assert blind_ceiling(ds, sp.pairs) == 1 - conflicts / ds.sequences.size
