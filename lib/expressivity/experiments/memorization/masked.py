"""Masked (causal) attention: the rank-1 layer with query ``k`` attending to keys ``j <= k`` is a
prefix contextual mapping, and on prefix segment pairs causal uniform averaging and hardmax are
not.

Kajitsuka & Sato 2024 state that their analysis extends to masked attention ([V2]); the reduction
(the causal layer on a sequence is the layer on each prefix set, ``expressivity.rank1.contexts``)
and the families are ours [D]. Two parts, one row per dataset (column ``part``):

- ``random``: datasets of ordered sequences (``datasets.prefix_dataset``; every ordered sequence
  at ``|V| <= 6`` within ``N_max``), every distinct (token, prefix set) a context. The certified
  exhaustive separation (``rank1.separation.separation_certified``) of the causal layer at
  ``lam_theory`` (``theory_*`` keys, ``n`` the sequence length) and at the fixed ``lam``, next to
  the two exact limits (``regimes.limit_fields``: uniform averaging and hardmax, whose collisions
  are reported, not required);
- ``adversarial``: prefix segment pairs (``segment_pairs.prefix_segment_pair_dataset``), where
  the causal uniform and hardmax outputs are compared exactly (rationals) at every position from
  ``q`` on (``equal_positions`` of ``positions``) and the softmax layer is certified at ``lam``
  and at ``lam_theory``; ``prefix_blind_ceiling`` (``expressivity.accuracy_ceilings``) is the
  training accuracy no one-layer causal transformer with hardmax or uniform attention exceeds on
  the pair.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence

import numpy as np

from expressivity.accuracy_ceilings import prefix_blind_ceiling
from expressivity.datasets import TokenDataset, n_ordered_sequences, prefix_dataset
from expressivity.experiments.memorization.cost import masked_cost, progress_tracker
from expressivity.experiments.memorization.regimes import limit_fields
from expressivity.rank1.contexts import ARMS, Contexts, prefix_contexts, values_exact
from expressivity.rank1.layer import (
    Rank1Layer,
    lam_theory,
    log10_delta_theory,
    norm_bound,
)
from expressivity.rank1.projection import draw_projection
from expressivity.rank1.separation import separation_certified
from expressivity.rng import generator
from expressivity.segment_pairs import COMPLETE, prefix_segment_pair_dataset


def _certified(ds: TokenDataset, cx: Contexts, v: np.ndarray, lam: float, prefix: str) -> dict:
    """The certified separation of the causal layer at ``lam``, as ``<prefix>_...`` columns."""
    sep = separation_certified(ds, cx, Rank1Layer.for_dataset(ds, v, lam))
    return {f"{prefix}_lam": lam, f"{prefix}_log10_delta": sep.log10_delta,
            f"{prefix}_certified": sep.certified, f"{prefix}_digits": sep.digits,
            f"{prefix}_digits_needed": sep.digits_needed,
            f"{prefix}_asymptotic_order": sep.asymptotic_order, f"{prefix}_max_norm": sep.max_norm}


def _common(ds: TokenDataset, v: np.ndarray, cx: Contexts, draws: int) -> dict:
    return {"d": ds.d, "V": ds.vocab_size, "n": ds.n, "N": ds.N, "contexts": cx.n_contexts,
            "eps": ds.eps, "r_min": ds.r_min, "r_max": ds.r_max,
            "r_bound": norm_bound(ds.r_max, ds.eps), "v_draws": draws,
            "lam_theory": lam_theory(ds.n, ds.d, ds.vocab_size, ds.eps, ds.r_min),
            "log10_delta_theory": log10_delta_theory(ds.n, ds.d, ds.vocab_size, ds.eps,
                                                     ds.r_min, ds.r_max)}


def random_row(rng: np.random.Generator, *, d: int, V: int, n: int, N: int, eps: float,
               lam: float | None, n_classes: int, r_min: float, r_max: float) -> dict:
    """Part ``random``: one dataset, the causal layer certified at ``lam`` (``None``:
    ``lam_theory``), the exact limits."""
    ds = prefix_dataset(rng, V, d, n, N, n_classes, r_min, r_max, eps)
    v, draws, _ = draw_projection(rng, ds.vocab)
    cx = prefix_contexts(ds, v)
    row = {"part": "random", **_common(ds, v, cx, draws)}
    at = row["lam_theory"] if lam is None else lam
    sep = _certified(ds, cx, v, at, "softmax")
    return {**row, "lam_kind": "theory" if lam is None else "fixed", **sep,
            **limit_fields(ds, cx, v)}


def equal_positions(ds: TokenDataset, cx: Contexts, v: np.ndarray, arm: str, i_a: int,
                    i_b: int, first: int) -> int:
    """Positions ``k >= first`` at which sequences ``i_a`` and ``i_b`` hold the same token and the
    causal layer's limit ``arm`` gives them the same output, exactly (``values_exact`` of their
    prefix contexts)."""
    K, _ = values_exact(ds, cx, v, arm)
    value = {(int(t), frozenset(int(m) for m in row if m >= 0)): k
             for t, row, k in zip(cx.token, cx.members, K, strict=True)}
    a, b = ds.sequences[i_a].tolist(), ds.sequences[i_b].tolist()
    return sum(a[k] == b[k] and value[(a[k], frozenset(a[: k + 1]))]
               == value[(b[k], frozenset(b[: k + 1]))] for k in range(first, ds.n))


def adversarial_row(rng: np.random.Generator, *, d: int, pair_V: int, pair_n: int, lam: float,
                    n_classes: int, r_min: float, r_max: float) -> dict:
    """Part ``adversarial``: one prefix segment pair, its exact collisions from ``q`` on (uniform
    from ``p`` on too, as ``uniform_equal_from_p``) and the softmax layer certified at ``lam``
    and ``lam_theory``."""
    sp = prefix_segment_pair_dataset(rng, vocab_size=pair_V, d=d, n=pair_n, N=2, pairs=1,
                                     n_classes=n_classes, r_min=r_min, r_max=r_max)
    ds = sp.dataset
    i_a, i_b = (int(i) for i in sp.pairs[0])
    v, draws, _ = draw_projection(rng, ds.vocab)
    cx = prefix_contexts(ds, v)
    row = {"part": "adversarial", **_common(ds, v, cx, draws), "lam_kind": "fixed",
           "positions": ds.n - COMPLETE,
           "conflicting_labels": int(np.sum(ds.labels[i_a, COMPLETE:] != ds.labels[i_b, COMPLETE:])),
           "prefix_blind_ceiling": prefix_blind_ceiling(ds, sp.pairs),
           **{f"{arm}_equal_positions": equal_positions(ds, cx, v, arm, i_a, i_b, COMPLETE)
              for arm in ARMS},
           "uniform_equal_from_p": equal_positions(ds, cx, v, "uniform", i_a, i_b, COMPLETE - 1)}
    row.update(_certified(ds, cx, v, lam, "softmax"))
    row.update(_certified(ds, cx, v, row["lam_theory"], "softmax_theory"))
    return {**row, **limit_fields(ds, cx, v)}


def masked_rows(*, seed: int, n_classes: int, r_min: float, r_max: float,
                theory_d: Sequence[int], theory_V: Sequence[int], theory_n: Sequence[int],
                theory_eps: float, N_max: int, d: Sequence[int], V: Sequence[int],
                n: Sequence[int], N: Sequence[int], eps: float, lam: float,
                pair_d: Sequence[int], pair_V: int, pair_n: int, draws: int,
                log: logging.Logger | None = None) -> list[dict]:
    """Job ``mem_masked``: the ``random`` rows at ``lam_theory`` over ``theory_d x theory_V x
    theory_n`` (``min(N_max, |V|!/(|V|-n)!)`` sequences, token separation ``theory_eps``) and at
    ``lam`` over ``d x V x n x N`` (separation ``eps``; a point with fewer ordered sequences than
    ``N`` is skipped), then ``draws`` ``adversarial`` rows per ``pair_d``. Each dataset from its
    own stream ``generator(seed, "memorization.masked", part, ...)``."""
    if not (isinstance(lam, (int, float)) and math.isfinite(lam) and lam > 0):
        raise ValueError(f"lam must be a finite number > 0, got {lam!r}")
    masked_cost(theory_d=theory_d, theory_V=theory_V, theory_n=theory_n, N_max=N_max, d=d, V=V,
                n=n, N=N, pair_d=pair_d, pair_V=pair_V, pair_n=pair_n, draws=draws)  # checks
    common = {"n_classes": n_classes, "r_min": r_min, "r_max": r_max}
    todo = ([("theory", dim, size, length, N_max) for dim in theory_d for size in theory_V
             for length in theory_n if length <= size]
            + [("fixed", dim, size, length, count) for dim in d for size in V for length in n
               for count in N if length <= size and count <= n_ordered_sequences(size, length)]
            + [("adversarial", dim, pair_V, pair_n, draw) for dim in pair_d
               for draw in range(draws)])
    done = progress_tracker(log, "causal layer: certified prefix separation",
                            [float(min(c, 1000) * k) for _, _, _, k, c in todo])
    rows = []
    for i, (kind, dim, size, length, count) in enumerate(todo):
        rng = generator(seed, "memorization.masked", part=kind, d=dim, V=size, n=length,
                        **{"draw" if kind == "adversarial" else "N": count})
        if kind == "adversarial":
            row = {**adversarial_row(rng, d=dim, pair_V=size, pair_n=length, lam=lam, **common),
                   "draw": count}
        else:
            row = random_row(rng, d=dim, V=size, n=length, N=count,
                             eps=theory_eps if kind == "theory" else eps,
                             lam=None if kind == "theory" else lam, **common)
        rows.append(row)
        done(i, part=kind, d=dim, V=size, n=length)
    return rows
