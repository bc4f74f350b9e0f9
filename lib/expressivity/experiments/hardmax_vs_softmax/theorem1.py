"""Jobs of the Theorem 1 study (``expressivity.theorem1``): random one-layer attentions on the
counterexample, and Kajitsuka & Sato's softmax memorizer on it under random labellings;
``search_cost`` plans the job's resources."""

from __future__ import annotations

import logging
import math

import numpy as np

from expressivity.arguments import integer
from expressivity.joblog import Progress
from expressivity.rank1.layer import digits_bound
from expressivity.rank1.memorizer import memorize
from expressivity.rng import generator
from expressivity.theorem1 import (
    THEOREM1_TOKENS,
    certified_softmax_gap,
    log10_interior_weight,
    random_heads,
    shared_token_gap,
    shared_tokens_equal_exactly,
    theorem1_dataset,
)

_LOG = logging.getLogger(__name__)
#: Guard digits of the first ball-arithmetic attempt on a softmax gap float64 does not resolve.
GUARD_DIGITS = 30


def draw_row(rng: np.random.Generator, *, draw: int, d: int, heads_max: int, head_size_max: int,
             weight_scales: list[float], tie_tol: float, exact: bool) -> dict[str, object]:
    """One random one-layer attention on the pair: the hardmax and softmax gaps at the shared
    tokens with their float64 rounding bounds; a softmax gap within its bound recomputed in ball
    arithmetic (``softmax_certificate`` says which decided); the largest interior weight; and, if
    ``exact``, whether the hardmax outputs are equal in exact rational arithmetic."""
    e = rng.standard_normal(d)
    e /= np.linalg.norm(e)
    h = int(rng.integers(1, heads_max + 1))
    s = int(rng.integers(1, head_size_max + 1))
    scale = float(rng.choice(weight_scales))
    heads = random_heads(rng, d, h, s, scale)
    gap_hard, bound_hard = shared_token_gap(heads, e, "hardmax", tie_tol=tie_tol)
    gap_soft, bound_soft = shared_token_gap(heads, e, "softmax")
    weight = log10_interior_weight(heads, e)
    if gap_soft > bound_soft:
        log10_gap, certificate = math.log10(gap_soft), "float64"
    else:  # the difference is about the interior weight relative to the outputs: that many digits
        log10_gap, certificate = certified_softmax_gap(
            heads, e, GUARD_DIGITS + math.ceil(max(0.0, -weight)))
    return {
        "draw": draw, "heads": h, "head_size": s, "weight_scale": scale,
        "gap_hardmax": gap_hard, "bound_hardmax": bound_hard,
        "gap_softmax": gap_soft, "bound_softmax": bound_soft,
        "log10_gap_softmax": log10_gap, "softmax_certificate": certificate,
        "log10_interior_weight": weight,
        "hardmax_equal_exact": shared_tokens_equal_exactly(heads, e) if exact else None,
    }


def theorem1_search(*, seed: int, n_draws: int, d: int, heads_max: int, head_size_max: int,
                    weight_scales: list[float], tie_tol: float, exact_draws: int,
                    log: logging.Logger = _LOG) -> list[dict[str, object]]:
    """``draw_row`` for draws ``0 .. n_draws - 1`` (draw ``i`` has its own stream); the first
    ``exact_draws`` are also checked in exact rational arithmetic."""
    if not 0 <= exact_draws <= n_draws:
        raise ValueError(f"need 0 <= exact_draws <= n_draws, got {exact_draws}, {n_draws}")
    if not weight_scales:
        raise ValueError("weight_scales must hold at least one scale")
    progress = Progress(log, "Theorem 1 draws", n_draws)
    rows = []
    for draw in range(n_draws):
        rng = generator(seed, "hardmax_vs_softmax.theorem1", draw=draw)
        rows.append(draw_row(rng, draw=draw, d=d, heads_max=heads_max,
                             head_size_max=head_size_max, weight_scales=weight_scales,
                             tie_tol=tie_tol, exact=draw < exact_draws))
        progress.update(draw + 1)
    return rows


def memorizer_table(*, seed: int, d: int, lam: float, labellings: int) -> list[dict[str, object]]:
    """Kajitsuka & Sato's memorizer (``rank1.memorizer.memorize``: the rank-1 softmax layer with
    ``v = u = e`` plus Zhang et al.'s ReLU FFN, features certified in ball arithmetic) on the pair
    under ``labellings`` random labellings: each a permutation of ``0 .. 7`` drawn from the seed,
    so all eight labels differ and the shared tokens carry different labels in the two sequences
    (what no hardmax layer can give). One row per labelling."""
    integer("labellings", labellings, 1)
    e = np.eye(d)[0]
    digits = digits_bound(lam, float(np.max(np.abs(np.concatenate(THEOREM1_TOKENS)))))
    rows = []
    for k in range(labellings):
        rng = generator(seed, "hardmax_vs_softmax.memorizer", labelling=k)
        labels = rng.permutation(8).reshape(2, 4)
        res = memorize(theorem1_dataset(e, labels), e, lam, digits)
        rows.append({
            "labelling": k, "labels": " ".join(str(int(y)) for y in labels.ravel()),
            "lam": lam, "n_points": res.n_points, "n_correct": res.n_correct,
            "log10_max_abs_error": res.log10_max_abs_error,
            "log10_min_feature_gap": res.log10_min_feature_gap,
            "feature_digits": res.feature_digits, "n_parameters": res.n_parameters,
        })
    return rows


def theorem1_tables(*, seed: int, n_draws: int, d: int, heads_max: int, head_size_max: int,
                    weight_scales: list[float], tie_tol: float, exact_draws: int, lam: float,
                    labellings: int, log: logging.Logger = _LOG) -> dict[str, list[dict]]:
    """The job's two tables: ``search`` (``theorem1_search``) and ``memorizer``
    (``memorizer_table`` in the same dimension ``d``)."""
    search = theorem1_search(seed=seed, n_draws=n_draws, d=d, heads_max=heads_max,
                             head_size_max=head_size_max, weight_scales=weight_scales,
                             tie_tol=tie_tol, exact_draws=exact_draws, log=log)
    return {"search": search,
            "memorizer": memorizer_table(seed=seed, d=d, lam=lam, labellings=labellings)}


def search_cost(*, n_draws: int, exact_draws: int, heads_max: int, head_size_max: int,
                labellings: int) -> tuple[float, int]:
    """``(CPU seconds, peak bytes)`` of the Theorem 1 job, for planning resources.

    Measured here (2 cores shared, 2026-11): about 1.5 ms per draw in float64 and 1 ms per exactly
    checked draw with five heads of size three, in proportion to ``heads * head size``; 20 ms per
    labelling of the memorizer. Doubled for slower nodes."""
    work = heads_max * head_size_max / 15
    seconds = 1.5e-3 * n_draws * work + 1.0e-3 * exact_draws * work + 0.02 * labellings
    return 2 * seconds, 300 * 2**20 + 1000 * n_draws
