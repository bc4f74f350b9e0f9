"""Claims of the trained-models stage at small scale (thresholds from the mathematics)."""

import numpy as np
import pandas as pd
import pytest

from expressivity.claims import stage_claims
from expressivity.contextual_mapping import draw_projection
from expressivity.datasets import token_separated_dataset
from expressivity.sparse_patterns import pattern_masks
from expressivity.training import (
    configure_torch,
    construction_parameters,
    hardmax_ceiling,
    memorize,
    minimal_width,
    token_ceiling,
    train_encoder,
)

configure_torch(1)


@pytest.fixture(scope="module")
def ds():
    return token_separated_dataset(np.random.default_rng(11), 24, 6, 4, 20, 2)


@pytest.fixture(scope="module")
def learned(ds):
    return memorize(ds, width=64, epochs=2000, lr=0.03, seed=1)


def test_rank1_tied_model_memorizes(learned):
    assert learned["accuracy"] == 1.0


def test_fixed_projection_memorizes(ds):
    v, _, _ = draw_projection(np.random.default_rng(0), ds.vocab)
    res = memorize(ds, width=64, w_fixed=v.reshape(1, -1, 1), epochs=2000, lr=0.03, seed=2)
    assert res["accuracy"] == 1.0


def test_no_attention_is_capped(ds):
    res = memorize(ds, width=64, heads=0, epochs=400, lr=0.03, seed=3)
    assert token_ceiling(ds) < 1.0
    assert res["accuracy"] <= token_ceiling(ds)


def test_hardmax_evaluation_fails_below_its_ceiling(ds, learned):
    w = learned["model"].attention.w.detach().numpy()[0, :, 0]
    ceiling = hardmax_ceiling(ds, w)
    assert learned["accuracy_hardmax"] <= ceiling < 1.0


def test_more_heads_and_rank_memorize(ds):
    assert memorize(ds, width=64, heads=2, head_size=2, epochs=2000, lr=0.03,
                    seed=4)["accuracy"] == 1.0


def test_trained_width_below_construction(ds):
    best, _ = minimal_width(ds, [8, 64], epochs=600, lr=0.03, seed=5)
    assert best is not None
    assert best <= construction_parameters(ds.N, ds.n, ds.d)["ffn_width"]


def _copy(pattern, depth, n=8, steps=150):
    rng = np.random.default_rng(0)
    cycle = pattern_masks(pattern, n, rng=rng)
    return train_encoder(rng, task="copy", n=n, vocab=4, mixers=["attention"] * depth,
                         masks=[cycle[i % len(cycle)] for i in range(depth)], d_model=16,
                         steps=steps, batch=16, lr=0.01, eval_size=128)["accuracy"]


def test_dense_copies():
    assert _copy("dense", 1) >= 0.99


def test_window_cannot_copy_beyond_its_reach():
    """Built to fail: one window layer (half-width 1) cannot see n/2 = 4 positions back, so the
    output is independent of the copied token: accuracy near chance 1/4, far below 0.99."""
    assert _copy("window", 1) < 0.6


def test_attention_beats_context_free_convolution():
    """A kernel-1 convolution sees no context: counting needs it, attention has it."""
    def run(mixers, kernel):
        return train_encoder(np.random.default_rng(1), task="count", n=8, vocab=4,
                             mixers=mixers, kernel=kernel, d_model=16, steps=150, batch=16,
                             lr=0.01, eval_size=128)["accuracy"]
    assert run(["attention", "attention"], 1) > run(["conv", "conv"], 1)


def _tables(accuracy=1.0):
    mem = pd.DataFrame([{
        "variant": v, "N": 20, "n": 4, "d": 6, "vocab_size": 24, "width": 64,
        "epochs_budget": 10, "accuracy": accuracy if v != "no_attention" else 0.8,
        "accuracy_hardmax": 0.6, "epochs_to_perfect": 5.0 if accuracy == 1.0 else np.nan,
        "hardmax_ceiling": 0.7, "token_ceiling": 0.8, "device": "cpu", "precision": "float32",
    } for v in ("learned", "fixed", "no_attention")])
    return {"memorization_summary": mem}


def test_claim_rank1_fails_on_one_error():
    claim = next(c for c in stage_claims("trained_models")
                 if c.id == "trained_models.rank1_memorizes")
    assert claim.judge(_tables(1.0))["status"] == "pass"
    assert claim.judge(_tables(0.995))["status"] == "fail"
