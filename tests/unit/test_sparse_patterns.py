"""Sparse attention patterns and Assumption 1 (Yun et al. 2020b)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from expressivity.assumption1 import assumption1, hamiltonian_path, heard_from, reach_steps
from expressivity.attention import Head, self_attention
from expressivity.reference.universal_approximation import reach_steps_reference
from expressivity.sequence_encoder import SequenceEncoder
from expressivity.sparse_patterns import PATTERNS, pattern_masks


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(PATTERNS), st.integers(1, 40), st.integers(0, 2**31))
def test_masks_are_boolean_square_with_self_loops(name, n, seed):
    masks = pattern_masks(name, n, rng=np.random.default_rng(seed))
    assert masks
    for m in masks:
        assert m.dtype == bool and m.shape == (n, n)
        assert np.all(np.diag(m))
    s = reach_steps(masks)
    assert s == reach_steps_reference(masks, 4 * n * len(masks))


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 7), st.integers(1, 3), st.integers(0, 2**31))
def test_reach_steps_equals_reference_on_any_masks(n, p, seed):
    """Implementation equals reference on random masks, without self-loops and with queries that
    attend no key."""
    rng = np.random.default_rng(seed)
    masks = [rng.random((n, n)) < rng.uniform(0.0, 1.0) for _ in range(p)]
    assert reach_steps(masks) == reach_steps_reference(masks, 4 * n * p)


@settings(max_examples=25, deadline=None)
@given(st.integers(2, 6), st.integers(1, 3), st.booleans(), st.integers(0, 2**31))
def test_heard_from_is_what_an_encoder_routes(n, depth, per_head, seed):
    """``heard_from`` against an encoder with the same masks (random, with or without self-loops,
    one per head or shared): changing token j changes position k's logits iff j is heard at k."""
    rng = np.random.default_rng(seed)
    shape = (2, n, n) if per_head else (n, n)
    masks = []
    for _ in range(depth):
        mask = rng.random(shape) < 0.4
        mask[..., np.arange(n), rng.integers(0, n, n)] = True  # every query attends some key
        masks.append(mask)
    model = SequenceEncoder(5, n, 8, ["attention"] * depth, 3, heads=2, masks=masks,
                            seeds=[seed % 1000]).double()
    tokens = torch.as_tensor(rng.integers(0, 5, (1, 1, n)))
    heard = heard_from(masks)
    with torch.no_grad():
        base = model(tokens)[0, 0]
        for j in range(n):
            changed = tokens.clone()
            changed[..., j] = (changed[..., j] + 1) % 5
            moved = (model(changed)[0, 0] - base).abs().amax(-1) > 1e-12
            assert moved.tolist() == heard[:, j].tolist(), (j, masks)


def test_heard_from_covers_everything_after_the_reach_steps():
    """With self-loops, the sets of ``s`` layers of the cycle are full iff ``reach_steps <= s``;
    one 2-d array is refused (a list of layers is expected)."""
    for name in ("strided", "fixed", "star", "window"):
        cycle = pattern_masks(name, 16, rng=np.random.default_rng(0))
        s = reach_steps(cycle)
        layers = [cycle[t % len(cycle)] for t in range(s)]
        assert heard_from(layers).all()
        assert not heard_from(layers[:-1] or [np.zeros((16, 16), dtype=bool)]).all()
    with pytest.raises(ValueError, match="list of masks"):
        heard_from(np.ones((4, 4), dtype=bool))


@pytest.mark.parametrize("mask", [
    [[0, 0, 0], [0, 1, 1], [1, 1, 1]],      # query 0 attends no key: never reached
    [[1, 1, 1], [1, 1, 1], [0, 0, 0]],      # the last query attends no key (empty last segment)
    [[0, 0, 0], [0, 0, 0], [0, 0, 0]],
])
def test_query_attending_no_key_is_never_reached(mask):
    masks = [np.array(mask, dtype=bool)]
    assert reach_steps(masks) is None
    assert reach_steps([np.ones((3, 3), dtype=bool)] + masks) == 1
    cycle = masks + [np.ones((3, 3), dtype=bool)]     # the empty set is refilled by a dense layer
    assert reach_steps(cycle) == reach_steps_reference(cycle, 24)


@pytest.mark.parametrize("n", [16, 64, 256])
def test_assumption1_table(n):
    rng = np.random.default_rng(1)
    expect_s = {"dense": 1, "fixed": 2, "star": 2, "window": n - 1, "longformer": 2, "bigbird": 2}
    for name, s in expect_s.items():
        a = assumption1(pattern_masks(name, n, rng=rng))
        assert a["satisfied"] and a["s"] == s, (name, a)
    strided = assumption1(pattern_masks("strided", n))
    assert strided["satisfied"] and strided["s"] in (2, 3)
    causal = assumption1(pattern_masks("causal_strided", n))
    assert causal["self_loops"] and causal["hamiltonian_path"] and causal["s"] is None
    assert not causal["satisfied"]


def test_connections_scale():
    """O(n) patterns have connections growing linearly; dense quadratically; STRIDED as n^1.5."""
    ns = np.array([64, 256, 1024])
    rng = np.random.default_rng(0)

    def slope(name):
        c = [assumption1(pattern_masks(name, int(n), rng=rng))["connections_max"] for n in ns]
        return np.polyfit(np.log(ns), np.log(c), 1)[0]

    assert abs(slope("dense") - 2) < 1e-9
    assert abs(slope("star") - 1) < 0.02
    assert abs(slope("window") - 1) < 0.02
    assert abs(slope("strided") - 1.5) < 0.05


def test_random_pattern_with_unattended_tokens_fails():
    """A token attended by nobody else can never be reached: condition 3 must fail."""
    n = 8
    M = np.eye(n, dtype=bool)
    M[:, 0] = True            # everyone attends token 0; tokens 1..7 attended by nobody else
    a = assumption1([M])
    assert a["s"] is None and a["hamiltonian_path"] is False and not a["satisfied"]


def test_hamiltonian_search_finds_nontrivial_path():
    n = 6
    order = [3, 0, 5, 1, 4, 2]
    M = np.eye(n, dtype=bool)
    for a, b in zip(order, order[1:], strict=False):
        M[b, a] = True
    found, path = hamiltonian_path([M])
    assert found and path == order


def test_masks_work_with_numpy_and_torch_attention():
    n, d = 16, 3
    rng = np.random.default_rng(2)
    X = rng.normal(size=(n, d))
    head = Head(*(rng.normal(size=(d, 2)) for _ in range(3)), rng.normal(size=(2, d)))
    for name in PATTERNS:
        for m in pattern_masks(name, n, rng=rng):
            out = self_attention(X, [head], mask=m)
            assert np.all(np.isfinite(out))
            t = torch.nn.functional.scaled_dot_product_attention(
                torch.tensor(X[None]), torch.tensor(X[None]), torch.tensor(X[None]),
                attn_mask=torch.from_numpy(m))
            assert torch.isfinite(t).all()


def test_bad_input():
    with pytest.raises(ValueError, match="known patterns: dense"):
        pattern_masks("dilated", 8)
    with pytest.raises(ValueError, match="rng"):
        pattern_masks("random", 8)
    with pytest.raises(ValueError, match="unknown parameter"):
        pattern_masks("window", 8, stride=2)
    with pytest.raises(ValueError, match="w must be an integer >= 1"):
        pattern_masks("strided", 8, w=0)
    with pytest.raises(ValueError, match="sequence length n must be an integer >= 1"):
        pattern_masks("dense", 0)


def test_assumption1_bad_masks_are_named():
    with pytest.raises(ValueError, match=r"masks\[0\] must be boolean"):
        assumption1([np.full((3, 3), 0.5)])
    with pytest.raises(ValueError, match=r"masks\[0\] must be boolean"):
        assumption1([np.full((3, 3), np.nan)])
    with pytest.raises(ValueError, match=r"masks\[1\] has shape \(3, 4\)"):
        assumption1([np.eye(3, dtype=bool), np.ones((3, 4), dtype=bool)])
    with pytest.raises(ValueError, match="n >= 1"):
        assumption1([np.ones((0, 0), dtype=bool)])
    with pytest.raises(ValueError, match="wrap it in a list"):
        assumption1(np.eye(3, dtype=bool))
    with pytest.raises(ValueError, match="max_layers must be"):
        reach_steps([np.eye(3, dtype=bool)], max_layers=0)
    with pytest.raises(ValueError, match="budget must be"):
        hamiltonian_path([np.eye(3, dtype=bool)], budget=-1)
    # masks without self-loops are valid input: Assumption 1.1 is reported as failed
    a = assumption1([np.ones((3, 3), dtype=bool) & ~np.eye(3, dtype=bool)])
    assert not a["self_loops"] and not a["satisfied"]
