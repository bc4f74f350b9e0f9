"""Theorem 1's counterexample: hardmax is blind to it, the explicit softmax memorizer is not."""

import numpy as np
import pytest
from cases import HVS_THEOREM1

import expressivity.theorem1 as t1
from expressivity.experiments.hardmax_vs_softmax.theorem1 import theorem1_tables
from expressivity.theorem1 import (
    THEOREM1_LABELS,
    explicit_memorizer,
    random_heads,
    shared_token_gap,
    shared_tokens_equal_exactly,
    theorem1_sequences,
)


def test_sequences_share_extremes_and_mean_but_differ_inside():
    X1, X2 = theorem1_sequences(np.array([0.6, 0.8]))
    assert np.allclose(X1.mean(0), X2.mean(0))
    assert np.allclose(X1[[0, 3]], X2[[0, 3]])
    assert not np.allclose(X1[1:3], X2[1:3])


@pytest.mark.parametrize("scale", [0.0, 0.3, 3.0])
def test_hardmax_outputs_equal_exactly_softmax_outputs_differ(scale):
    rng = np.random.default_rng(11)
    e = np.array([1.0, 2.0, 2.0]) / 3
    for _ in range(20):
        heads = random_heads(rng, 3, int(rng.integers(1, 6)), int(rng.integers(1, 4)), scale)
        assert shared_tokens_equal_exactly(heads, e)
        assert shared_token_gap(heads, e, "hardmax") <= 1e-12
    if scale > 0:
        assert shared_token_gap(heads, e, "softmax") > 1e-6


def test_exact_check_detects_a_difference(monkeypatch):
    # A sequence pair that is NOT a counterexample (different maxima) must be caught.
    heads = random_heads(np.random.default_rng(3), 2, 1, 1, 1.0)
    monkeypatch.setattr(t1, "THEOREM1_TOKENS",
                        (np.array([1.0, 2.0, 4.0, 5.0]), np.array([1.0, 2.5, 3.5, 6.0])))
    assert not shared_tokens_equal_exactly(heads, np.array([1.0, 0.0]))


def test_explicit_memorizer_reproduces_every_label():
    e = np.eye(3)[0]
    model = explicit_memorizer(e)
    outputs = np.concatenate([model(X) for X in theorem1_sequences(e)])
    np.testing.assert_allclose(outputs, np.concatenate(THEOREM1_LABELS), atol=1e-9)
    assert model.n_parameters == 4 * 3 + 2 * 8 + 3


def test_theorem1_job_tables():
    tables = theorem1_tables(**{**HVS_THEOREM1, "n_draws": 12, "exact_draws": 6})
    search = tables["search"]
    assert [r["draw"] for r in search] == list(range(12))
    assert all(r["hardmax_equal_exact"] for r in search[:6])
    assert all(r["hardmax_equal_exact"] is None for r in search[6:])
    assert [r["predicted"] for r in tables["memorizer"]] == list(np.concatenate(THEOREM1_LABELS))
