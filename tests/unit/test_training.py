"""The training loops: early stopping at the target, the bounds the control arms cannot beat,
replicas side by side, determinism, bad input."""

import numpy as np
import pytest
from cases import TM_DATASET

from expressivity.accuracy_ceilings import blind_ceiling, token_ceiling
from expressivity.datasets import token_separated_dataset
from expressivity.segment_pairs import segment_pair_dataset
from expressivity.torch_runtime import configure_torch
from expressivity.training import memorize, train_encoders
from expressivity.training_protocol import Protocol

configure_torch(1)


def protocol(budget, window=100, target=1.0, every=1):
    return Protocol(target=target, budget=budget, every=every, window=window, min_gain=0.002)


def pairs(seed=0):
    return segment_pair_dataset(np.random.default_rng(seed), **TM_DATASET)


def test_memorize_reaches_100_percent_and_stops_there():
    """Random token sets (no pairs): mean pooling already separates them; every seed memorizes
    and its curve ends at the epoch it first reached 100 %."""
    ds = token_separated_dataset(np.random.default_rng(1), 32, 8, 4, 12, 2)
    res = memorize(ds, width=32, seeds=(1, 2), protocol=protocol(1500), lr=0.03,
                   record_every=50)
    for seed, run in zip((1, 2), res["runs"], strict=True):
        assert run["outcome"] == "reached" and run["accuracy"] == 1.0
        last = [p for p in res["curve"] if p["seed"] == seed][-1]
        assert last["epoch"] == run["steps_to_target"] and last["accuracy"] == 1.0


@pytest.mark.parametrize("sigma,heads", [("uniform", 1), ("hardmax", 1), ("softmax", 0)])
def test_control_arms_stay_below_their_ceilings(sigma, heads):
    """Built to fail: uniform attention and hardmax cannot beat the blind ceiling on segment pairs,
    a token-wise FFN cannot beat the token ceiling, whatever training does."""
    sp = pairs(2)
    ceiling = (token_ceiling(sp.dataset) if heads == 0 else blind_ceiling(sp.dataset, sp.pairs))
    assert ceiling < 1
    res = memorize(sp.dataset, width=32, seeds=(0, 1), protocol=protocol(400), lr=0.03,
                   heads=heads, sigma=sigma)
    for run in res["runs"]:
        assert run["accuracy"] <= ceiling + 1e-12
        assert run["outcome"] in ("plateau", "budget")


def test_two_runs_give_identical_results():
    sp = pairs(4)
    a, b = (memorize(sp.dataset, width=8, seeds=(9,), protocol=protocol(30), lr=0.01)
            for _ in range(2))
    assert a["curve"] == b["curve"]
    a, b = (train_encoders([np.random.default_rng(5), np.random.default_rng(6)], task="copy",
                           n=8, vocab=4, mixers=["attention", "conv"], d_model=8, batch=8,
                           lr=0.01, eval_size=16, protocol=protocol(20, 10, 0.99, 5))
            for _ in range(2))
    assert a == b and a[0] != a[1]


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="lr"):
        memorize(pairs().dataset, width=4, seeds=(0,), protocol=protocol(5), lr=0.0)
    with pytest.raises(ValueError, match="sigma"):
        memorize(pairs().dataset, width=4, seeds=(0,), protocol=protocol(5), lr=0.1,
                 sigma="sparsemax")
    with pytest.raises(ValueError, match="unknown task"):
        train_encoders([np.random.default_rng(0)], task="sort", n=4, vocab=2, mixers=["conv"],
                       batch=1, lr=0.1, protocol=protocol(5))
