"""Accuracy ceilings: the best training accuracy any token-wise map can reach after a given context.

A token-wise map (the FFN of a one-layer transformer, Kajitsuka & Sato 2024, Sec. 2) gives equal
outputs to equal inputs, so when the context a layer adds to token ``k`` takes finitely many
values, the training accuracy of any FFN is at most

    sum over groups (token, context) of the group's majority label count  /  (n N),

exactly. Four ceilings are used by the trained-models stage ([D], ours):

- ``token_ceiling``: no attention at all (the context is empty; Kajitsuka & Sato 2024, Sec. 1.3,
  why contextual mappings are needed);
- ``hardmax_ceiling``: one tied rank-1 *hardmax* layer with a given ``w``, whose context is one
  extreme (or the mean) of the sequence's projections (the mechanism of Kajitsuka & Sato 2024,
  Thm 1);
- ``blind_ceiling``: any one-layer transformer with hardmax or uniform attention (every ``w``,
  every head, every weight), on a dataset with segment pairs (``expressivity.segment_pairs``): a
  shared token whose labels differ within a pair gets equal outputs in both sequences, so one of
  the two is wrong; ``1 - conflicts / (n N)`` bounds the accuracy from above;
- ``set_ceiling``: any function of (token, token set), i.e. any one-layer transformer without
  positional encoding on sequences of distinct tokens, and what a contextual mapping can reach;
- ``prefix_blind_ceiling``: the causal (masked) form of ``blind_ceiling`` on prefix segment pairs
  (``expressivity.segment_pairs.prefix_segment_pair_dataset``): any one-layer causal transformer
  with hardmax or uniform attention gives a position from ``q`` on equal outputs in the pair's two
  sequences, so one of two different labels there is wrong.
"""

from __future__ import annotations

import numpy as np

from expressivity.arguments import finite_array
from expressivity.datasets import TokenDataset
from expressivity.segment_pairs import COMPLETE, check_segment_pair


def _majority_fraction(groups: dict[object, dict[int, int]], size: int) -> float:
    """``sum_g max_y count_g(y) / size``: each group of equal inputs carries one label."""
    return sum(max(c.values()) for c in groups.values()) / size


def _count(groups: dict[object, dict[int, int]], key: object, label: int) -> None:
    counts = groups.setdefault(key, {})
    counts[label] = counts.get(label, 0) + 1


def token_ceiling(ds: TokenDataset) -> float:
    """Best training accuracy of any token-wise map without attention: each token's majority
    label over all its occurrences, summed, over ``n N`` (the attention-free baseline's bound)."""
    groups: dict[object, dict[int, int]] = {}
    for t, y in zip(ds.sequences.reshape(-1), ds.labels.reshape(-1), strict=True):
        _count(groups, int(t), int(y))
    return _majority_fraction(groups, ds.sequences.size)


def hardmax_ceiling(ds: TokenDataset, w: np.ndarray, causal: bool = False) -> float:
    """Best training accuracy of any token-wise map after one tied rank-1 *hardmax* layer.

    With ``z_j = w^T x_j`` and score ``lam z_k z_j`` (``lam > 0``), hardmax attends the key with the
    largest ``z`` when ``z_k > 0``, the smallest when ``z_k < 0``, and averages all keys when
    ``z_k = 0`` (Kajitsuka & Sato 2024, Thm 1 mechanism; notes Sec. 2). The layer's output at token
    ``k`` is therefore a function of (token, that extreme/mean): each group of equal keys can carry
    one label, and the ceiling is the sum of the groups' majority counts over ``n N``. ``causal``:
    the masked layer, whose keys for token ``k`` are its prefix ``x_1..x_k`` (the extremes and mean
    of the prefix).
    """
    w = finite_array("w", w).reshape(-1)
    if w.size != ds.d:
        raise ValueError(f"w must have d = {ds.d} entries (a projection of the tokens), got {w.size}")
    z = ds.vocab @ w
    zs = z[ds.sequences]
    groups: dict[object, dict[int, int]] = {}
    for i in range(ds.N):
        for k in range(ds.n):
            keys = zs[i, : k + 1] if causal else zs[i]
            top, bottom, mean = keys.max(), keys.min(), keys.mean()
            zk = zs[i, k]
            ctx = ("max", top) if zk > 0 else ("min", bottom) if zk < 0 else ("mean", mean)
            _count(groups, (int(ds.sequences[i, k]), *ctx), int(ds.labels[i, k]))
    return _majority_fraction(groups, ds.N * ds.n)


def pair_conflicts(ds: TokenDataset, pairs: np.ndarray) -> int:
    """Shared tokens whose labels differ between the two sequences of a segment pair, summed over
    ``pairs`` (``(P, 2)`` sequence indices; each pair's structure is checked exactly first by
    ``expressivity.segment_pairs.check_segment_pair``; the pairs must use distinct sequences)."""
    pairs = np.asarray(pairs)
    if pairs.ndim != 2 or pairs.shape[1] != 2 or len(np.unique(pairs)) != pairs.size:
        raise ValueError(f"pairs must be (P, 2) distinct sequence indices, got shape {pairs.shape}")
    conflicts = 0
    for i_a, i_b in pairs:
        shared = check_segment_pair(ds, int(i_a), int(i_b))
        label = [dict(zip(ds.sequences[i].tolist(), ds.labels[i].tolist(), strict=True))
                 for i in (i_a, i_b)]
        conflicts += sum(label[0][t] != label[1][t] for t in shared)
    return conflicts


def blind_ceiling(ds: TokenDataset, pairs: np.ndarray) -> float:
    """``1 - pair_conflicts / (n N)``: no one-layer transformer with hardmax or uniform attention
    (any heads, weights and FFN) exceeds this training accuracy on ``ds`` (module docstring of
    ``expressivity.segment_pairs``); each conflict is a different pair of occurrences."""
    return 1.0 - pair_conflicts(ds, pairs) / ds.sequences.size


def prefix_pair_conflicts(ds: TokenDataset, pairs: np.ndarray) -> int:
    """Positions ``k >= COMPLETE`` (from ``q`` on) where the two sequences of a prefix segment
    pair hold the same token with different labels, summed over ``pairs`` (``(P, 2)`` distinct
    sequence indices). At each such position the two prefixes ``x_1..x_k`` are checked exactly to
    form a segment pair (``check_segment_pair`` on the prefixes); a ``ValueError`` says where they
    do not."""
    pairs = np.asarray(pairs)
    if pairs.ndim != 2 or pairs.shape[1] != 2 or len(np.unique(pairs)) != pairs.size:
        raise ValueError(f"pairs must be (P, 2) distinct sequence indices, got shape {pairs.shape}")
    conflicts = 0
    for i_a, i_b in pairs.tolist():
        for k in range(COMPLETE, ds.n):
            a, b = ds.sequences[i_a], ds.sequences[i_b]
            if a[k] != b[k]:
                raise ValueError(f"sequences {i_a} and {i_b} hold different tokens at position "
                                 f"{k}: not a prefix segment pair continued identically")
            prefixes = TokenDataset(vocab=ds.vocab, sequences=np.stack([a[: k + 1], b[: k + 1]]),
                                    labels=np.zeros((2, k + 1), dtype=np.int64), r_min=ds.r_min,
                                    r_max=ds.r_max, eps=ds.eps)
            check_segment_pair(prefixes, 0, 1)
            conflicts += int(ds.labels[i_a, k] != ds.labels[i_b, k])
    return conflicts


def prefix_blind_ceiling(ds: TokenDataset, pairs: np.ndarray) -> float:
    """``1 - prefix_pair_conflicts / (n N)``: no one-layer *causal* transformer with hardmax or
    uniform attention (any heads, weights and token-wise FFN) exceeds this training accuracy on
    ``ds`` (``expressivity.segment_pairs``, prefix segment pairs)."""
    return 1.0 - prefix_pair_conflicts(ds, pairs) / ds.sequences.size


def set_ceiling(ds: TokenDataset) -> float:
    """Best training accuracy of any function of (token, the sequence's token *set*): each group
    (token, set) carries its majority label. This bounds every permutation-equivariant model on
    sequences of distinct tokens (a one-layer transformer without positional encoding sees no
    more, Kajitsuka & Sato 2024, Sec. 1.3), and a contextual mapping followed by a token-wise map
    reaches it (their Cor. 1): 1 exactly when the labels are consistent under permutation, below 1
    on data that are not (a real corpus can repeat a sentence's words with other tags). With
    repeated tokens a model sees the multiset, which can carry more: the value is then the ceiling
    of functions of the set only."""
    groups: dict[object, dict[int, int]] = {}
    for row, labels in zip(ds.sequences, ds.labels, strict=True):
        key = frozenset(row.tolist())
        for t, y in zip(row.tolist(), labels.tolist(), strict=True):
            _count(groups, (t, key), int(y))
    return _majority_fraction(groups, ds.sequences.size)
