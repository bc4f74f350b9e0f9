"""Theorem 1's counterexample: hardmax is blind to it exactly, softmax sees it (certified), and the
float64 rounding bound of a layer holds."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import expressivity.theorem1 as t1
from expressivity.attention import self_attention
from expressivity.attention_error import exact_outputs, rounding_bound
from expressivity.rank1.layer import Rank1Layer
from expressivity.theorem1 import (
    certified_softmax_gap,
    log10_interior_weight,
    random_heads,
    shared_token_gap,
    shared_tokens_equal_exactly,
    theorem1_dataset,
    theorem1_sequences,
)

E = np.array([1.0, 2.0, 2.0]) / 3


def test_sequences_share_extremes_and_mean_but_differ_inside():
    X1, X2 = theorem1_sequences(np.array([0.6, 0.8]))
    assert np.allclose(X1.mean(0), X2.mean(0))
    assert np.allclose(X1[[0, 3]], X2[[0, 3]])
    assert not np.allclose(X1[1:3], X2[1:3])


@pytest.mark.parametrize("scale", [0.3, 3.0])
def test_hardmax_outputs_equal_exactly_softmax_outputs_differ(scale):
    rng = np.random.default_rng(11)
    for _ in range(20):
        heads = random_heads(rng, 3, int(rng.integers(1, 6)), int(rng.integers(1, 4)), scale)
        assert shared_tokens_equal_exactly(heads, E)
        gap, bound = shared_token_gap(heads, E, "hardmax")
        assert gap <= bound
        log10_gap, certificate = certified_softmax_gap(heads, E, 40)
        assert math.isfinite(log10_gap) and certificate.startswith("arb-")


def test_zero_weights_leave_every_token_unchanged_under_both():
    heads = random_heads(np.random.default_rng(0), 3, 2, 2, 0.0)
    assert shared_token_gap(heads, E, "softmax")[0] == 0.0
    assert certified_softmax_gap(heads, E, 30) == (-math.inf, "arb-30")


def test_exact_check_detects_a_difference(monkeypatch):
    # A sequence pair that is NOT a counterexample (different maxima) must be caught.
    heads = random_heads(np.random.default_rng(3), 2, 1, 1, 1.0)
    monkeypatch.setattr(t1, "THEOREM1_TOKENS",
                        (np.array([1.0, 2.0, 4.0, 5.0]), np.array([1.0, 2.5, 3.5, 6.0])))
    assert not shared_tokens_equal_exactly(heads, np.array([1.0, 0.0]))


def test_a_saturated_softmax_gap_is_zero_in_float64_and_certified_in_arb():
    """One head at weight scale 10 whose score gaps exceed ~40 nats: float64 gives an exactly zero
    gap; ball arithmetic certifies a positive gap of about the interior weight."""
    rng = np.random.default_rng(5)
    for _ in range(2000):  # find a draw that saturates: score gaps of more than ~40 nats
        heads = random_heads(rng, 3, 1, 1, 10.0)
        if shared_token_gap(heads, E, "softmax")[0] == 0.0:
            break
    else:
        pytest.fail("no saturated draw found")
    weight = log10_interior_weight(heads, E)
    log10_gap, certificate = certified_softmax_gap(heads, E, 30 + math.ceil(-weight))
    assert weight < -15 and certificate.startswith("arb-")
    assert abs(log10_gap - weight) < 4  # the gap is the interior weight times |V W_O|


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([0.1, 1.0, 5.0]))
def test_rounding_bound_holds_against_ball_arithmetic(seed, scale):
    rng = np.random.default_rng(seed)
    X = scale * rng.standard_normal((5, 3))
    heads = random_heads(rng, 3, int(rng.integers(1, 4)), int(rng.integers(1, 4)), 1.0)
    Y = self_attention(X, heads)
    bound = rounding_bound(X, heads, "softmax")
    exact = exact_outputs(X, heads, range(5), 1.0, 60)
    err = np.array([[abs(float(y.mid()) - f) for y, f in zip(row, frow, strict=True)]
                    for row, frow in zip(exact, Y, strict=True)])
    assert np.all(err <= bound)


def test_the_memorizers_labels_are_out_of_hardmax_reach():
    """The labellings differ at the shared tokens, where the memorizer's own layer with hardmax
    gives equal outputs (exactly): only softmax attention can carry those labels."""
    e = np.eye(3)[0]
    ds = theorem1_dataset(e, np.arange(8).reshape(2, 4))
    assert ds.labels[0, 3] != ds.labels[1, 3]
    assert (ds.vocab[ds.sequences[0, 3]] == ds.vocab[ds.sequences[1, 3]]).all()
    layer = Rank1Layer.for_dataset(ds, e, 1.0)
    assert shared_tokens_equal_exactly([layer.head], e)
    X1, X2 = theorem1_sequences(e)
    assert layer(X1)[3] @ e != layer(X2)[3] @ e  # the feature the FFN reads


@pytest.mark.parametrize("call, match", [
    (lambda: theorem1_sequences(np.array([1.0, 1.0])), "unit vector"),
    (lambda: theorem1_sequences(np.array([np.nan, 1.0])), "finite"),
    (lambda: random_heads(np.random.default_rng(0), 3, 0, 1, 1.0), "n_heads"),
    (lambda: random_heads(np.random.default_rng(0), 3, 1, 1, math.nan), "scale"),
    (lambda: theorem1_dataset(np.eye(3)[0], np.zeros((2, 3), dtype=int)), "labels"),
    (lambda: exact_outputs(np.ones((2, 2)), [], [0], 1.0, 0), "digits"),
    (lambda: exact_outputs(np.ones((2, 2)), [], [2], 1.0, 30), "rows"),
])
def test_bad_arguments_are_refused_by_name(call, match):
    with pytest.raises(ValueError, match=match):
        call()
