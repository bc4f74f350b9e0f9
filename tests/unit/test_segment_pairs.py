"""Segment pairs: exact structure, and the theorem they carry: hardmax and uniform attention (any
weights) give the shared tokens equal outputs, softmax does not."""

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from expressivity.accuracy_ceilings import (
    blind_ceiling,
    pair_conflicts,
    prefix_blind_ceiling,
    prefix_pair_conflicts,
    token_ceiling,
)
from expressivity.attention import self_attention
from expressivity.datasets import validate_dataset
from expressivity.segment_pairs import (
    COMPLETE,
    check_segment_pair,
    prefix_segment_pair_dataset,
    segment_pair_dataset,
)
from expressivity.theorem1 import random_heads

SIZES = {"vocab_size": 24, "d": 6, "n": 5, "N": 10, "pairs": 3, "n_classes": 2}


def draw(seed=0, **kw):
    return segment_pair_dataset(np.random.default_rng(seed), **{**SIZES, **kw})


def test_dataset_structure():
    sp = draw()
    ds = sp.dataset
    assert ds.sequences.shape == (10, 5) and sp.pairs.shape == (3, 2)
    for (i_a, i_b), ends in zip(sp.pairs, sp.ends, strict=True):
        shared = check_segment_pair(ds, int(i_a), int(i_b))
        assert len(shared) == 3 and set(ends.tolist()) <= set(shared)
        lab = [dict(zip(ds.sequences[i].tolist(), ds.labels[i].tolist(), strict=True))
               for i in (i_a, i_b)]
        assert any(lab[0][t] != lab[1][t] for t in ends.tolist())  # the forced conflict
    c = pair_conflicts(ds, sp.pairs)
    assert 3 <= c <= 9 and blind_ceiling(ds, sp.pairs) == 1 - c / 50
    assert token_ceiling(ds) < 1
    # the interior tokens are exact in float32, so the equal sums survive the cast
    np.testing.assert_array_equal(ds.vocab.astype(np.float32).astype(float), ds.vocab)


def test_same_seed_same_dataset():
    a, b = draw(3), draw(3)
    np.testing.assert_array_equal(a.dataset.vocab, b.dataset.vocab)
    np.testing.assert_array_equal(a.dataset.labels, b.dataset.labels)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31), heads=st.integers(1, 3), size=st.integers(1, 3),
       scale=st.sampled_from([0.3, 1.0, 3.0]))
def test_hardmax_and_uniform_are_blind_softmax_is_not(seed, heads, size, scale):
    """Any one-layer attention: hardmax and uniform outputs at the shared tokens agree between the
    two sequences of a pair (up to float64 rounding of the output); softmax separates them."""
    rng = np.random.default_rng(seed)
    sp = draw(seed % 50)
    ds, (i_a, i_b) = sp.dataset, sp.pairs[0]
    H = random_heads(rng, ds.d, heads, size, scale)
    X = ds.inputs()
    shared = sorted(set(ds.sequences[i_a]) & set(ds.sequences[i_b]))

    def rows(sigma, beta, i):
        Y = self_attention(X[i], H, sigma=sigma, beta=beta)
        return np.array([Y[list(ds.sequences[i]).index(t)] for t in shared])

    for sigma, beta in (("hardmax", 1.0), ("softmax", 0.0)):  # beta = 0: uniform attention
        gap = np.abs(rows(sigma, beta, i_a) - rows(sigma, beta, i_b)).max()
        assert gap <= 1e-12 * (1 + np.abs(rows(sigma, beta, i_a)).max())
    assert np.abs(rows("softmax", 1.0, i_a) - rows("softmax", 1.0, i_b)).max() > 1e-9


def test_check_segment_pair_refuses_other_pairs():
    ds = draw().dataset
    with pytest.raises(ValueError, match="differ in exactly two"):
        check_segment_pair(ds, 6, 7)  # two random sequences
    sp = draw()
    moved = sp.dataset.vocab.copy()
    moved[sp.dataset.sequences[sp.pairs[0, 0]]] += 1e-3  # break the equal sums
    broken = dataclasses.replace(sp.dataset, vocab=moved)
    with pytest.raises(ValueError, match="sums|segment"):
        check_segment_pair(broken, *sp.pairs[0])


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="n must be an integer >= 4"):
        draw(n=3)
    with pytest.raises(ValueError, match="pairs=6 needs N >= 12"):
        draw(pairs=6)
    with pytest.raises(ValueError, match="r_min"):
        draw(r_max=5.0)
    with pytest.raises(ValueError, match="further sequences"):
        draw(vocab_size=5, N=20, pairs=2)


@pytest.mark.parametrize("seed", range(5))
def test_tokens_on_a_line_are_distinct_points(seed):
    """At d = 1 the grid-rounded tokens often coincided (the job then failed with "eps must be >
    0"): repeats are redrawn and segments whose interior meets a token are passed over."""
    sp = draw(seed, vocab_size=1000, d=1, N=20, pairs=8)
    vocab = sp.dataset.vocab
    assert len(np.unique(vocab, axis=0)) == len(vocab) and sp.dataset.eps > 0
    assert np.all(np.abs(vocab) > 0)
    for i_a, i_b in sp.pairs:
        check_segment_pair(sp.dataset, int(i_a), int(i_b))


def test_a_grid_too_small_for_the_vocabulary_is_named():
    with pytest.raises(ValueError, match=r"vocab_size=9000 distinct tokens .* d=1"):
        draw(vocab_size=9000, d=1)


def draw_prefix(seed=0, **kw):
    return prefix_segment_pair_dataset(np.random.default_rng(seed), **{**SIZES, **kw})


@pytest.mark.parametrize("sigma,first", [("hardmax", COMPLETE), ("uniform", COMPLETE - 1)])
def test_prefix_pairs_collide_under_causal_hardmax_and_uniform_for_any_heads(sigma, first):
    """From q on (uniform: from p on) every position of a prefix pair gets the same output under
    causal hardmax (random multi-head weights) and causal uniform attention (zero scores); before
    it, the two sequences differ (hardmax at p sees a_2 against b_2)."""
    sp = draw_prefix(1, n=7, N=6, pairs=3)
    ds, X = sp.dataset, sp.dataset.inputs()
    mask = np.tril(np.ones((ds.n, ds.n), dtype=bool))
    rng = np.random.default_rng(2)
    for _ in range(10):
        H = random_heads(rng, ds.d, 2, 3, 0.0 if sigma == "uniform" else 3.0)
        for i_a, i_b in sp.pairs.tolist():
            assert ds.sequences[i_a, first:].tolist() == ds.sequences[i_b, first:].tolist()
            Y = [self_attention(X[i], H, sigma="softmax" if sigma == "uniform" else "hardmax",
                                mask=mask) for i in (i_a, i_b)]
            assert np.abs(Y[0][first:] - Y[1][first:]).max() <= 1e-12
    soft = random_heads(rng, ds.d, 1, 1, 1.0)
    i_a, i_b = sp.pairs[0].tolist()
    gap = [self_attention(X[i], soft, mask=mask)[COMPLETE:] for i in (i_a, i_b)]
    assert np.abs(gap[0] - gap[1]).max() > 1e-6  # softmax does not collide


def test_prefix_pairs_labels_conflict_at_q_and_follow_the_prefix_rule():
    sp = draw_prefix(3, n=6, N=8, pairs=2)
    ds = sp.dataset
    validate_dataset(ds, label_rule="prefix")
    for (i_a, i_b), (p, q) in zip(sp.pairs.tolist(), sp.ends.tolist(), strict=True):
        assert ds.sequences[i_a, 2:4].tolist() == [p, q] == ds.sequences[i_b, 2:4].tolist()
        assert ds.labels[i_a, COMPLETE] != ds.labels[i_b, COMPLETE]
    # the same prefix set in another order with another label is refused
    i_a = int(sp.pairs[0, 0])
    seqs, labels = ds.sequences.copy(), ds.labels.copy()
    seqs[-1] = seqs[i_a][[1, 0, 2, 3, 4, 5]]
    labels[-1] = labels[i_a]
    labels[-1, COMPLETE] = (labels[i_a, COMPLETE] + 1) % SIZES["n_classes"]
    swapped = dataclasses.replace(ds, sequences=seqs, labels=labels)
    with pytest.raises(ValueError, match=f"position {COMPLETE} and sequence {len(seqs) - 1}"):
        validate_dataset(swapped, label_rule="prefix")


def test_prefix_blind_ceiling_counts_the_conflicts_from_q_and_checks_the_structure():
    sp = draw_prefix(4, n=6, N=6, pairs=2)
    ds = sp.dataset
    expect = sum(int(ds.labels[a, k] != ds.labels[b, k]) for a, b in sp.pairs.tolist()
                 for k in range(COMPLETE, ds.n))
    assert expect >= 2  # at least the forced conflict at q in each pair
    assert prefix_pair_conflicts(ds, sp.pairs) == expect
    assert prefix_blind_ceiling(ds, sp.pairs) == 1 - expect / ds.sequences.size
    # an unordered segment pair (q not at COMPLETE in both) is refused: its prefixes are no pairs
    plain = draw(4, n=6, N=6, pairs=2)
    with pytest.raises(ValueError, match="sequences"):
        prefix_pair_conflicts(plain.dataset, plain.pairs)
