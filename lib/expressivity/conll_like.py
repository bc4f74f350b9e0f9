"""CoNLL-shaped token-tagging data: a Zipf vocabulary, tags mostly ``O``, a few ambiguous types.

The memorization experiment of Kajitsuka & Sato 2024 (Sec. 6) trains a one-layer rank-1 model to
near-perfect training accuracy on a named-entity dataset of CoNLL-2003's size (per secondary
sources; notes ``kajitsuka_sato.md`` Sec. 6, the paper's own setup was not retrievable). This module
makes data of that shape ([D], ours) in the setting of their Theorem 2 (``expressivity.datasets``:
token-wise separated vocabulary, sentences of distinct tokens, labels consistent under
permutation), and reads the CoNLL format for users who have the file.

``conll_like_dataset`` draws

- ``V`` word types with fixed random token vectors (uniform directions in ``R^d``, norms uniform in
  ``[r_min, r_max] = [1, 2]``) and Zipf frequencies ``p_r ∝ r^(-s)`` (rank ``r = 1..V``, ``s = 1.1``:
  word frequencies of English text);
- ``N`` sentences of ``n`` *distinct* types drawn from the Zipf law without replacement (with
  ``repeats``: with replacement, a variant outside Theorem 2's hypothesis);
- ``n_tags = 9`` tags (CoNLL-2003's IOB tags; tag 0 is ``O``): each type has a base tag, ``O`` with
  probability ``p_outside = 0.83`` (CoNLL-2003's share of ``O`` tokens) and otherwise uniform over
  the other tags; a fraction ``a`` of the types is *ambiguous*: their tag in a sentence is a hash of
  (type, the sentence's token set) into the ``n_tags`` tags. Labels are therefore a function of
  (token, token set): consistent under permutation, so a contextual mapping followed by a token-wise
  map can fit them all (Kajitsuka & Sato 2024, Cor. 1), while no token-wise map alone can (an
  ambiguous type seen in several sentences carries several tags).

  The ambiguous types are a systematic sample over the frequency ranks (with a random offset
  ``u``, rank ``r`` is ambiguous when ``floor(a r + u) > floor(a (r - 1) + u)``): every block of
  ``1 / a`` consecutive ranks holds one, so the share of *tokens* of ambiguous type is close to
  ``a`` for every draw (an independent coin per type would make it hinge on whether the few most
  frequent types are ambiguous).

**Embedded segment pairs** (``pairs = P``, 0 by default; the construction is ours [D]). Without
them the data cannot credit softmax: generic token sets have distinct token means, so mean pooling
(uniform attention, ``lam = 0``) is already a contextual mapping and the uniform arm memorizes too.
With ``P > 0`` the vocabulary is rounded to the ``2^-12`` grid of ``expressivity.segment_pairs``
and the last ``2 P`` sentences are ``P`` segment pairs (``segment_pairs.draw_segments``: two
sentences ``C ∪ {a_1, a_2}`` and ``C ∪ {b_1, b_2}`` that share ``n - 2`` tokens, among them the
segment ends ``p, q``, with four new interior types on ``[p, q]`` at positions (1/8, 7/8) and
(3/8, 5/8), so ``a_1 + a_2 = b_1 + b_2`` exactly). The pair's other ``n - 4`` shared tokens are
drawn from the Zipf law like any sentence's, its labels are tagged like any sentence's (base tags,
ambiguous types hashed with the set; the four interior types get base tags), and then one segment
end's tag is changed in the second sentence so that every pair holds at least one conflict. The
two sets differ (each holds its own interior types), so the labels stay a function of (token,
token set) and ``set_ceiling`` stays 1 for sentences of distinct tokens. Why the pairs bind the
ceilings: in any one-layer transformer with hardmax or uniform attention, a shared token gets the
same output in both sentences of a pair (the scores are linear in the keys, so hardmax averages
the same extreme tokens, or the same extreme tokens plus an interior pair with equal sums, and the
mean is equal: Kajitsuka & Sato 2024, Thm 1's mechanism, notes ``kajitsuka_sato.md`` Sec. 2.3, in
the general form of ``expressivity.segment_pairs``); one of two different tags is then wrong, so
``accuracy_ceilings.blind_ceiling`` < 1 bounds the uniform and hardmax arms, while softmax weights
``e^{f(x_j)}`` see the spread of the interior tokens (Thm 2) and can separate the two sentences.
``segment_pair_rows(N, P)`` gives the pairs' sentence indices.

``read_conll`` reads the CoNLL-2003 format (one token a line, ``word POS chunk NER``, blank lines
between sentences, ``-DOCSTART-`` lines skipped); ``conll_dataset`` turns its sentences into the
same ``TokenDataset`` (types by frequency rank, random token vectors, tags in the order of
``CONLL_TAGS``).
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from expressivity.arguments import integer
from expressivity.datasets import TokenDataset, validate_dataset
from expressivity.segment_pairs import distinct_grid_tokens, draw_segments

#: CoNLL-2003's NER tags (IOB), ``O`` first: tag ``0`` is the base tag of most types.
CONLL_TAGS = ("O", "B-PER", "I-PER", "B-ORG", "I-ORG", "B-LOC", "I-LOC", "B-MISC", "I-MISC")


def _fraction(name: str, value, *, open_low: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ValueError(f"{name} must be a number in [0, 1], got {value!r}")
    ok = (0 < value <= 1) if open_low else (0 <= value <= 1)
    if not ok:
        raise ValueError(f"{name} must be in {'(0, 1]' if open_low else '[0, 1]'}, got {value!r}")
    return float(value)


def zipf_probabilities(V: int, s: float = 1.1) -> np.ndarray:
    """``p_r = r^(-s) / sum_k k^(-s)`` for ranks ``r = 1..V`` (type ``r - 1``)."""
    V = integer("V", V, 1)
    if isinstance(s, bool) or not (isinstance(s, (int, float)) and 0 < s < np.inf):
        raise ValueError(f"zipf exponent s must be a finite number > 0, got {s!r}")
    p = np.arange(1, V + 1, dtype=float) ** -float(s)
    return p / p.sum()


def ambiguous_types(V: int, a: float, u: float) -> np.ndarray:
    """Boolean ``(V,)``: type ``r - 1`` is ambiguous when ``floor(a r + u) > floor(a (r - 1) + u)``
    (a systematic sample of the ranks with offset ``u`` in ``[0, 1)``; ``round(a V)`` of them up to
    one)."""
    r = np.arange(1, V + 1, dtype=float)
    return np.floor(a * r + u) > np.floor(a * (r - 1) + u)


def _set_hash_tags(salt: bytes, types: Sequence[int], token_set: Iterable[int],
                   n_tags: int) -> list[int]:
    """The tag of each of ``types`` in a sentence with ``token_set``: blake2b of (salt, type,
    sorted set) modulo ``n_tags`` (a fixed function of (type, set), so consistent)."""
    key = b",".join(str(t).encode() for t in sorted(set(token_set)))
    return [int.from_bytes(hashlib.blake2b(salt + str(t).encode() + b"|" + key,
                                           digest_size=8).digest(), "little") % n_tags
            for t in types]


def _token_vectors(rng: np.random.Generator, V: int, d: int, r_min: float,
                   r_max: float) -> tuple[np.ndarray, float]:
    """Uniform directions, norms uniform in ``[r_min, r_max]``; the measured smallest pairwise
    distance (the dataset's ``eps``)."""
    vocab = _random_tokens(rng, V, d, r_min, r_max)
    return vocab, _separation(vocab, r_max)


def _random_tokens(rng: np.random.Generator, V: int, d: int, r_min: float,
                   r_max: float) -> np.ndarray:
    g = rng.standard_normal((V, d))
    g /= np.linalg.norm(g, axis=1, keepdims=True)
    return g * rng.uniform(r_min, r_max, size=(V, 1))


def _separation(vocab: np.ndarray, r_max: float) -> float:
    """The smallest distance between two tokens of ``vocab`` (``2 r_max`` for a single token),
    shrunk by a relative 1e-9 so that it is a lower bound; coinciding tokens are refused."""
    V = len(vocab)
    if V == 1:
        return 2 * r_max
    sq = (vocab**2).sum(1)
    dist2 = sq[:, None] + sq[None, :] - 2 * vocab @ vocab.T
    dist2[np.diag_indices(V)] = np.inf
    a, b = np.unravel_index(np.argmin(dist2), dist2.shape)
    eps = float(np.linalg.norm(vocab[a] - vocab[b]))  # exact, not the Gram form's rounding
    if not eps > 0:
        raise ValueError("drawn vocabulary has coinciding tokens; use another seed")
    return eps * (1 - 1e-9)


def _tags(base: np.ndarray, ambiguous: np.ndarray, salt: bytes, row: np.ndarray,
          n_tags: int) -> np.ndarray:
    """The tags of one sentence ``row``: each type's base tag, an ambiguous type's tag hashed with
    the sentence's token set."""
    labels = base[row].copy()
    amb = np.flatnonzero(ambiguous[row])
    if amb.size:
        labels[amb] = _set_hash_tags(salt, row[amb].tolist(), row.tolist(), n_tags)
    return labels


def segment_pair_rows(N: int, pairs: int) -> np.ndarray:
    """``(pairs, 2)``: the sentence indices of the segment pairs of ``conll_like_dataset(N=N,
    pairs=pairs)`` (its last ``2 pairs`` sentences, two by two)."""
    first = integer("N", N, 1) - 2 * integer("pairs", pairs, 0)
    return np.arange(first, N, dtype=np.int64).reshape(-1, 2)


def conll_like_dataset(rng: np.random.Generator, *, V: int, d: int, n: int, N: int, a: float,
                       n_tags: int = len(CONLL_TAGS), p_outside: float = 0.83,
                       zipf: float = 1.1, repeats: bool = False, r_min: float = 1.0,
                       r_max: float = 2.0, pairs: int = 0) -> TokenDataset:
    """``N`` CoNLL-shaped sentences of ``n`` tokens over ``V`` types in ``R^d`` with a fraction
    ``a`` of ambiguous types, the last ``2 pairs`` of them segment pairs over ``4 pairs`` further
    interior types (module docstring; ``pairs = 0`` draws exactly what it drew before pairs
    existed). Validated as a ``TokenDataset`` (Theorem 2's hypotheses) unless ``repeats`` (tokens
    may then repeat within a sentence; a pair's sentences never do)."""
    V, d, n, N = (integer(k, v, 1) for k, v in (("V", V), ("d", d), ("n", n), ("N", N)))
    n_tags = integer("n_tags", n_tags, 2)
    pairs = integer("pairs", pairs, 0)
    a, p_outside = _fraction("a", a), _fraction("p_outside", p_outside)
    if not repeats and n > V:
        raise ValueError(f"n = {n} distinct tokens per sentence need V >= n, got V = {V}")
    if not 0 < r_min <= r_max:
        raise ValueError(f"need 0 < r_min <= r_max, got r_min = {r_min}, r_max = {r_max}")
    if pairs:
        if n < 4 or n > V:
            raise ValueError(f"pairs = {pairs} segment pairs need 4 <= n <= V (two segment ends and "
                             f"two interior tokens), got n = {n}, V = {V}")
        if 2 * pairs > N:
            raise ValueError(f"pairs = {pairs} segment pairs need N >= {2 * pairs} sentences, got "
                             f"N = {N}")
        if r_max >= 4:
            raise ValueError(f"pairs need r_max < 4 (exact interior tokens on the grid), got "
                             f"r_max = {r_max}")
    p = zipf_probabilities(V, zipf)
    vocab = _random_tokens(rng, V, d, r_min, r_max)
    base = np.where(rng.random(V) < p_outside, 0, rng.integers(1, n_tags, size=V))
    ambiguous = ambiguous_types(V, a, float(rng.random()))
    salt = rng.bytes(16)
    sequences = np.array([rng.choice(V, size=n, replace=bool(repeats), p=p)
                          for _ in range(N - 2 * pairs)], dtype=np.int64).reshape(-1, n)
    labels = np.array([_tags(base, ambiguous, salt, row, n_tags) for row in sequences],
                      dtype=np.int64).reshape(-1, n)
    r_lo, r_hi = float(r_min), float(r_max)
    if pairs:
        vocab, seqs, tags = _embed_pairs(rng, vocab, base, ambiguous, salt, p, n, pairs, n_tags,
                                         p_outside, r_min, r_max)
        sequences, labels = np.concatenate([sequences, seqs]), np.concatenate([labels, tags])
        norms = np.linalg.norm(vocab, axis=1)  # interior tokens lie inside the shell
        r_lo, r_hi = float(norms.min()), float(norms.max())
    eps = _separation(vocab, r_hi)
    ds = TokenDataset(vocab=vocab, sequences=sequences.astype(np.int64),
                      labels=labels.astype(np.int64), r_min=r_lo, r_max=r_hi, eps=eps)
    if not repeats:
        validate_dataset(ds)
    return ds


def _embed_pairs(rng: np.random.Generator, vocab: np.ndarray, base: np.ndarray,
                 ambiguous: np.ndarray, salt: bytes, p: np.ndarray, n: int, pairs: int,
                 n_tags: int, p_outside: float, r_min: float, r_max: float):
    """The vocabulary on the grid (types that rounded onto one point redrawn) with ``4 pairs``
    interior types appended (their base tags drawn like the others', none ambiguous), and the
    ``2 pairs`` sentences and tags of the segment pairs (module docstring)."""
    V = len(vocab)
    vocab = distinct_grid_tokens(rng, vocab, r_min, r_max)
    ends, interior = draw_segments(rng, vocab, pairs)
    inner_base = np.where(rng.random(4 * pairs) < p_outside, 0,
                          rng.integers(1, n_tags, size=4 * pairs))
    base = np.concatenate([base, inner_base])
    ambiguous = np.concatenate([ambiguous, np.zeros(4 * pairs, dtype=bool)])
    seqs, tags = [], []
    for i, (end_p, end_q) in enumerate(ends):
        others = p.copy()
        others[[end_p, end_q]] = 0
        rest = rng.choice(V, size=n - 4, replace=False, p=others / others.sum())
        shared = [end_p, end_q, *(int(t) for t in rest)]
        first = V + 4 * i
        rows = [np.asarray(shared + [first, first + 1]), np.asarray(shared + [first + 2, first + 3])]
        lab = [_tags(base, ambiguous, salt, row, n_tags) for row in rows]
        forced = int(rng.integers(0, 2))  # p or q: its tag differs between the two sentences
        lab[1][forced] = (lab[0][forced] + 1 + rng.integers(0, n_tags - 1)) % n_tags
        for row, tag in zip(rows, lab, strict=True):
            order = rng.permutation(n)
            seqs.append(row[order])
            tags.append(tag[order])
    return np.concatenate([vocab, np.asarray(interior)]), np.stack(seqs), np.stack(tags)


def read_conll(path: str | Path, column: int = -1) -> list[tuple[list[str], list[str]]]:
    """Sentences ``[(words, tags)]`` of a CoNLL-format file: one token a line, whitespace-separated
    columns (the word first, the tag in ``column``, the last by default), sentences separated by
    blank lines, ``-DOCSTART-`` lines skipped. A line with too few columns is refused with its
    number."""
    sentences: list[tuple[list[str], list[str]]] = []
    words: list[str] = []
    tags: list[str] = []
    with open(path, encoding="utf-8") as fh:
        for number, line in enumerate(fh, 1):
            fields = line.split()
            if not fields or fields[0] == "-DOCSTART-":
                if words:
                    sentences.append((words, tags))
                words, tags = [], []
                continue
            try:
                tag = fields[column]
            except IndexError:
                raise ValueError(f"{path}, line {number}: no column {column} in {line!r}") from None
            if len(fields) < 2:
                raise ValueError(f"{path}, line {number}: need a word and a tag, got {line!r}")
            words.append(fields[0])
            tags.append(tag)
    if words:
        sentences.append((words, tags))
    return sentences


def conll_dataset(sentences: Sequence[tuple[Sequence[str], Sequence[str]]],
                  rng: np.random.Generator, *, d: int, n: int,
                  tags: Sequence[str] = CONLL_TAGS) -> tuple[TokenDataset, dict]:
    """The sentences of ``read_conll`` as a ``TokenDataset`` of length ``n``: each sentence's first
    ``n`` tokens; sentences shorter than ``n`` or with a repeated word among them are left out (the
    report counts them: Theorem 2 needs distinct tokens). Types are numbered by frequency rank over
    the kept sentences; token vectors as ``conll_like_dataset``'s. Returns the dataset and
    ``{"sentences", "kept", "short", "repeated", "types"}``. An unknown tag is refused by name."""
    d, n = integer("d", d, 1), integer("n", n, 1)
    index = {t: i for i, t in enumerate(tags)}
    kept, short, repeated = [], 0, 0
    for words, labels in sentences:
        if len(words) < n:
            short += 1
            continue
        if len(set(words[:n])) < n:
            repeated += 1
            continue
        for tag in labels[:n]:
            if tag not in index:
                raise ValueError(f"unknown tag {tag!r}; known tags: {', '.join(tags)}")
        kept.append((list(words[:n]), [index[t] for t in labels[:n]]))
    if not kept:
        raise ValueError(f"no sentence has {n} distinct words among its first {n}: lower n")
    counts = Counter(w for words, _ in kept for w in words)
    rank = {w: r for r, (w, _) in enumerate(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))}
    vocab, eps = _token_vectors(rng, len(rank), d, 1.0, 2.0)
    ds = TokenDataset(vocab=vocab,
                      sequences=np.array([[rank[w] for w in ws] for ws, _ in kept], dtype=np.int64),
                      labels=np.array([ls for _, ls in kept], dtype=np.int64), r_min=1.0,
                      r_max=2.0, eps=eps)
    return ds, {"sentences": len(sentences), "kept": len(kept), "short": short,
                "repeated": repeated, "types": len(rank)}
