"""The learned separation: the smallest gap between a token's context ids in different sets."""

import itertools
import math

import numpy as np
import pytest

from expressivity.conll_like import conll_like_dataset
from expressivity.datasets import TokenDataset
from expressivity.learned_separation import learned_separation


def brute_force(ds, w, lam, sigma):
    """Every pair of occurrences of a token in different sets, the context id computed directly."""
    z = ds.vocab @ w
    ids = []
    for row in ds.sequences:
        for t in row:
            zs = z[row]
            if sigma == "uniform":
                c = zs.mean()
            elif sigma == "hardmax":
                c = zs[np.argmax(np.sign(z[t]) * zs)]
            else:
                s = lam * z[t] * zs
                p = np.exp(s - s.max())
                c = (p * zs).sum() / p.sum()
            ids.append((int(t), frozenset(row.tolist()), np.sign(z[t]) * c))
    gaps = [abs(a[2] - b[2]) for a, b in itertools.combinations(ids, 2)
            if a[0] == b[0] and a[1] != b[1]]
    return min(gaps) if gaps else math.inf


@pytest.mark.parametrize("sigma", ["softmax", "hardmax", "uniform"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_matches_brute_force(sigma, seed):
    ds = conll_like_dataset(np.random.default_rng(seed), V=12, d=3, n=3, N=15, a=0.3)
    w = np.random.default_rng(seed + 10).standard_normal(3)
    got = learned_separation(ds, w, 1.7, sigma)
    assert got["separation"] == pytest.approx(brute_force(ds, w, 1.7, sigma), rel=1e-9, abs=0)
    assert not got["collapsed"]


def test_hardmax_ties_and_softmax_collapse():
    """Two sets with the same extreme tie exactly under hardmax; softmax at a huge temperature
    rounds to the same tie in float64 and is reported as collapsed."""
    vocab = np.array([[1.0], [1.2], [1.5], [2.0]])
    ds = TokenDataset(vocab=vocab, sequences=np.array([[0, 1, 3], [0, 2, 3]]),
                      labels=np.zeros((2, 3), dtype=np.int64), r_min=1, r_max=2, eps=0.2)
    hard = learned_separation(ds, np.array([1.0]), 1.0, "hardmax")
    assert hard["separation"] == 0.0 and not hard["collapsed"]
    soft = learned_separation(ds, np.array([1.0]), 1e4, "softmax")
    assert soft["collapsed"] and soft["separation_log10"] == -math.inf
    assert learned_separation(ds, np.array([1.0]), 1.0, "softmax")["separation"] > 0


def test_unknown_normaliser_refused():
    ds = conll_like_dataset(np.random.default_rng(0), V=8, d=2, n=2, N=3, a=0.0)
    with pytest.raises(ValueError, match="sigma"):
        learned_separation(ds, np.ones(2), 1.0, "sparsemax")
