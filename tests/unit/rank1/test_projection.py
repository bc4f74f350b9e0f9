"""The projection lemma of Kajitsuka & Sato 2024 (expressivity.rank1.projection): a unit vector v
that keeps the tokens of V and 0 apart in 1-D, drawn until the lemma's bound holds."""

import math
from dataclasses import replace

import numpy as np
import pytest
from cases import rank1_case

from expressivity.rank1.contexts import contexts
from expressivity.rank1.projection import projection_constant, projection_ratio


def test_projection_meets_the_lemmas_bound():
    ds, v, cx, _ = rank1_case(0)
    assert projection_ratio(ds.vocab, v) >= projection_constant(5, 2)


def test_projection_orthogonal_to_a_token_is_refused():
    ds, v, _, _ = rank1_case(1)
    vocab = ds.vocab.copy()
    vocab[0] = [0.0, 1.5]
    ds = replace(ds, vocab=vocab)
    perp = np.array([1.0, 0.0])
    assert projection_ratio(ds.vocab, perp) == 0  # fails the lemma's bound
    with pytest.raises(ValueError, match="projects to 0"):
        contexts(ds, perp)


def test_projection_ratio_in_blocks_is_the_all_pairs_minimum(monkeypatch):
    import expressivity.rank1.projection as projection

    ds, v, _, _ = rank1_case(8, V=9, d=3, n=2)
    pts = np.vstack([ds.vocab, np.zeros((1, 3))])
    i, j = np.triu_indices(len(pts), 1)
    diff = pts[i] - pts[j]
    brute = float(np.min(np.abs(diff @ v) / np.linalg.norm(diff, axis=1)))
    assert math.isclose(projection_ratio(ds.vocab, v), brute, rel_tol=1e-12)
    monkeypatch.setattr(projection, "_BLOCK_VALUES", 7)  # one row of pairs at a time
    assert math.isclose(projection_ratio(ds.vocab, v), brute, rel_tol=1e-12)
    with pytest.raises(ValueError, match="vocab_size must be an integer"):
        projection_constant(0, 2)
