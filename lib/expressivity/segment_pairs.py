"""Token datasets with Theorem-1-type pairs: uniform attention and hardmax provably cannot memorize
them, softmax attention can (Kajitsuka & Sato 2024, Theorem 1 against Theorem 2; the datasets and
the argument are ours [D], generalising the collinear pair of ``expressivity.theorem1``).

**A segment pair.** Two sequences ``S_A = C ∪ {a_1, a_2}`` and ``S_B = C ∪ {b_1, b_2}`` share the
tokens ``C`` (``n - 2`` of them), two of which, ``p`` and ``q``, are the ends of a segment holding
the four other tokens in its interior:

    a_i = p + s_i (q - p),  s = (1/8, 7/8);     b_i = p + t_i (q - p),  t = (3/8, 5/8),

so ``a_1 + a_2 = b_1 + b_2 = p + q``: equal sums, hence equal means, and the same convex hull. (Theorem
1's pair (1, 2, 4, 5) e and (1, 2.5, 3.5, 5) e has positions (0, 1/4, 3/4, 1) and (0, 3/8, 5/8, 1)
on its segment; ours spreads the first pair further, which makes the softmax signal larger.)

**Why no one-layer transformer with hardmax or uniform attention separates them** (any heads, head
sizes, weights, FFN). The score of key ``j`` for query ``k`` is ``f(x_j) = x_j^T W_K W_Q^T x_k``,
linear in ``x_j``. Hardmax averages the keys where ``f`` is largest. If that maximum is attained at
an interior point of the segment, ``f`` is constant on the segment, so the tied keys are ``T ∪
{a_1, a_2}`` in ``S_A`` and ``T ∪ {b_1, b_2}`` in ``S_B`` with the same ``T ⊆ C`` and the same
count: equal averages, since ``a_1 + a_2 = b_1 + b_2``. Otherwise no interior point attains it, and
the tied keys are the same tokens of ``C``. Uniform attention (``lam = 0``) averages all tokens:
equal means. The skip connection adds the same token and the FFN acts token by token, so every
shared token gets the same output in both sequences, and when its labels differ one of the two is
wrong whatever the weights (``expressivity.accuracy_ceilings.blind_ceiling``). Softmax weights
``e^{f(x_j)}`` are not linear in ``x_j``: they see the spread of the interior tokens (the second
power sums differ), which is what a trained softmax model must pick up.

**The dataset** (``segment_pair_dataset``). A vocabulary of ``vocab_size`` random tokens (uniform
directions, norms uniform in ``[r_min, r_max]``) rounded to multiples of ``2^-GRID_BITS``, so that
every interior token ``p + s (q - p)`` is exact in float32 and float64 and the equal sums hold
exactly, not up to rounding. ``pairs`` segment pairs on distinct random segments (four interior
tokens each, appended to the vocabulary) and ``N - 2 pairs`` further sequences of ``n`` distinct
vocabulary tokens with distinct token sets. Labels are uniform in ``0..n_classes-1`` per (sequence,
token) except that one segment end of every pair is forced to differ between ``S_A`` and ``S_B``, so
every pair holds at least one conflict. A label is a function of (token, token set): consistent
under permutation. The dataset's ``r_min``, ``r_max`` and ``eps`` are measured on its tokens (the
interior tokens lie inside the shell).

**Prefix segment pairs** (``prefix_segment_pair_dataset``, for the causal layer; ours [D]). The
pair's sequences in the order

    (a_1, a_2, p, q, c_5, ..., c_n)    and    (b_1, b_2, p, q, c_5, ..., c_n):

the segment pair as prefixes, continued identically. At every position from ``q`` on (index
``COMPLETE = 3``) the two prefix sets are again a segment pair (shared tokens ``{p, q, c_5..c_k}``,
the same interior tokens), so the argument above holds for causal attention at each of them: causal
hardmax and causal uniform attention give the same output at every position ``k >= 3`` of the two
sequences, whatever the weights. (Uniform also at ``p``, index 2: equal sums over equal counts;
hardmax there sees ``a_2`` against ``b_2`` without the far end ``q``.) Labels are a function of
(token, prefix set) (``datasets.prefix_labels``) and differ between the two sequences at ``q``.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from expressivity.arguments import index
from expressivity.arguments import integer as _integer
from expressivity.datasets import TokenDataset, n_token_sets, prefix_labels, validate_dataset

#: Positions of the interior tokens on the segment [p, q] in S_A and in S_B (equal sums).
POSITIONS_A = (Fraction(1, 8), Fraction(7, 8))
POSITIONS_B = (Fraction(3, 8), Fraction(5, 8))
#: The vocabulary's coordinates are multiples of 2^-GRID_BITS: with |x| < 4 and positions in
#: multiples of 1/8 every interior token has at most 2 + GRID_BITS + 3 <= 24 significant bits.
GRID_BITS = 12


@dataclass(frozen=True)
class SegmentPairDataset:
    """A token dataset and its segment pairs.

    dataset: the ``TokenDataset`` (``N`` sequences of ``n`` tokens).
    pairs: (P, 2) int, the sequence indices ``(i_A, i_B)`` of each pair.
    ends: (P, 2) int, the vocabulary indices of each pair's segment ends ``(p, q)``.
    """

    dataset: TokenDataset
    pairs: np.ndarray
    ends: np.ndarray


def _grid_vocab(rng: np.random.Generator, vocab_size: int, d: int, r_min: float,
                r_max: float) -> np.ndarray:
    """Random tokens (uniform directions, norms uniform in [r_min, r_max]) rounded to the grid."""
    g = rng.standard_normal((vocab_size, d))
    g /= np.linalg.norm(g, axis=1, keepdims=True)
    return _on_grid(g * rng.uniform(r_min, r_max, size=(vocab_size, 1)))


def _on_grid(tokens: np.ndarray) -> np.ndarray:
    """``tokens`` rounded to multiples of ``2^-GRID_BITS`` (coordinates below 4 in magnitude then
    keep every interior token exact in float32; module docstring)."""
    return np.round(tokens * 2**GRID_BITS) / 2**GRID_BITS


#: Rounds of redrawing coinciding grid tokens before giving up (each round redraws only the
#: repeats; at d >= 2 a repeat is practically never drawn, at d = 1 a few rounds suffice).
REDRAWS = 100


def _distinct_grid_vocab(rng: np.random.Generator, vocab_size: int, d: int, r_min: float,
                         r_max: float) -> np.ndarray:
    """``_grid_vocab`` with tokens that rounded onto an earlier one redrawn
    (``distinct_grid_tokens``)."""
    return distinct_grid_tokens(rng, _grid_vocab(rng, vocab_size, d, r_min, r_max), r_min, r_max)


def distinct_grid_tokens(rng: np.random.Generator, tokens: np.ndarray, r_min: float,
                         r_max: float) -> np.ndarray:
    """``tokens`` (``(V, d)``, norms in ``[r_min, r_max]``) rounded to the grid, those that rounded
    onto an earlier one redrawn (the generator draws nothing more when no two coincide). A
    ``ValueError`` names ``d`` and ``vocab_size`` when the grid is too small for them."""
    base = _on_grid(tokens)
    vocab_size, d = base.shape
    for _ in range(REDRAWS):
        _, first = np.unique(base, axis=0, return_index=True)
        repeats = np.setdiff1d(np.arange(vocab_size), first)
        if repeats.size == 0:
            return base
        base[repeats] = _grid_vocab(rng, repeats.size, d, r_min, r_max)
    raise ValueError(f"vocab_size={vocab_size} distinct tokens with norms in [{r_min}, {r_max}] on "
                     f"the 2^-{GRID_BITS} grid in d={d} could not be drawn; raise d or lower "
                     "vocab_size")


def _token_key(x: np.ndarray) -> bytes:
    return (x + 0.0).tobytes()  # + 0.0: -0.0 and 0.0 are the same coordinate


def draw_segments(rng: np.random.Generator, base: np.ndarray,
                  pairs: int) -> tuple[list[tuple[int, int]], list[np.ndarray]]:
    """``pairs`` distinct random segments ``(p, q)`` between tokens of ``base`` (``(V, d)``, on the
    ``2^-GRID_BITS`` grid) and their interior tokens ``p + s (q - p)``, ``s`` in ``POSITIONS_A``
    then ``POSITIONS_B`` (four a segment, in that order). A segment whose interior tokens meet a
    token of ``base``, an earlier interior token or 0 is passed over (in practice only at d = 1); a
    ``ValueError`` names ``pairs`` when the segments run out."""
    vocab_size, d = base.shape
    ends: list[tuple[int, int]] = []
    taken: set[tuple[int, int]] = set()
    interior: list[np.ndarray] = []
    tokens_seen = {_token_key(x) for x in base}
    while len(ends) < pairs:
        if len(taken) == vocab_size * (vocab_size - 1) // 2:
            raise ValueError(f"pairs={pairs} segments whose interior tokens are new points could "
                             f"not be found among the vocab_size={vocab_size} tokens in d={d}; "
                             "raise d or vocab_size")
        p, q = (int(t) for t in rng.choice(vocab_size, size=2, replace=False))
        if (min(p, q), max(p, q)) in taken:
            continue
        taken.add((min(p, q), max(p, q)))
        inner = [base[p] + float(s) * (base[q] - base[p]) for s in (*POSITIONS_A, *POSITIONS_B)]
        keys = {_token_key(x) for x in inner}
        if len(keys) < 4 or keys & tokens_seen or not all(x.any() for x in inner):
            continue  # an interior token on an earlier token or at 0 (in practice only at d = 1)
        tokens_seen |= keys
        ends.append((p, q))
        interior += inner
    return ends, interior


def segment_pair_dataset(rng: np.random.Generator, *, vocab_size: int, d: int, n: int,
                         N: int, pairs: int, n_classes: int, r_min: float = 1.0,
                         r_max: float = 2.0) -> SegmentPairDataset:
    """Draw a dataset with ``pairs`` segment pairs among its ``N`` sequences (module docstring).

    Needs ``n >= 4`` (two segment ends and two interior tokens), ``2 pairs <= N``, enough segments
    (``pairs <= C(vocab_size, 2)``) and enough token sets for the other sequences; ``0 < r_min <=
    r_max < 4``; ``n_classes >= 2``. A ``ValueError`` names the argument otherwise. Every token is
    a distinct point: grid tokens that round onto an earlier one are redrawn, and a segment whose
    interior tokens meet an earlier token (or 0) is passed over (both only happen in practice at
    d = 1, where the grid holds ``2 (2^GRID_BITS (r_max - r_min) + 1)`` points).
    """
    vocab_size = _integer("vocab_size", vocab_size, 2)
    d, n, N = _integer("d", d, 1), _integer("n", n, 4), _integer("N", N, 2)
    pairs, n_classes = _integer("pairs", pairs, 1), _integer("n_classes", n_classes, 2)
    if not (np.isfinite(r_min) and np.isfinite(r_max) and 0 < r_min <= r_max < 4):
        raise ValueError(f"need 0 < r_min <= r_max < 4, got r_min={r_min!r}, r_max={r_max!r}")
    if 2 * pairs > N:
        raise ValueError(f"pairs={pairs} needs N >= {2 * pairs} sequences, got N={N}")
    if pairs > vocab_size * (vocab_size - 1) // 2:
        raise ValueError(f"pairs={pairs} distinct segments need vocab_size*(vocab_size-1)/2 >= "
                         f"pairs, got vocab_size={vocab_size}")
    if n > vocab_size:
        raise ValueError(f"n={n} distinct tokens need vocab_size >= n, got {vocab_size}")
    others = N - 2 * pairs
    if others > n_token_sets(vocab_size, n):
        raise ValueError(f"N - 2 pairs = {others} further sequences need as many distinct sets of "
                         f"n={n} tokens, but C({vocab_size}, {n}) = "
                         f"{n_token_sets(vocab_size, n)}")
    base = _distinct_grid_vocab(rng, vocab_size, d, r_min, r_max)
    ends, interior = draw_segments(rng, base, pairs)
    seqs, labels, pair_rows = [], [], []
    for i, (p, q) in enumerate(ends):
        rest = rng.permutation([t for t in range(vocab_size) if t not in (p, q)])[: n - 4]
        shared = [p, q, *(int(t) for t in rest)]
        first = vocab_size + 4 * i
        lab_a = rng.integers(0, n_classes, size=n)
        lab_b = rng.integers(0, n_classes, size=n)
        forced = int(rng.integers(0, 2))  # p or q: its label differs between the two sequences
        lab_b[forced] = (lab_a[forced] + 1 + rng.integers(0, n_classes - 1)) % n_classes
        pair_rows.append((len(seqs), len(seqs) + 1))
        for tokens, lab in ((shared + [first, first + 1], lab_a),
                            (shared + [first + 2, first + 3], lab_b)):
            order = rng.permutation(n)
            seqs.append(np.asarray(tokens, dtype=np.int64)[order])
            labels.append(lab[order])
    seen = {tuple(sorted(s)) for s in seqs}
    while len(seqs) < N:
        s = rng.choice(vocab_size, size=n, replace=False).astype(np.int64)
        if tuple(sorted(s)) not in seen:
            seen.add(tuple(sorted(s)))
            seqs.append(s)
            labels.append(rng.integers(0, n_classes, size=n))
    vocab = np.concatenate([base, np.asarray(interior)])
    norms = np.linalg.norm(vocab, axis=1)
    diff = vocab[:, None, :] - vocab[None, :, :]
    dist = np.sqrt((diff**2).sum(-1))
    dist[np.diag_indices(len(vocab))] = np.inf
    ds = TokenDataset(vocab=vocab, sequences=np.asarray(seqs), labels=np.asarray(labels),
                      r_min=float(norms.min()), r_max=float(norms.max()), eps=float(dist.min()))
    validate_dataset(ds)
    return SegmentPairDataset(dataset=ds, pairs=np.asarray(pair_rows, dtype=np.int64),
                              ends=np.asarray(ends, dtype=np.int64))


#: Index of the first position of a prefix segment pair from which causal hardmax and uniform
#: attention provably collide (the far segment end ``q``).
COMPLETE = 3


def prefix_segment_pair_dataset(rng: np.random.Generator, *, vocab_size: int, d: int, n: int,
                                N: int, pairs: int, n_classes: int, r_min: float = 1.0,
                                r_max: float = 2.0) -> SegmentPairDataset:
    """``segment_pair_dataset``'s draw with every pair's sequences in the causal order of the
    module docstring (the shared tokens after ``p, q`` in one random order for both) and labels
    drawn again as a function of (token, prefix set), the label at ``q`` (index ``COMPLETE``)
    forced to differ between the two sequences of a pair; the other sequences keep their order.
    The labels are validated under the prefix rule (``validate_dataset(..., "prefix")``)."""
    spd = segment_pair_dataset(rng, vocab_size=vocab_size, d=d, n=n, N=N, pairs=pairs,
                               n_classes=n_classes, r_min=r_min, r_max=r_max)
    ds = spd.dataset
    seqs = ds.sequences.copy()
    for (i_a, i_b), (p, q) in zip(spd.pairs.tolist(), spd.ends.tolist(), strict=True):
        set_a, set_b = set(seqs[i_a].tolist()), set(seqs[i_b].tolist())
        rest = [int(t) for t in rng.permutation(sorted(set_a & set_b - {p, q}))]
        for i, only in ((i_a, set_a - set_b), (i_b, set_b - set_a)):
            seqs[i] = [*sorted(only), p, q, *rest]
    labels = prefix_labels(rng, seqs, n_classes)
    for i_a, i_b in spd.pairs.tolist():  # (q, prefix of i_b) occurs in i_b only: free to change
        shift = 1 + int(rng.integers(0, n_classes - 1))
        labels[i_b, COMPLETE] = (labels[i_a, COMPLETE] + shift) % n_classes
    causal = TokenDataset(vocab=ds.vocab, sequences=seqs, labels=labels, r_min=ds.r_min,
                          r_max=ds.r_max, eps=ds.eps)
    validate_dataset(causal, label_rule="prefix")
    return SegmentPairDataset(dataset=causal, pairs=spd.pairs, ends=spd.ends)


def _exact(x: np.ndarray) -> list[Fraction]:
    return [Fraction(float(v)) for v in np.asarray(x, dtype=float).reshape(-1)]


def check_segment_pair(ds: TokenDataset, i_a: int, i_b: int) -> list[int]:
    """The shared tokens of sequences ``i_a`` and ``i_b`` after checking, in exact rational
    arithmetic on the stored floats, that they form a segment pair: each has two tokens the other
    lacks, both pairs of them sum to the same vector, and all four lie strictly inside a segment
    between two shared tokens. A ``ValueError`` says which condition fails."""
    i_a, i_b = index("i_a", i_a, len(ds.sequences)), index("i_b", i_b, len(ds.sequences))
    set_a, set_b = set(ds.sequences[i_a].tolist()), set(ds.sequences[i_b].tolist())
    only_a, only_b, shared = sorted(set_a - set_b), sorted(set_b - set_a), sorted(set_a & set_b)
    if len(only_a) != 2 or len(only_b) != 2:
        raise ValueError(f"sequences {i_a} and {i_b} must differ in exactly two tokens each, got "
                         f"{only_a} and {only_b}")
    vec = {t: _exact(ds.vocab[t]) for t in (*only_a, *only_b, *shared)}
    sum_a = [x + y for x, y in zip(vec[only_a[0]], vec[only_a[1]], strict=True)]
    sum_b = [x + y for x, y in zip(vec[only_b[0]], vec[only_b[1]], strict=True)]
    if sum_a != sum_b:
        raise ValueError(f"sequences {i_a} and {i_b}: the tokens they do not share have different "
                         "sums (exactly)")
    for p in shared:
        for q in shared:
            if p < q and all(_inside(vec[p], vec[q], vec[t]) for t in (*only_a, *only_b)):
                return shared
    raise ValueError(f"sequences {i_a} and {i_b}: the tokens they do not share do not lie inside "
                     "one segment between shared tokens")


def _inside(p: list[Fraction], q: list[Fraction], x: list[Fraction]) -> bool:
    """Whether ``x = p + s (q - p)`` exactly for some ``0 < s < 1``."""
    s = None
    for pi, qi, xi in zip(p, q, x, strict=True):
        if pi == qi:
            if xi != pi:
                return False
            continue
        si = (xi - pi) / (qi - pi)
        if s is None:
            s = si
        elif si != s:
            return False
    return s is not None and 0 < s < 1
