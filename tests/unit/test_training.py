"""The training loops: memorization stops at 100 %, the attention-free bound, determinism, bad input."""

import numpy as np
import pytest
from cases import TM_DATASET

from expressivity.accuracy_ceilings import token_ceiling
from expressivity.datasets import token_separated_dataset
from expressivity.torch_runtime import configure_torch
from expressivity.training import memorize, train_encoder

configure_torch(1)


def dataset(seed=0):
    return token_separated_dataset(np.random.default_rng(seed), **TM_DATASET)


def test_memorize_reaches_100_percent_and_stops_there():
    res = memorize(dataset(1), width=64, epochs=1500, lr=0.03, seed=3, record_every=50)
    assert res["accuracy"] == 1.0
    assert res["epochs_to_perfect"] == res["curve"][-1]["epoch"]
    assert res["curve"][-1]["accuracy"] == 1.0


def test_no_attention_cannot_memorize():
    """Built to fail: a token-wise model is capped by token_ceiling < 1 on set-dependent labels."""
    ds = dataset(2)
    assert token_ceiling(ds) < 1
    res = memorize(ds, width=64, heads=0, epochs=300, lr=0.03, seed=1)
    assert res["accuracy"] <= token_ceiling(ds) + 1e-12
    assert res["epochs_to_perfect"] is None


def test_two_runs_give_identical_curves():
    a, b = (train_encoder(np.random.default_rng(5), task="copy", n=8, vocab=4,
                          mixers=["attention", "conv"], d_model=8, steps=20, batch=8, lr=0.01,
                          eval_size=16, record_every=5) for _ in range(2))
    assert a == b
    ds = dataset(4)
    a, b = (memorize(ds, width=8, epochs=30, lr=0.01, seed=9) for _ in range(2))
    assert a["curve"] == b["curve"]


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="epochs"):
        memorize(dataset(), width=4, epochs=0, lr=0.1, seed=0)
    with pytest.raises(ValueError, match="unknown task"):
        train_encoder(np.random.default_rng(0), task="sort", n=4, vocab=2, mixers=["conv"],
                      steps=1, batch=1, lr=0.1)
