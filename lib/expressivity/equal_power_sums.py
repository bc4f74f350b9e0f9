"""Token sets with equal power sums: datasets on which uniform averaging and hardmax attention
provably fail, while softmax attention separates (a family generalising Kajitsuka & Sato 2024's
Theorem 1 pair; the family and the arguments below are ours [D]).

**The sets** (Prouhet 1851; the Prouhet-Tarry-Escott problem). For distinct positive integers
``c_0, ..., c_k`` the signed subset sums

    A = {sum_{i in I} c_i : I ⊆ {0..k}, |I| even},     B = {sum_{i in I} c_i : |I| odd}

(``2^k`` elements each) have equal power sums ``p_j = sum_a a^j`` for ``j = 1, ..., k``: for a
polynomial ``q`` of degree ``<= k``, ``sum_I (-1)^|I| q(sum_{i in I} c_i)`` is a ``(k+1)``-fold finite
difference of ``q``, hence 0; for ``q(t) = t^(k+1)`` it is ``(-1)^(k+1) (k+1)! c_0 ... c_k != 0``.
Affine maps ``t -> s + h t`` keep the equalities.

**The datasets.** Collinear tokens ``t e`` (``e`` in ``R^d``), two sequences
``X^(1) = (A ∪ E) e`` and ``X^(2) = (B ∪ E) e``: different token sets sharing the tokens ``E``, which
hold a new minimum and a new maximum (below and above ``A ∪ B``) and possibly more. The label of
every shared token differs between the two sequences. Theorem 1's pair (1, 2, 4, 5) and
(1, 2.5, 3.5, 5) (``expressivity.theorem1``) is the ``k = 1`` member with ``c = (1, 3)``, halved and
shifted. Positions and ``e`` are dyadic with few bits, so the float64 tokens are exactly ``t e`` and
the equal sums hold exactly, not up to rounding.

**Why uniform averaging and hardmax give ``delta = 0``** (for any one-layer attention, as in
Theorem 1's proof): the score of key ``j`` for query ``k`` is ``t_j (e^T W_K^T W_Q x_k)``, linear in
``t_j``. Uniform averaging (``lam = 0``) outputs ``x_k + W_O W_V mean_j x_j`` and the means agree
(equal first power sums and sizes); hardmax attends to the largest ``t``, the smallest, or (a zero
coefficient) all of them, and the extremes and the mean agree. So the outputs at every shared token
coincide exactly, whatever the weights: ``delta = 0``, and no token-wise FFN can give them the two
different labels.

**Why softmax separates, and how slowly near 0.** With ``w = sign(z_t) z`` and ``b = lam |z_t|`` the
rank-1 layer's value ``C(b, w) = d/db log mean_j e^{b w_j} = sum_m kappa_{m+1} b^m / m!`` is the
cumulant series of the uniform distribution on ``w``. Equal ``p_1..p_k`` (and sizes) give equal
cumulants up to ``kappa_k``, and ``kappa_{k+1}`` differs by ``(p_{k+1} - p'_{k+1}) / n``, so

    C_A(b) - C_B(b) = b^k / k! (p_{k+1}(w_A) - p_{k+1}(w_B)) / n + O(b^{k+1}):

the separation is of order ``lam^k`` as ``lam -> 0`` (``small_lam_log10_delta``), and only the
selectivity of softmax (its higher cumulants) sees the difference.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from expressivity.arguments import integer as _integer
from expressivity.datasets import TokenDataset, validate_dataset
from expressivity.rank1.contexts import exact_projections_rational
from expressivity.theorem1 import THEOREM1_LABELS, THEOREM1_TOKENS

#: Bits of the direction's entries: with positions of a few bits, ``t e`` is exact in float64.
DIRECTION_BITS = 10
#: Families of ``equal_power_sum_pair``.
FAMILIES = ("prouhet", "theorem1")


@dataclass(frozen=True)
class EqualPowerSumPair:
    """Two sequences of collinear tokens with equal power sums of degree 1..k and shared extremes.

    dataset: the two sequences (``N = 2``), ``eps``, ``r_min``, ``r_max`` measured on the tokens.
    t: (V,) the tokens' positions along ``e`` (``vocab = outer(t, e)`` exactly).
    e: (d,) the direction, dyadic entries.
    k: the power sums of degree 1..k agree, that of degree k + 1 does not.
    shared: indices of the tokens in both sequences.
    family, generators: ``"prouhet"`` with its ``c``, or ``"theorem1"`` (no generators).
    """

    dataset: TokenDataset
    t: np.ndarray
    e: np.ndarray
    k: int
    shared: np.ndarray
    family: str
    generators: tuple[int, ...]


def prouhet_sets(c: Sequence[int]) -> tuple[list[int], list[int]]:
    """``(A, B)``: the sums of ``c`` over its even- and odd-sized subsets (``2^k`` each, sorted),
    with equal power sums of degree ``1..k`` (``k = len(c) - 1``). A ``ValueError`` names ``c``
    unless it holds at least two positive integers whose ``2^(k+1)`` subset sums are distinct."""
    if len(c) < 2:
        raise ValueError(f"c must hold at least 2 generators (k >= 1), got {list(c)}")
    for i, ci in enumerate(c):
        _integer(f"c[{i}]", ci, 1)
    sums = {parity: [] for parity in (0, 1)}
    for size in range(len(c) + 1):
        for subset in itertools.combinations(c, size):
            sums[size % 2].append(int(sum(subset)))
    everything = sums[0] + sums[1]
    if len(set(everything)) != len(everything):
        raise ValueError(f"c = {list(c)}: two subsets have the same sum; the sets would not be "
                         "distinct tokens")
    return sorted(sums[0]), sorted(sums[1])


def matched_degree(a: Sequence, b: Sequence, most: int = 64) -> int:
    """The largest ``k`` with ``sum a^j = sum b^j`` for ``j = 1..k`` (exact; ``a != b`` as multisets,
    of one size)."""
    if len(a) != len(b) or sorted(a) == sorted(b):
        raise ValueError("a and b must be different multisets of one size")
    fa, fb = [Fraction(x) for x in a], [Fraction(x) for x in b]
    for j in range(1, most + 1):
        if sum(x**j for x in fa) != sum(x**j for x in fb):
            return j - 1
    raise ValueError(f"the power sums agree beyond degree {most}")


def dyadic_direction(rng: np.random.Generator, d: int) -> np.ndarray:
    """A direction in ``R^d`` with entries in ``2^-DIRECTION_BITS Z`` and norm about 1 (a random
    unit vector rounded; redrawn if it rounds to 0)."""
    _integer("d", d, 1)
    while True:
        g = rng.standard_normal(d)
        e = np.round(g / np.linalg.norm(g) * 2**DIRECTION_BITS) / 2**DIRECTION_BITS
        if np.any(e != 0):
            return e


def _assemble(rng: np.random.Generator, t_a, t_b, t_shared, e: np.ndarray, labels,
              family: str, generators: tuple[int, ...]) -> EqualPowerSumPair:
    """The dataset of sequences ``t_a ∪ t_shared`` and ``t_b ∪ t_shared`` along ``e`` (positions
    exact rationals); ``labels``: ``(2, n)`` in the order of the sorted sequences."""
    seq_t = [sorted(set(t_a) | set(t_shared)), sorted(set(t_b) | set(t_shared))]
    t_all = sorted(set(seq_t[0]) | set(seq_t[1]))
    t = np.array([float(x) for x in t_all])
    if any(Fraction(float(x)) != Fraction(x) for x in t_all) or np.any(t <= 0):
        raise ValueError("token positions must be positive and exact in float64")
    vocab = np.outer(t, e)
    exact = all(Fraction(float(vocab[i, j])) == Fraction(t_all[i]) * Fraction(float(e[j]))
                for i in range(len(t)) for j in range(len(e)))
    if not exact:
        raise ValueError("t e is not exact in float64: use positions and e with fewer bits")
    index = {x: i for i, x in enumerate(t_all)}
    seqs = np.array([[index[x] for x in s] for s in seq_t], dtype=np.int64)
    shared = np.array(sorted(index[x] for x in set(t_shared)), dtype=np.int64)
    lab = np.asarray(labels, dtype=np.int64)
    order = np.argsort(rng.random(seqs.shape), axis=1)  # a random order within each sequence
    seqs, lab = np.take_along_axis(seqs, order, 1), np.take_along_axis(lab, order, 1)
    norms = np.linalg.norm(vocab, axis=1)
    eps = min(float(np.linalg.norm(vocab[i + 1] - vocab[i])) for i in range(len(t) - 1))
    ds = TokenDataset(vocab=vocab, sequences=seqs, labels=lab, r_min=float(norms.min()),
                      r_max=float(norms.max()), eps=eps)
    validate_dataset(ds)
    k = matched_degree([Fraction(x) for x in seq_t[0]], [Fraction(x) for x in seq_t[1]])
    return EqualPowerSumPair(dataset=ds, t=t, e=e, k=k, shared=shared, family=family,
                             generators=generators)


def _conflicting_labels(rng: np.random.Generator, seq_t: list[list], shared: set,
                        n_classes: int) -> np.ndarray:
    """Random labels, ``(2, n)``, that differ between the sequences at every shared token."""
    lab = rng.integers(0, n_classes, size=(2, len(seq_t[0])))
    for i, x in enumerate(seq_t[1]):
        if x in shared:
            first = lab[0, seq_t[0].index(x)]
            lab[1, i] = (first + 1 + rng.integers(0, n_classes - 1)) % n_classes
    return lab


def equal_power_sum_pair(rng: np.random.Generator, *, family: str, k: int, d: int,
                         n_classes: int, extra_shared: int = 0,
                         generator_max: int | None = None) -> EqualPowerSumPair:
    """One random member of a family.

    ``"prouhet"``: generators ``c`` drawn from ``1..generator_max`` (default ``2^(k+2)``) until
    their subset sums are distinct; ``A, B = prouhet_sets(c)``, mirrored with probability 1/2;
    shared tokens: a new minimum and maximum 1 to 3 steps outside and up to ``extra_shared`` more
    (a random number) at free integer positions between them; positions ``x`` mapped to
    ``t = 1 + x / 2^s`` (``t`` in ``[1, 2)``).
    ``"theorem1"``: Theorem 1's pair (``k = 1``; ``extra_shared`` and ``generator_max`` unused),
    with its labels.
    The direction ``e`` is ``dyadic_direction(rng, d)``; labels are uniform in ``0..n_classes-1``
    and differ between the sequences at every shared token (``n_classes >= 2``).
    """
    if family not in FAMILIES:
        raise ValueError(f"family must be one of {FAMILIES}, got {family!r}")
    _integer("k", k, 1)
    _integer("n_classes", n_classes, 2)
    _integer("extra_shared", extra_shared, 0)
    if family == "theorem1":
        if k != 1:
            raise ValueError(f"the theorem1 family has k = 1, got k={k}")
        e = dyadic_direction(rng, d)
        t_a, t_b = ([Fraction(float(x)) for x in ts] for ts in THEOREM1_TOKENS)
        shared = sorted(set(t_a) & set(t_b))
        labels = np.array([[int(y) for y in lab] for lab in THEOREM1_LABELS])
        return _assemble(rng, [x for x in t_a if x not in shared],
                         [x for x in t_b if x not in shared], shared, e, labels, family, ())
    top = 2 ** (k + 2) if generator_max is None else _integer("generator_max", generator_max, k + 1)
    while True:
        c = tuple(int(x) for x in rng.choice(np.arange(1, top + 1), size=k + 1, replace=False))
        try:
            A, B = prouhet_sets(c)
            break
        except ValueError:
            continue
    if rng.random() < 0.5:
        A, B = sorted(-x for x in A), sorted(-x for x in B)
    lo = min(A[0], B[0]) - int(rng.integers(1, 4))
    hi = max(A[-1], B[-1]) + int(rng.integers(1, 4))
    free = sorted(set(range(lo + 1, hi)) - set(A) - set(B))
    extra = int(rng.integers(0, min(extra_shared, len(free)) + 1))
    shared = [lo, hi] + sorted(int(x) for x in rng.choice(free, size=extra, replace=False))
    s = (hi - lo).bit_length()
    pos = {x: 1 + Fraction(x - lo, 2**s) for x in set(A) | set(B) | set(shared)}
    seq_t = [sorted(pos[x] for x in set(A) | set(shared)),
             sorted(pos[x] for x in set(B) | set(shared))]
    labels = _conflicting_labels(rng, seq_t, {pos[x] for x in shared}, n_classes)
    return _assemble(rng, [pos[x] for x in A], [pos[x] for x in B], [pos[x] for x in shared],
                     dyadic_direction(rng, d), labels, family, c)


def small_lam_log10_delta(pair: EqualPowerSumPair, v: np.ndarray, alpha: float) -> float:
    """``log10`` of the coefficient ``K`` in ``delta(lam) = K lam^k (1 + O(lam))`` as ``lam -> 0``
    for the rank-1 layer with projection ``v`` and ``W_O = alpha u`` (``||u|| = 1``).

    At a shared token ``q`` the two outputs differ by ``alpha |C_A - C_B|`` with
    ``C_A - C_B = b^k / k! Delta p_{k+1}(w) / n + O(b^{k+1})``, ``b = lam |z_q|``, and
    ``|Delta p_{k+1}(w)| = |Delta p_{k+1}(z)|`` (``w = +-z``); the smallest ``|z_q|`` gives the
    smallest gap: ``K = alpha min_q |z_q|^k |Delta p_{k+1}(z)| / (n k!)``. Exact rationals until the
    final ``log10``."""
    ds, k = pair.dataset, pair.k
    Z, scale = exact_projections_rational(ds, v)
    z = [x * scale for x in Z]
    dp = abs(sum(z[i] ** (k + 1) for i in ds.sequences[0]) -
             sum(z[i] ** (k + 1) for i in ds.sequences[1]))
    zq = min(abs(z[i]) for i in pair.shared)
    coef = zq**k * dp / (ds.n * math.factorial(k))

    def log10(x: Fraction) -> float:
        return math.log10(x.numerator) - math.log10(x.denominator)

    return math.log10(alpha) + log10(coef)
