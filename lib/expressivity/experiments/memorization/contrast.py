"""Uniform averaging, hardmax and softmax on datasets where the first two provably fail.

Each draw is a pair of sequences with equal power sums of degree ``1..k`` and shared extremes
(``expressivity.equal_power_sums``: the Theorem 1 pair, and Prouhet's sets of every degree in
``degrees``), with a label that differs between the sequences at every shared token (the Theorem 1
pair keeps its own labels: token 5 differs). On each, the rank-1 layer of Kajitsuka & Sato 2024,
Theorem 2, with the projection of the lemma:

- uniform (``lam = 0``) and hardmax, in exact rational arithmetic: the outputs at the shared tokens
  coincide (``collisions > 0``, ``delta = 0``), so the labels that differ there cannot be
  memorized by any token-wise FFN;
- softmax at ``lam_theory`` and at ``lam`` (the config's fixed value, 1 by default), certified in
  ball arithmetic: ``delta > 0``;
- the memorizer (Corollary 1) at ``lam``: every label reproduced.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence

import numpy as np

from expressivity.equal_power_sums import equal_power_sum_pair, small_lam_log10_delta
from expressivity.experiments.memorization.cost import contrast_cost, progress_tracker
from expressivity.experiments.memorization.regimes import limit_fields, memorizer_fields
from expressivity.rank1.contexts import contexts
from expressivity.rank1.layer import Rank1Layer, lam_theory, log10_delta_theory, output_scale
from expressivity.rank1.projection import draw_projection
from expressivity.rank1.separation import separation_certified
from expressivity.rng import generator


def members(d: Sequence[int], degrees: Sequence[int]) -> list[tuple[str, int, int]]:
    """``(family, k, d)`` of every member drawn: the Theorem 1 pair and Prouhet's sets of each
    degree, in every dimension."""
    return [(fam, k, dim) for dim in d
            for fam, k in [("theorem1", 1), *(("prouhet", k) for k in degrees)]]


def contrast_row(rng: np.random.Generator, *, family: str, k: int, d: int, n_classes: int,
                 extra_shared: int, lam: float) -> dict:
    """The three arms on one random member of ``family`` (module docstring)."""
    pair = equal_power_sum_pair(rng, family=family, k=k, d=d, n_classes=n_classes,
                                extra_shared=extra_shared)
    ds = pair.dataset
    v, draws, _ = draw_projection(rng, ds.vocab)
    cx = contexts(ds, v)
    alpha = output_scale(ds.eps, ds.r_max)
    lt = lam_theory(ds.n, ds.d, ds.vocab_size, ds.eps, ds.r_min)
    shared = [int(t) for t in pair.shared]
    pos = [[list(seq).index(t) for t in shared] for seq in ds.sequences]
    conflicts = sum(int(ds.labels[0, i] != ds.labels[1, j]) for i, j in zip(*pos, strict=True))
    row = {"family": family, "k": pair.k, "d": d, "n": ds.n, "V": ds.vocab_size,
           "generators": " ".join(map(str, pair.generators)), "shared": len(shared),
           "conflicting_labels": conflicts, "eps": ds.eps, "r_min": ds.r_min, "r_max": ds.r_max,
           "v_draws": draws, "lam_theory": lt, "lam": lam,
           "log10_delta_theory": log10_delta_theory(ds.n, ds.d, ds.vocab_size, ds.eps, ds.r_min,
                                                    ds.r_max),
           "small_lam_log10_coef": small_lam_log10_delta(pair, v, alpha),
           **limit_fields(ds, cx, v)}
    for name, at in (("theory", lt), ("lam", lam)):
        sep = separation_certified(ds, cx, Rank1Layer.for_dataset(ds, v, at))
        row.update({f"softmax_{name}_log10_delta": sep.log10_delta,
                    f"softmax_{name}_certified": sep.certified,
                    f"softmax_{name}_digits_needed": sep.digits_needed})
    row.update(memorizer_fields(ds, v, lam, row["softmax_lam_digits_needed"]
                                if row["softmax_lam_certified"] else None))
    return row


def hardmax_contrast(*, seed: int, d: Sequence[int], degrees: Sequence[int], draws: int,
                     n_classes: int, extra_shared: int, lam: float,
                     log: logging.Logger | None = None) -> list[dict]:
    """Job ``mem_hardmax``: ``draws`` rows per member (``members``), each from its own stream
    ``generator(seed, "memorization.hardmax", family, k, d, draw)``."""
    if not (isinstance(lam, (int, float)) and math.isfinite(lam) and lam > 0):
        raise ValueError(f"lam must be a finite number > 0, got {lam!r}")
    contrast_cost(d=d, degrees=degrees, draws=draws, extra_shared=extra_shared)  # checks counts
    todo = [(fam, k, dim, draw) for fam, k, dim in members(d, degrees) for draw in range(draws)]
    done = progress_tracker(log, "uniform, hardmax and softmax", [2.0**k for _, k, _, _ in todo])
    rows = []
    for i, (fam, k, dim, draw) in enumerate(todo):
        rng = generator(seed, "memorization.hardmax", family=fam, k=k, d=dim, draw=draw)
        rows.append({**contrast_row(rng, family=fam, k=k, d=dim, n_classes=n_classes,
                                    extra_shared=extra_shared, lam=lam), "draw": draw})
        done(i, family=fam, k=k, d=dim)
    return rows
