"""The CoNLL-shaped generator, the CoNLL reader and the set-consistent ceiling."""

import hashlib
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from expressivity.accuracy_ceilings import blind_ceiling, pair_conflicts, set_ceiling, token_ceiling
from expressivity.conll_like import (
    CONLL_TAGS,
    ambiguous_types,
    conll_dataset,
    conll_like_dataset,
    read_conll,
    segment_pair_rows,
    zipf_probabilities,
)
from expressivity.datasets import TokenDataset
from expressivity.segment_pairs import check_segment_pair

FIXTURE = Path(__file__).parent.parent / "fixtures" / "conll_tiny.txt"


def draw(seed=0, **kw):
    args = {"V": 200, "d": 8, "n": 6, "N": 150, "a": 0.2} | kw
    return conll_like_dataset(np.random.default_rng(seed), **args)


def test_shape_norms_and_tag_shares():
    ds = draw(N=400)
    assert ds.sequences.shape == ds.labels.shape == (400, 6)
    norms = np.linalg.norm(ds.vocab, axis=1)
    assert norms.min() >= 1 and norms.max() <= 2
    assert all(len(set(row)) == 6 for row in ds.sequences.tolist())
    assert set(np.unique(ds.labels)) <= set(range(len(CONLL_TAGS)))
    # the frequent types dominate: rank-1 type appears far more than a rank-100 type
    counts = np.bincount(ds.sequences.ravel(), minlength=200)
    assert counts[0] > 5 * max(counts[100], 1)


def test_labels_are_set_consistent_and_ambiguity_costs_token_only_maps():
    """Labels are a function of (token, set): the set ceiling is exactly 1; a = 0 makes them a
    function of the token (token ceiling 1); ambiguity lowers the token ceiling, more so for a
    larger a."""
    assert set_ceiling(draw(a=0.2)) == 1.0
    assert token_ceiling(draw(a=0.0)) == 1.0
    low, high = token_ceiling(draw(a=0.05, N=400)), token_ceiling(draw(a=0.5, N=400))
    assert high < low < 1.0


def test_set_ceiling_counts_conflicts():
    """Two sentences with the same set and a token tagged differently: one of them is lost."""
    vocab = np.eye(3) * 1.5
    ds = TokenDataset(vocab=vocab, sequences=np.array([[0, 1], [1, 0], [0, 2]]),
                      labels=np.array([[1, 0], [0, 0], [1, 1]]), r_min=1, r_max=2, eps=1)
    assert set_ceiling(ds) == pytest.approx(5 / 6)
    assert token_ceiling(ds) == pytest.approx(5 / 6)


def test_ambiguous_types_are_a_systematic_sample():
    amb = ambiguous_types(1000, 0.05, 0.3)
    assert amb.sum() == 50
    assert all(amb[i:i + 20].sum() == 1 for i in range(0, 1000, 20))
    assert ambiguous_types(10, 0.0, 0.5).sum() == 0


def test_same_seed_same_bytes_and_repeats_variant():
    a, b = draw(3), draw(3)
    assert np.array_equal(a.sequences, b.sequences) and np.array_equal(a.labels, b.labels)
    rep = draw(3, repeats=True, V=20, n=10, N=50)
    assert any(len(set(row)) < 10 for row in rep.sequences.tolist())
    assert set_ceiling(rep) == 1.0


def _digest(ds) -> str:
    h = hashlib.sha256()
    for x in (ds.vocab, ds.sequences, ds.labels, np.array([ds.r_min, ds.r_max, ds.eps])):
        h.update(np.ascontiguousarray(x).tobytes())
    return h.hexdigest()


def test_no_pairs_draws_the_bytes_drawn_before_pairs_existed():
    """The digest was taken from the generator before ``pairs`` was added (commit f07ce67)."""
    ds = conll_like_dataset(np.random.default_rng(3), V=40, d=4, n=4, N=8, a=0.2, pairs=0)
    assert _digest(ds) == "5600a396399dcd7939358b2128eab2e615619791fab8f1ca17973a742020b401"


def _exact_sum(ds, i):
    return [sum(Fraction(float(v)) for v in ds.vocab[ds.sequences[i], k]) for k in range(ds.d)]


@pytest.mark.parametrize(("seed", "sizes"), [(0, {}), (1, {"d": 1, "V": 60, "n": 4, "N": 20}),
                                             (2, {"a": 0.0, "N": 8, "n": 4}),
                                             (3, {"repeats": True, "V": 30, "n": 8})])
def test_embedded_pairs_collide_under_uniform_pooling_exactly(seed, sizes):
    """Every pair is a segment pair (checked in rationals on the stored floats), the two sentences
    have exactly equal token sums (so mean pooling, i.e. uniform attention, gives every shared token
    the same context), each pair holds a conflict, and labels stay a function of (token, set)."""
    pairs = 3 if sizes.get("N", 150) >= 20 else 2
    ds = draw(seed, pairs=pairs, **sizes)
    rows = segment_pair_rows(len(ds.sequences), pairs)
    assert rows.shape == (pairs, 2) and rows.max() == len(ds.sequences) - 1
    for i_a, i_b in rows.tolist():
        shared = check_segment_pair(ds, i_a, i_b)
        assert len(shared) == ds.n - 2
        assert _exact_sum(ds, i_a) == _exact_sum(ds, i_b)
        assert len(set(ds.sequences[i_a].tolist())) == ds.n  # distinct even with repeats
    conflicts = pair_conflicts(ds, rows)
    assert conflicts >= pairs
    assert blind_ceiling(ds, rows) == 1 - conflicts / ds.sequences.size < 1
    if not sizes.get("repeats"):
        assert set_ceiling(ds) == 1.0  # every (token, set) carries one tag


def test_a_pair_broken_by_one_token_is_no_collision():
    """The exact check can fail: moving one interior token breaks the equal sums."""
    ds = draw(0, pairs=2)
    i_a, i_b = segment_pair_rows(len(ds.sequences), 2)[0]
    inner = sorted(set(ds.sequences[i_a].tolist()) - set(ds.sequences[i_b].tolist()))[0]
    vocab = ds.vocab.copy()
    vocab[inner] += 2.0**-12
    moved = TokenDataset(vocab=vocab, sequences=ds.sequences, labels=ds.labels, r_min=0.0,
                         r_max=10.0, eps=ds.eps / 2)
    with pytest.raises(ValueError, match="different sums"):
        check_segment_pair(moved, i_a, i_b)
    assert _exact_sum(moved, i_a) != _exact_sum(moved, i_b)


@pytest.mark.parametrize(("sizes", "match"), [({"pairs": -1}, "pairs"), ({"pairs": 1.5}, "pairs"),
                                              ({"pairs": 76, "N": 150}, "pairs = 76"),
                                              ({"pairs": 1, "n": 3}, "n >= 4|4 <= n"),
                                              ({"pairs": 1, "r_max": 4.0}, "r_max < 4")])
def test_bad_pairs_are_refused_by_name(sizes, match):
    with pytest.raises(ValueError, match=match):
        draw(**sizes)


@pytest.mark.parametrize(("key", "value"), [("a", 1.5), ("a", -0.1), ("p_outside", 2.0),
                                            ("V", 0), ("n_tags", 1), ("zipf", 0.0)])
def test_bad_values_are_refused_by_name(key, value):
    with pytest.raises(ValueError, match=key if key != "zipf" else "zipf exponent"):
        draw(**{key: value})


def test_n_above_vocabulary_refused():
    with pytest.raises(ValueError, match="V >= n"):
        draw(V=5, n=6)


def test_zipf_probabilities():
    p = zipf_probabilities(4, 1.0)
    assert p.sum() == pytest.approx(1)
    assert p[0] / p[1] == pytest.approx(2)


def test_reader_on_the_shipped_fixture():
    sentences = read_conll(FIXTURE)
    assert [len(w) for w, _ in sentences] == [8, 5, 4, 4, 2, 6]
    assert sentences[1] == (["The", "Brinmoor", "Tigers", "won", "again"],
                            ["O", "B-ORG", "I-ORG", "O", "O"])
    ds, report = conll_dataset(sentences, np.random.default_rng(0), d=4, n=4)
    # "Hi ." is short, "the the board game" repeats a word
    assert report == {"sentences": 6, "kept": 4, "short": 1, "repeated": 1, "types": 11}
    assert ds.sequences.shape == (4, 4)
    # "Brinmoor" is B-LOC in two sentences and B-ORG in one: token-only maps lose one token
    assert token_ceiling(ds) == pytest.approx(15 / 16)
    assert set_ceiling(ds) == 1.0


def test_reader_refuses_bad_lines_and_tags(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("word\n")
    with pytest.raises(ValueError, match="line 1"):
        read_conll(bad)
    with pytest.raises(ValueError, match="B-XYZ"):
        conll_dataset([(["a", "b"], ["O", "B-XYZ"])], np.random.default_rng(0), d=2, n=2)
