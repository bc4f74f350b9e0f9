"""The accuracy ceilings bound every token-wise map after their context (exact bounds)."""

import numpy as np
import torch
from cases import TM_DATASET
from hypothesis import given, settings
from hypothesis import strategies as st

from expressivity.accuracy_ceilings import hardmax_ceiling, token_ceiling
from expressivity.datasets import token_separated_dataset
from expressivity.transformer_models import TokenClassifier


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**31))
def test_ceilings_bound_any_model(seed):
    """No FFN after a hardmax rank-1 layer beats hardmax_ceiling; none without attention beats
    token_ceiling (checked on random weights)."""
    ds = token_separated_dataset(np.random.default_rng(seed % 1000), **TM_DATASET)
    torch.manual_seed(seed)
    X, y = torch.as_tensor(ds.inputs()), torch.as_tensor(ds.labels)
    model = TokenClassifier(ds.d, 2, 16, dtype=torch.float64)
    free = TokenClassifier(ds.d, 2, 16, heads=0, dtype=torch.float64)
    with torch.no_grad():
        hard = float((model(X, "hardmax").argmax(-1) == y).double().mean())
        plain = float((free(X).argmax(-1) == y).double().mean())
    assert hard <= hardmax_ceiling(ds, model.attention.w.detach().numpy()[0, :, 0]) + 1e-12
    assert plain <= token_ceiling(ds) + 1e-12


def test_ceilings_are_one_when_every_group_has_one_label():
    """With one class every group is unanimous: both ceilings are exactly 1."""
    ds = token_separated_dataset(np.random.default_rng(0), **{**TM_DATASET, "n_classes": 1})
    assert token_ceiling(ds) == 1.0
    assert hardmax_ceiling(ds, np.ones(ds.d)) == 1.0
