"""Token-wise separated datasets of sequences with permutation-consistent token labels.

The setting of Kajitsuka & Sato 2024 (ICLR), Theorem 2 and Corollary 1 (hypotheses recalled from the
paper, not checked against its PDF; see ``shared/papers/kajitsuka_sato.md`` section 1.3):

- a vocabulary ``V`` of tokens in ``R^d`` with ``r_min <= ||v|| <= r_max`` and ``||v - v'|| >= eps``
  for ``v != v'`` ("token-wise (r_min, r_max, eps)-separated");
- ``N`` sequences ``X^(i)`` of ``n`` *distinct* tokens (rows here: ``X^(i): (n, d)``);
- labels ``y^(i)_k`` consistent under permutation: if the token sets agree, ``V^(i) = V^(j)``, and
  ``x^(i)_k = x^(j)_l`` then ``y^(i)_k = y^(j)_l``. Any transformer without positional encoding is
  permutation equivariant, so no consistent labelling can be memorized otherwise.

A dataset stores token *indices* into the vocabulary; ``TokenDataset.inputs()`` gives the ``(N, n,
d)`` array of token vectors.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

from expressivity.arguments import integer

#: Relative slack on the norm bounds: a token drawn with norm exactly ``r_max`` may round above it.
NORM_RTOL = 1e-12
#: Above this many token sets, sample sets by rejection instead of enumerating them.
_ENUMERATE_LIMIT = 200_000


@dataclass(frozen=True)
class TokenDataset:
    """A token-wise separated dataset.

    vocab: (V, d) float64 token vectors; norms in [r_min, r_max]; pairwise distance >= eps.
    sequences: (N, n) int indices into ``vocab``; distinct within each row.
    labels: (N, n) int class labels in [0, n_classes); a function of (token, set of tokens of the
        sequence), so consistent under permutation.
    """

    vocab: np.ndarray
    sequences: np.ndarray
    labels: np.ndarray
    r_min: float
    r_max: float
    eps: float

    @property
    def vocab_size(self) -> int:
        return int(self.vocab.shape[0])

    @property
    def d(self) -> int:
        return int(self.vocab.shape[1])

    @property
    def N(self) -> int:
        return int(self.sequences.shape[0])

    @property
    def n(self) -> int:
        return int(self.sequences.shape[1])

    def inputs(self) -> np.ndarray:
        """The sequences as token vectors, ``X: (N, n, d)`` (tokens are rows)."""
        return self.vocab[self.sequences]


def n_token_sets(vocab_size: int, n: int) -> int:
    """Number of distinct sets of ``n`` tokens from a vocabulary of ``vocab_size``: C(|V|, n)."""
    return math.comb(vocab_size, n)


def _draw_vocab(rng: np.random.Generator, vocab_size: int, d: int, r_min: float, r_max: float,
                eps: float | None, max_tries: int) -> tuple[np.ndarray, float]:
    """Tokens with uniform directions and norms uniform in [r_min, r_max], pairwise >= eps.

    With ``eps=None`` the vocabulary is drawn once and ``eps`` is its measured minimum pairwise
    distance. Otherwise tokens are drawn one at a time and rejected when closer than ``eps`` to an
    accepted one (at most ``max_tries`` draws in all).
    """
    def one(k: int) -> np.ndarray:
        g = rng.standard_normal((k, d))
        g /= np.linalg.norm(g, axis=1, keepdims=True)
        return g * rng.uniform(r_min, r_max, size=(k, 1))

    if eps is None:
        vocab = one(vocab_size)
        diff = vocab[:, None, :] - vocab[None, :, :]
        dist = np.sqrt((diff**2).sum(-1))
        dist[np.diag_indices(vocab_size)] = np.inf
        measured = float(dist.min()) if vocab_size > 1 else 2 * r_max
        if measured <= 0:
            raise ValueError("drawn vocabulary has coinciding tokens; use another seed")
        return vocab, measured
    accepted: list[np.ndarray] = []
    tries = stuck = 0
    while len(accepted) < vocab_size:
        if tries >= max_tries:
            raise ValueError(
                f"could not place {vocab_size} tokens in dimension d={d} with norms in "
                f"[{r_min}, {r_max}] and pairwise distance >= eps={eps} in {max_tries} draws; "
                "lower eps or vocab_size"
            )
        tries += 1
        x = one(1)[0]
        if all(np.linalg.norm(x - y) >= eps for y in accepted):
            accepted.append(x)
            stuck = 0
        else:
            stuck += 1
            if stuck >= 1000:  # an unlucky early placement blocks the rest: start again
                accepted, stuck = [], 0
    return np.array(accepted), float(eps)


def _draw_sets(rng: np.random.Generator, vocab_size: int, n: int, N: int) -> np.ndarray:
    """``N`` distinct sorted n-subsets of range(vocab_size), as an (N, n) int array."""
    total = n_token_sets(vocab_size, n)
    if N > total:
        raise ValueError(
            f"N={N} sequences requested but a vocabulary of {vocab_size} tokens has only "
            f"C({vocab_size}, {n}) = {total} distinct sets of n={n} tokens; sequences with the same "
            "token set are permutations of each other (same outputs, same labels): lower N"
        )
    if total <= _ENUMERATE_LIMIT:
        combos = np.array(list(itertools.combinations(range(vocab_size), n)), dtype=np.int64)
        pick = np.sort(rng.choice(total, size=N, replace=False))
        return combos[pick]
    seen: set[tuple[int, ...]] = set()
    rows: list[tuple[int, ...]] = []
    while len(rows) < N:
        s = tuple(sorted(int(t) for t in rng.choice(vocab_size, size=n, replace=False)))
        if s not in seen:
            seen.add(s)
            rows.append(s)
    return np.array(rows, dtype=np.int64)


def token_separated_dataset(rng: np.random.Generator, vocab_size: int, d: int, n: int, N: int,
                            n_classes: int, r_min: float = 1.0, r_max: float = 2.0,
                            eps: float | None = None, max_tries: int = 100_000) -> TokenDataset:
    """Draw a token-wise separated dataset with ``N`` distinct token sets of size ``n``.

    Tokens: uniform random directions in ``R^d`` with norms uniform in ``[r_min, r_max]``; with
    ``eps`` given they are rejection-sampled to pairwise distance ``>= eps``, with ``eps=None`` the
    dataset's ``eps`` is the measured minimum pairwise distance. Sequences: ``N`` distinct
    n-subsets of the vocabulary (an error names ``N`` when ``N > C(|V|, n)``), each in a random
    order. Labels: independent uniform classes per (sequence, position); since the token sets are
    distinct, this is a function of (token, token set), i.e. consistent under permutation.
    """
    for name, value, low in (("vocab_size", vocab_size, 1), ("d", d, 1), ("n", n, 1), ("N", N, 1),
                             ("n_classes", n_classes, 1)):
        integer(name, value, low)
    if n > vocab_size:
        raise ValueError(f"n={n} distinct tokens per sequence need vocab_size >= n, got {vocab_size}")
    if not (0 < r_min <= r_max):
        raise ValueError(f"need 0 < r_min <= r_max, got r_min={r_min}, r_max={r_max}")
    if eps is not None and not eps > 0:
        raise ValueError(f"eps must be > 0, got {eps}")
    sets = _draw_sets(rng, vocab_size, n, N)  # before the vocabulary: fail fast on a bad N
    vocab, eps_used = _draw_vocab(rng, vocab_size, d, r_min, r_max, eps, max_tries)
    order = np.argsort(rng.random(sets.shape), axis=1)
    sequences = np.take_along_axis(sets, order, axis=1)
    labels = rng.integers(0, n_classes, size=sequences.shape, dtype=np.int64)
    ds = TokenDataset(vocab=vocab, sequences=sequences, labels=labels, r_min=float(r_min),
                      r_max=float(r_max), eps=eps_used)
    validate_dataset(ds)
    return ds


#: What a label may depend on: the token and its sequence's token set (the layer, permutation
#: equivariant), or the token and its prefix set (the causal layer).
LABEL_RULES = ("set", "prefix")


def validate_dataset(ds: TokenDataset, label_rule: str = "set") -> None:
    """Raise ``ValueError`` naming the sequence and token for any violated hypothesis.

    Checks: shapes and finiteness; ``0 < eps`` and ``0 < r_min <= r_max``; token norms in
    ``[r_min, r_max]`` (zero-norm tokens named with a sequence that uses them); pairwise token
    distance ``>= eps``; indices in range; no duplicate token within a sequence; non-negative
    integer labels consistent with what the layer can see (``label_rule``): ``"set"``, under
    permutation (same token set and same token => same label; ``labels_consistent_sets``);
    ``"prefix"``, for the causal layer (same prefix set ``{x_1..x_k}`` and same token => same
    label; ``labels_consistent_prefixes``).
    """
    if label_rule not in LABEL_RULES:
        raise ValueError(f"label_rule must be one of {LABEL_RULES}, got {label_rule!r}")
    vocab = np.asarray(ds.vocab)
    seqs = np.asarray(ds.sequences)
    labels = np.asarray(ds.labels)
    if vocab.ndim != 2 or vocab.shape[0] < 1 or vocab.shape[1] < 1:
        raise ValueError(f"vocab must have shape (V, d) with V, d >= 1, got {vocab.shape}")
    if not np.all(np.isfinite(vocab)):
        bad = int(np.argwhere(~np.isfinite(vocab))[0, 0])
        raise ValueError(f"token {bad} has a non-finite coordinate")
    if seqs.ndim != 2 or seqs.shape[0] < 1 or seqs.shape[1] < 1:
        raise ValueError(f"sequences must have shape (N, n) with N, n >= 1, got {seqs.shape}")
    if not np.issubdtype(seqs.dtype, np.integer):
        raise ValueError(f"sequences must hold integer token indices, got dtype {seqs.dtype}")
    if labels.shape != seqs.shape:
        raise ValueError(f"labels have shape {labels.shape}, sequences {seqs.shape}: they must match")
    if not np.issubdtype(labels.dtype, np.integer):
        raise ValueError(f"labels must be integer classes, got dtype {labels.dtype}")
    if not (ds.eps > 0):
        raise ValueError(f"eps must be > 0, got {ds.eps}")
    if not (0 < ds.r_min <= ds.r_max):
        raise ValueError(f"need 0 < r_min <= r_max, got r_min={ds.r_min}, r_max={ds.r_max}")
    V = vocab.shape[0]
    out = np.argwhere((seqs < 0) | (seqs >= V))
    if len(out):
        i, k = out[0]
        raise ValueError(f"sequence {i}, position {k}: token index {seqs[i, k]} outside [0, {V})")

    def first_use(token: int) -> str:
        hit = np.argwhere(seqs == token)
        return f"sequence {hit[0, 0]}, " if len(hit) else ""

    norms = np.linalg.norm(vocab, axis=1)
    for t in np.flatnonzero(norms == 0):
        raise ValueError(f"{first_use(int(t))}token {int(t)} has zero norm (need norm >= "
                         f"r_min={ds.r_min} > 0)")
    lo, hi = ds.r_min * (1 - NORM_RTOL), ds.r_max * (1 + NORM_RTOL)
    for t in np.flatnonzero((norms < lo) | (norms > hi)):
        raise ValueError(f"{first_use(int(t))}token {int(t)} has norm {norms[t]:.17g} outside "
                         f"[r_min, r_max] = [{ds.r_min}, {ds.r_max}]")
    if V > 1:
        sq = (vocab**2).sum(1)
        gram = vocab @ vocab.T
        dist = np.sqrt(np.maximum(sq[:, None] + sq[None, :] - 2 * gram, 0))
        dist[np.diag_indices(V)] = np.inf
        # the Gram form loses accuracy for nearly equal tokens: recheck the suspects directly
        for a, b in np.argwhere(np.triu(dist < ds.eps * (1 + 1e-6), 1)):
            exact = float(np.linalg.norm(vocab[a] - vocab[b]))
            if exact < ds.eps * (1 - 1e-12):
                raise ValueError(f"{first_use(int(a))}tokens {a} and {b} are {exact:.17g} apart, "
                                 f"less than eps={ds.eps}")
    srt = np.sort(seqs, axis=1)
    dup = np.argwhere(srt[:, 1:] == srt[:, :-1])
    if len(dup):
        i, k = dup[0]
        raise ValueError(f"sequence {i} contains token {srt[i, k]} more than once "
                         "(tokens within a sequence must be distinct)")
    neg = np.argwhere(labels < 0)
    if len(neg):
        i, k = neg[0]
        raise ValueError(f"sequence {i}, token {seqs[i, k]}: negative label {labels[i, k]}")
    if label_rule == "set":
        labels_consistent_sets(seqs, labels)
    else:
        labels_consistent_prefixes(seqs, labels)


def labels_consistent_sets(seqs: np.ndarray, labels: np.ndarray) -> None:
    """A ``ValueError`` naming two sequences with the same token set that label one token
    differently (no permutation-equivariant layer can memorize them)."""
    srt = np.sort(seqs, axis=1)
    seen: dict[tuple[int, ...], tuple[int, dict[int, int]]] = {}
    for i in range(seqs.shape[0]):
        key = tuple(int(t) for t in srt[i])
        row = {int(t): int(y) for t, y in zip(seqs[i], labels[i], strict=True)}
        if key not in seen:
            seen[key] = (i, row)
            continue
        j, ref = seen[key]
        for t, y in row.items():
            if ref[t] != y:
                raise ValueError(
                    f"labels inconsistent under permutation: sequences {j} and {i} have the same "
                    f"token set but token {t} is labelled {ref[t]} in sequence {j} and {y} in "
                    f"sequence {i}"
                )


def labels_consistent_prefixes(seqs: np.ndarray, labels: np.ndarray) -> None:
    """A ``ValueError`` naming two (sequence, position) pairs with the same token and the same
    prefix set ``{x_1..x_k}`` but different labels: the causal layer gives them the same output
    (its query attends to that set only), so no causal layer and token-wise FFN can memorize
    both. The order inside the prefix is invisible to it."""
    seen: dict[tuple[int, frozenset], tuple[int, int, int]] = {}
    for i, (row, lab) in enumerate(zip(seqs.tolist(), labels.tolist(), strict=True)):
        for k, (t, y) in enumerate(zip(row, lab, strict=True)):
            key = (t, frozenset(row[: k + 1]))
            j, first, ref = seen.setdefault(key, (i, k, y))
            if ref != y:
                raise ValueError(
                    f"labels inconsistent under the causal mask: sequence {j} position {first} and "
                    f"sequence {i} position {k} have token {t} and the same prefix set "
                    f"{sorted(key[1])} but labels {ref} and {y}")


def prefix_labels(rng: np.random.Generator, sequences: np.ndarray, n_classes: int) -> np.ndarray:
    """Labels for the causal layer: an independent uniform class per distinct (token, prefix set)
    of ``sequences: (N, n)``, the same class at every occurrence (``labels_consistent_prefixes``
    holds by construction), drawn in order of first occurrence."""
    integer("n_classes", n_classes, 1)
    drawn: dict[tuple[int, frozenset], int] = {}
    out = np.zeros(np.shape(sequences), dtype=np.int64)
    for i, row in enumerate(np.asarray(sequences).tolist()):
        for k, t in enumerate(row):
            key = (t, frozenset(row[: k + 1]))
            if key not in drawn:
                drawn[key] = int(rng.integers(0, n_classes))
            out[i, k] = drawn[key]
    return out


def n_ordered_sequences(vocab_size: int, n: int) -> int:
    """Ordered sequences of ``n`` distinct tokens from ``vocab_size``: ``|V|! / (|V| - n)!``."""
    return math.perm(vocab_size, n)


def prefix_dataset(rng: np.random.Generator, vocab_size: int, d: int, n: int, N: int,
                   n_classes: int, r_min: float = 1.0, r_max: float = 2.0,
                   eps: float | None = None) -> TokenDataset:
    """A dataset for the causal layer: ``min(N, |V|!/(|V|-n)!)`` distinct *ordered* sequences of
    ``n`` distinct tokens (all of them when ``N`` reaches the count, so that every (token, set of
    at most ``n`` tokens holding it) is a prefix context; a uniform random choice otherwise), the
    tokens as in ``token_separated_dataset``, the labels ``prefix_labels``."""
    for name, value in (("vocab_size", vocab_size), ("d", d), ("n", n), ("N", N),
                        ("n_classes", n_classes)):
        integer(name, value, 1)
    if n > vocab_size:
        raise ValueError(f"n={n} distinct tokens per sequence need vocab_size >= n, got {vocab_size}")
    total = n_ordered_sequences(vocab_size, n)
    if total <= _ENUMERATE_LIMIT:
        every = np.array(list(itertools.permutations(range(vocab_size), n)), dtype=np.int64)
        seqs = every if N >= total else every[np.sort(rng.choice(total, size=N, replace=False))]
    else:
        seen: set[tuple[int, ...]] = set()
        while len(seen) < N:
            seen.add(tuple(int(t) for t in rng.choice(vocab_size, size=n, replace=False)))
        seqs = np.array(sorted(seen), dtype=np.int64)
    base = token_separated_dataset(rng, vocab_size, d, 1, 1, n_classes, r_min, r_max, eps)
    ds = TokenDataset(vocab=base.vocab, sequences=seqs, labels=prefix_labels(rng, seqs, n_classes),
                      r_min=base.r_min, r_max=base.r_max, eps=base.eps)
    validate_dataset(ds, label_rule="prefix")
    return ds
