"""Token-wise separated datasets: the hypotheses of Kajitsuka & Sato 2024 Thm 2 / Cor 1."""

import math
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from expressivity.datasets import (
    labels_consistent_prefixes,
    n_token_sets,
    prefix_dataset,
    token_separated_dataset,
    validate_dataset,
)


def small(seed=0, **kw):
    args = dict(vocab_size=8, d=3, n=3, N=20, n_classes=4)
    args.update(kw)
    return token_separated_dataset(np.random.default_rng(seed), **args)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), V=st.integers(2, 12), d=st.integers(1, 5),
       n=st.integers(1, 4), n_classes=st.integers(1, 5), data=st.data())
def test_dataset_meets_every_hypothesis(seed, V, d, n, n_classes, data):
    n = min(n, V)
    N = data.draw(st.integers(1, min(30, n_token_sets(V, n))))
    ds = token_separated_dataset(np.random.default_rng(seed), V, d, n, N, n_classes)
    assert ds.vocab.shape == (V, d) and ds.sequences.shape == (N, n) == ds.labels.shape
    norms = np.linalg.norm(ds.vocab, axis=1)
    assert np.all(norms >= ds.r_min * (1 - 1e-12)) and np.all(norms <= ds.r_max * (1 + 1e-12))
    if V > 1:
        dist = np.linalg.norm(ds.vocab[:, None] - ds.vocab[None], axis=-1)
        assert dist[~np.eye(V, dtype=bool)].min() >= ds.eps * (1 - 1e-12)
    assert all(len(set(row)) == n for row in ds.sequences.tolist())
    sets = {frozenset(row) for row in ds.sequences.tolist()}
    assert len(sets) == N  # distinct token sets
    assert ds.labels.min() >= 0 and ds.labels.max() < n_classes
    assert ds.inputs().shape == (N, n, d)
    validate_dataset(ds)


def test_same_seed_same_dataset_and_fixed_eps_is_respected():
    a, b = small(3, eps=0.3), small(3, eps=0.3)
    assert np.array_equal(a.vocab, b.vocab) and np.array_equal(a.sequences, b.sequences)
    assert a.eps == 0.3
    dist = np.linalg.norm(a.vocab[:, None] - a.vocab[None], axis=-1)
    assert dist[~np.eye(8, dtype=bool)].min() >= 0.3


def test_too_many_sequences_names_N():
    with pytest.raises(ValueError, match=r"N=57 .*C\(8, 3\) = 56"):
        small(N=57)
    assert small(N=56).N == 56  # every set, exactly once


def test_unreachable_eps_is_refused():
    with pytest.raises(ValueError, match="eps=5"):
        small(eps=5.0, max_tries=200)


def test_duplicate_token_in_sequence_is_named():
    ds = small()
    seqs = ds.sequences.copy()
    seqs[4, 2] = seqs[4, 0]
    with pytest.raises(ValueError, match=rf"sequence 4 contains token {seqs[4, 0]} more than once"):
        validate_dataset(replace(ds, sequences=seqs))


def test_zero_norm_token_is_named_with_a_sequence():
    ds = small()
    t = int(ds.sequences[5, 1])
    vocab = ds.vocab.copy()
    vocab[t] = 0
    first = int(np.argwhere(ds.sequences == t)[0, 0])
    with pytest.raises(ValueError, match=rf"sequence {first}, token {t} has zero norm"):
        validate_dataset(replace(ds, vocab=vocab))


def test_inconsistent_labels_are_named():
    ds = small(N=10)
    seqs = np.vstack([ds.sequences, ds.sequences[2][::-1][None]])  # a permutation of sequence 2
    labels = np.vstack([ds.labels, ds.labels[2][::-1][None]])
    validate_dataset(replace(ds, sequences=seqs, labels=labels))  # consistent: accepted
    labels[10, 0] += 1
    tok = int(seqs[10, 0])
    with pytest.raises(ValueError, match=rf"sequences 2 and 10 .* token {tok}"):
        validate_dataset(replace(ds, sequences=seqs, labels=labels))


def test_other_violations():
    ds = small()
    vocab = ds.vocab.copy()
    vocab[1] = vocab[0] * (1 + 1e-9)
    with pytest.raises(ValueError, match="tokens 0 and 1"):
        validate_dataset(replace(ds, vocab=vocab, eps=0.1))
    with pytest.raises(ValueError, match="outside"):
        validate_dataset(replace(ds, vocab=ds.vocab * 10))
    seqs = ds.sequences.copy()
    seqs[0, 0] = 99
    with pytest.raises(ValueError, match="sequence 0, position 0: token index 99"):
        validate_dataset(replace(ds, sequences=seqs))
    with pytest.raises(ValueError, match="shape"):
        validate_dataset(replace(ds, labels=ds.labels[:, :2]))
    with pytest.raises(ValueError, match="eps"):
        validate_dataset(replace(ds, eps=0.0))


def test_prefix_dataset_every_ordered_sequence_or_a_random_choice():
    rng = np.random.default_rng(0)
    every = prefix_dataset(rng, 4, 2, 3, 1000, 3, eps=0.5)
    assert every.N == math.perm(4, 3) and len({tuple(s) for s in every.sequences.tolist()}) == 24
    some = prefix_dataset(rng, 16, 3, 4, 50, 3, eps=0.25)
    assert some.N == 50 and len({tuple(s) for s in some.sequences.tolist()}) == 50
    labels_consistent_prefixes(some.sequences, some.labels)
    with pytest.raises(ValueError, match="vocab_size >= n"):
        prefix_dataset(rng, 3, 2, 4, 10, 3)
