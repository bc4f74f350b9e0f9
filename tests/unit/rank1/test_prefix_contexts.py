"""The causal (masked) rank-1 layer and its prefix contexts (expressivity.rank1.layer with
``causal=True``, expressivity.rank1.contexts.prefix_contexts): the layer at position k is the layer
on the prefix x_1..x_k, the contexts' values are its outputs, and the exhaustive separation of
``expressivity.rank1.separation`` is right on prefix sets of every size."""

import itertools
import math

import numpy as np
import pytest
from cases import rank1_case
from flint import ctx

from expressivity.datasets import TokenDataset, prefix_labels, validate_dataset
from expressivity.rank1.contexts import prefix_contexts, values_arb, values_float
from expressivity.rank1.layer import Rank1Layer, lam_theory, output_scale, rank1_attention
from expressivity.rank1.separation import separation_certified, separation_exact


def _prefix_case(seed, V=5, d=2, n=3):
    ds, v, _, alpha = rank1_case(seed, V=V, d=d, n=n)
    return ds, v, prefix_contexts(ds, v), alpha


@pytest.mark.parametrize("sigma", ["softmax", "hardmax"])
def test_causal_layer_is_the_layer_on_each_prefix(sigma):
    ds, v, _, alpha = _prefix_case(1)
    X = ds.inputs()
    Y = rank1_attention(X, v, 3.0, alpha * v, sigma, causal=True)
    for k in range(ds.n):
        full = rank1_attention(X[:, : k + 1], v, 3.0, alpha * v, sigma)
        assert np.allclose(Y[:, k], full[:, k], atol=1e-14)
    # the last position sees the whole sequence: the unmasked layer
    assert np.allclose(Y[:, -1], rank1_attention(X, v, 3.0, alpha * v, sigma)[:, -1], atol=1e-14)
    # and the first sees itself only: y_1 = x_1 + alpha z_1 v
    assert np.allclose(Y[:, 0], X[:, 0] + alpha * (X[:, 0] @ v)[:, None] * v, atol=1e-14)


def test_prefix_contexts_are_the_distinct_prefix_sets_and_give_the_outputs():
    ds, v, cx, alpha = _prefix_case(2, V=5, n=3)
    expected = {(t, frozenset(row[: k + 1])) for row in ds.sequences.tolist()
                for k, t in enumerate(row)}
    got = {(int(t), frozenset(int(m) for m in row if m >= 0))
           for t, row in zip(cx.token, cx.members, strict=True)}
    assert len(got) == cx.n_contexts == len(expected) and got == expected
    assert sorted(set(cx.size.tolist())) == [1, 2, 3]
    Y = rank1_attention(ds.inputs(), v, 2.0, alpha * v, causal=True)
    c = values_float(cx, 2.0) * cx.sign
    for p in range(cx.n_contexts):
        assert np.allclose(Y[cx.seq[p], cx.pos[p]], ds.vocab[cx.token[p]] + alpha * c[p] * v,
                           atol=1e-13)


@pytest.mark.parametrize("seed,lam", [(3, 0.7), (4, 4.0)])
def test_certified_prefix_separation_is_the_brute_force_minimum(seed, lam):
    """Every same-token pair of prefix contexts (sets of different sizes included) from direct
    ball arithmetic; the certified bound must sit just below that minimum."""
    ds, v, cx, alpha = _prefix_case(seed, V=5, n=3)
    C = values_arb(ds, cx, v, lam, 60)
    with ctx.workdps(60):
        gaps = [abs(C[p] - C[q]) for p, q in itertools.combinations(range(cx.n_contexts), 2)
                if cx.token[p] == cx.token[q]]
        low = min(gaps, key=lambda a: float(a.mid()))
        brute = math.log10(alpha) + float(low.mid().log()) / math.log(10)
    sep = separation_certified(ds, cx, Rank1Layer.for_dataset(ds, v, lam))
    assert sep.certified
    assert brute - 1e-9 <= sep.log10_delta_same + 1e-6 and sep.log10_delta_same <= brute + 1e-9


def test_prefix_separation_at_lam_theory_is_certified_and_far_below_float64():
    ds, v, cx, _ = _prefix_case(5, V=4, n=3)
    lam = lam_theory(ds.n, ds.d, ds.vocab_size, ds.eps, ds.r_min)
    sep = separation_certified(ds, cx, Rank1Layer.for_dataset(ds, v, lam))
    assert sep.certified and sep.asymptotic_order
    assert sep.log10_delta < -100  # a difference float64 cannot hold


def _collision_dataset() -> TokenDataset:
    """Query t = (1, 0.5) with prefixes {a, t} and {a, b, t}, v = e_1: z = (a, b, t) = (2, 1.5, 1).
    b is the mean of a and t (uniform averaging collides) and a is the largest in both (hardmax
    collides); softmax weighs b by e^{lam z_t z_b}, not its mean."""
    vocab = np.array([[2.0, 0.0], [1.5, -0.5], [1.0, 0.5], [-1.25, 0.25]])  # a, b, t, c
    seqs = np.array([[0, 2, 3], [0, 1, 2]])
    norms = np.linalg.norm(vocab, axis=1)
    dist = min(np.linalg.norm(x - y) for x, y in itertools.combinations(vocab, 2))
    return TokenDataset(vocab=vocab, sequences=seqs, labels=np.zeros((2, 3), dtype=np.int64),
                        r_min=float(norms.min()), r_max=float(norms.max()), eps=float(dist))


def test_hand_built_prefix_collision_is_detected_exactly_and_softmax_separates_it():
    ds = _collision_dataset()
    v = np.array([1.0, 0.0])
    cx = prefix_contexts(ds, v)
    layer = Rank1Layer.for_dataset(ds, v, 1.0)
    for arm in ("uniform", "hardmax"):
        sep = separation_exact(ds, cx, layer, arm)
        assert sep.collisions == 1 and sep.log10_delta == -math.inf, arm
    soft = separation_certified(ds, cx, layer)
    assert soft.certified and np.isfinite(soft.log10_delta)
    # the causal layer's float64 outputs agree: t's outputs coincide under hardmax, not softmax
    alpha = output_scale(ds.eps, ds.r_max)
    X = ds.inputs()
    hard = rank1_attention(X, v, 1.0, alpha * v, "hardmax", causal=True)
    assert np.array_equal(hard[0, 1], hard[1, 2])
    soft_y = rank1_attention(X, v, 1.0, alpha * v, causal=True)
    assert np.linalg.norm(soft_y[0, 1] - soft_y[1, 2]) > 1e-3


def test_prefix_label_check_refuses_a_reordered_prefix_with_another_label():
    ds = _collision_dataset()
    same_set = np.array([[0, 1, 2], [1, 0, 2]])  # prefix {a, b, t} at t in both, order differs
    ok = TokenDataset(vocab=ds.vocab, sequences=same_set, labels=np.array([[0, 1, 2], [3, 4, 2]]),
                      r_min=ds.r_min, r_max=ds.r_max, eps=ds.eps)
    validate_dataset(ok, label_rule="prefix")  # positions 0, 1 have other prefixes: free labels
    bad = TokenDataset(vocab=ds.vocab, sequences=same_set, labels=np.array([[0, 1, 2], [0, 1, 3]]),
                       r_min=ds.r_min, r_max=ds.r_max, eps=ds.eps)
    with pytest.raises(ValueError, match="sequence 0 position 2 and sequence 1 position 2"):
        validate_dataset(bad, label_rule="prefix")
    with pytest.raises(ValueError, match="label_rule"):
        validate_dataset(ok, label_rule="order")
    # the permutation rule refuses `ok` (same set, token a labelled 0 and 4)
    with pytest.raises(ValueError, match="permutation"):
        validate_dataset(ok)


def test_prefix_labels_are_prefix_consistent():
    ds, *_ = _prefix_case(6, V=5, n=3)
    labels = prefix_labels(np.random.default_rng(0), ds.sequences, 4)
    validate_dataset(TokenDataset(vocab=ds.vocab, sequences=ds.sequences, labels=labels,
                                  r_min=ds.r_min, r_max=ds.r_max, eps=ds.eps), label_rule="prefix")
    assert labels.max() < 4 and len(np.unique(labels)) > 1
