"""The contexts of a dataset under the rank-1 layer and their values ``C``.

A context is a query token ``t`` together with the token set its query attends to: the whole
sequence's set for the layer (``contexts``), the prefix ``{x_1, ..., x_k}`` ending at the query for
the causal (masked) layer (``prefix_contexts``). With
``z = vocab v``, ``w = sign(z_t) z`` (the members' projections) and ``b = lam |z_t|`` the layer's
attention value at the query is ``c = sign(z_t) C(b, w)`` with

    C(b, w) = sum_j w_j e^{b w_j} / sum_j e^{b w_j}

(Kajitsuka & Sato 2024, Theorem 2 in row form; ``expressivity.rank1``). Outputs with the same
query token differ by ``alpha |c - c'|``.

Asymptotic order ([D] from the paper's difference lemma): as ``lam -> inf`` the contexts of a token
are ordered by ``C`` like the keys ``(w_(1), -w_(2), ..., -w_(n))`` (sorted decreasing ``w``): a
larger maximum gives a larger ``C``; with equal leading entries, the larger entry at the first
differing position gives the smaller ``C``. ``contexts`` sorts every token's contexts in this order.

The two limits of the layer have exact rational values (``values_exact``): uniform averaging
(``lam = 0``) gives ``C = mean_j w_j`` and hardmax (``lam -> inf``, or hardmax attention at any
``lam > 0``) gives ``C = max_j w_j = w_1``, the largest projection (attained once: the projection
lemma keeps the tokens' projections distinct).

**Prefix contexts** (causal layer, ``rank1_attention(..., causal=True)``). Query ``k`` of a sequence
attends to keys ``j <= k`` only, so its value is ``C`` of the prefix set ``P_k = {x_1, ..., x_k}``
(which holds the query itself): the causal layer on a sequence is the layer on each of its
prefixes, read at the prefix's last token. Kajitsuka & Sato 2024 state that their analysis extends
to masked attention ([V2], details not retrieved); the reduction to prefix sets and the *prefix
contextual mapping* it gives (outputs at ``(i, k)`` and ``(j, l)`` at least ``delta`` apart
whenever ``x^(i)_k != x^(j)_l`` or ``P^(i)_k != P^(j)_l``) are our statement [D]. Prefix sets have
sizes ``1..n``: a context of a smaller set has its ``members`` padded with ``-1`` (``w`` with 0)
after its ``size`` entries, and every value here uses only the first ``size``. In the asymptotic
order an absent entry counts as ``w = -inf`` (a key of weight 0): dropping the smallest keys of a
set raises ``C``, as a smaller entry at the first differing position does.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from flint import arb, ctx

from expressivity.ball_arithmetic import exact, exact_projections
from expressivity.datasets import TokenDataset


@dataclass(frozen=True)
class Contexts:
    """Every (query token, token set) of a dataset, grouped by token in asymptotic order.

    token, seq, pos: (P,) query token index, and the sequence and position it comes from.
    members: (P, n) the set's token indices, ordered by decreasing ``w``; a set of ``size < n``
        tokens (a prefix) is padded with ``-1``.
    w: (P, n) float64 ``sign(z_t) z_j`` for the members, decreasing; 0 where padded.
    scale, sign: (P,) ``|z_t|`` and ``sign(z_t)``; ``b = lam * scale``.
    Within a token the rows are sorted by the asymptotic key ``(w_1, -w_2, ..., -w_n)``
    (ascending ``C`` as ``lam -> inf``).
    """

    token: np.ndarray
    seq: np.ndarray
    pos: np.ndarray
    members: np.ndarray
    w: np.ndarray
    scale: np.ndarray
    sign: np.ndarray
    z: np.ndarray

    @property
    def n_contexts(self) -> int:
        return int(self.token.size)

    @property
    def valid(self) -> np.ndarray:
        """(P, n) bool: which entries of ``members`` and ``w`` hold a token (not padding)."""
        return self.members >= 0

    @property
    def size(self) -> np.ndarray:
        """(P,) the number of tokens in each context's set."""
        return self.valid.sum(1)

    def adjacent_pairs(self) -> tuple[np.ndarray, np.ndarray]:
        """Index pairs ``(p, p + 1)`` of consecutive contexts of the same token."""
        same = self.token[1:] == self.token[:-1]
        lo = np.flatnonzero(same)
        return lo, lo + 1


#: The limits of the layer ``values_exact`` evaluates.
ARMS = ("uniform", "hardmax")


def check_lam(lam) -> float:
    """``lam`` as a float; a ``ValueError`` naming it unless it is finite and ``>= 0``."""
    if isinstance(lam, bool) or not isinstance(lam, (int, float, np.integer, np.floating)):
        raise ValueError(f"lam must be a finite number >= 0, got {lam!r}")
    if not (math.isfinite(lam) and lam >= 0):
        raise ValueError(f"lam must be a finite number >= 0, got {lam!r}")
    return float(lam)


def check_projection(ds: TokenDataset, v) -> np.ndarray:
    """``v`` as a float vector of the dataset's dimension; a ``ValueError`` naming it otherwise."""
    v = np.asarray(v, dtype=float)
    if v.shape != (ds.d,) or not np.isfinite(v).all():
        raise ValueError(f"v must be a finite vector of shape ({ds.d},), got shape {v.shape}")
    return v


def _ordered(token: np.ndarray, seq: np.ndarray, pos: np.ndarray, members: np.ndarray,
             z: np.ndarray) -> Contexts:
    """``Contexts`` from unordered rows: members sorted by decreasing ``w`` (padding, ``-1``,
    last), rows grouped by token in the asymptotic order (an absent entry keys as ``w = -inf``)."""
    if np.any(z == 0):
        raise ValueError("a token projects to 0: v violates the lemma's bound (0 is in the set)")
    sign = np.sign(z[token])
    valid = members >= 0
    key = np.where(valid, sign[:, None] * z[np.where(valid, members, 0)], -np.inf)
    order = np.argsort(-key, axis=1, kind="stable")
    key = np.take_along_axis(key, order, axis=1)
    members = np.take_along_axis(members, order, axis=1)
    n = members.shape[1]
    keys = [-key[:, j] for j in range(n - 1, 0, -1)] + [key[:, 0], token]
    idx = np.lexsort(keys)
    return Contexts(token=token[idx], seq=seq[idx], pos=pos[idx], members=members[idx],
                    w=np.where(np.isfinite(key), key, 0.0)[idx], scale=np.abs(z[token[idx]]),
                    sign=sign[idx], z=z)


def contexts(ds: TokenDataset, v: np.ndarray) -> Contexts:
    """The contexts of ``ds`` under projection ``v`` (``z = vocab @ v``): every (sequence,
    position), its set the sequence's token set."""
    v = check_projection(ds, v)
    N, n = ds.sequences.shape
    seq = np.repeat(np.arange(N), n)
    return _ordered(ds.sequences.reshape(-1), seq, np.tile(np.arange(n), N), ds.sequences[seq],
                    ds.vocab @ v)


def prefix_contexts(ds: TokenDataset, v: np.ndarray) -> Contexts:
    """The contexts of the causal layer (module docstring): one row per distinct (query token,
    prefix set) of ``ds``, ``seq`` and ``pos`` its first occurrence (in sequence order); the set of
    position ``k`` is ``{x_1, ..., x_k}``, padded to ``n`` with ``-1``. Distinct rows only: two
    occurrences of one (token, prefix set) give the same output by definition, not a collision."""
    v = check_projection(ds, v)
    N, n = ds.sequences.shape
    seen: set[tuple[int, frozenset]] = set()
    rows = []
    for i, sequence in enumerate(ds.sequences.tolist()):
        for k, t in enumerate(sequence):
            key = (t, frozenset(sequence[: k + 1]))
            if key not in seen:
                seen.add(key)
                rows.append((t, i, k, sequence[: k + 1] + [-1] * (n - k - 1)))
    token, seq, pos, members = (np.array(col, dtype=np.int64) for col in zip(*rows, strict=True))
    return _ordered(token, seq, pos, members, ds.vocab @ v)


def values_float(cx: Contexts, lam: float) -> np.ndarray:
    """``C(lam |z_t|, w)`` for every context, directly in float64 (log-domain softmax): (P,)."""
    b = check_lam(lam) * cx.scale
    E = np.where(cx.valid, np.exp(b[:, None] * (cx.w - cx.w[:, :1])), 0.0)
    return (cx.w * E).sum(1) / E.sum(1)


def context_terms(cx: Contexts, z: list[arb], lam: arb, p: int) -> tuple[list[arb], list[arb]]:
    """``(w, E)`` of context ``p`` in ``arb`` from exact projections ``z``: the members'
    ``w_j = sign(z_t) z_j`` (decreasing) and ``E_j = e^{b (w_j - w_1)}``, ``b = lam |z_t|`` (the
    first, largest in float64, subtracted for scale)."""
    s = int(cx.sign[p])
    w = [z[m] * s for m in cx.members[p] if m >= 0]
    b = lam * abs(z[cx.token[p]])
    return w, [(b * (x - w[0])).exp() for x in w]


def values_arb(ds: TokenDataset, cx: Contexts, v: np.ndarray, lam: float, digits: int) -> list:
    """``C`` for every context in ball arithmetic with ``digits`` decimal digits.

    The projections are recomputed exactly from the float64 tokens and ``v`` (the dot product of
    doubles is exact at this precision), so the balls enclose the true values of the layer with
    exactly these weights. Returns a list of ``arb`` in the order of ``cx``.
    """
    with ctx.workdps(digits):
        z = exact_projections(ds.vocab, v)
        lam_a = exact(lam)
        out = []
        for p in range(cx.n_contexts):
            w, E = context_terms(cx, z, lam_a, p)
            out.append(sum((x * e for x, e in zip(w, E, strict=True)), arb(0)) / sum(E, arb(0)))
        return out


def exact_projections_rational(ds: TokenDataset, v: np.ndarray) -> tuple[list[int], Fraction]:
    """``z_t = v^T x_t`` for every token exactly: integers ``Z_t`` and one scale ``s`` (a power of
    two) with ``z_t = Z_t s`` (every double is a dyadic rational, so are their products and sums)."""
    v = check_projection(ds, v)
    vf = [Fraction(float(a)) for a in v]
    z = [sum((a * Fraction(float(b)) for a, b in zip(vf, row, strict=True)), Fraction(0))
         for row in ds.vocab]
    den = max(x.denominator for x in z)  # powers of two: the largest is a common multiple
    return [x.numerator * (den // x.denominator) for x in z], Fraction(1, den)


def values_exact(ds: TokenDataset, cx: Contexts, v: np.ndarray,
                 arm: str) -> tuple[list[int], Fraction]:
    """``C`` of every context in one limit of the layer, exactly: integers ``K_p`` and a scale
    ``s`` with ``C_p = K_p s`` (order of ``cx``; one scale for the dataset, so values compare as
    integers).

    ``arm = "uniform"`` (``lam = 0``: every key of the set weighted ``1/size``): ``C = mean_j w_j``;
    ``arm = "hardmax"`` (``lam -> inf``; the same as hardmax attention at every ``lam > 0``, since
    the scores ``lam z_t z_j`` are maximised by the largest ``w_j = sign(z_t) z_j``): ``C = w_1``.
    """
    if arm not in ARMS:
        raise ValueError(f"arm must be one of {ARMS}, got {arm!r}")
    Z, scale = exact_projections_rational(ds, v)
    sign = [int(s) for s in cx.sign]
    rows = [[m for m in row if m >= 0] for row in cx.members.tolist()]
    if arm == "uniform":
        common = math.lcm(*(len(row) for row in rows))  # one scale for means of every set size
        return ([s * sum(Z[m] for m in row) * (common // len(row))
                 for s, row in zip(sign, rows, strict=True)], scale / common)
    return [max(s * Z[m] for m in row) for s, row in zip(sign, rows, strict=True)], scale
