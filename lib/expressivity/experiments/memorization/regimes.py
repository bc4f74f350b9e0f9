"""Regimes (i) and (ii) of the memorization stage on random token-separated datasets
(Kajitsuka & Sato 2024, Theorem 2 and Corollary 1; ``expressivity.rank1``).

- regime (i), ``theory_rows``: the layer at ``lam_theory``, in ball arithmetic where the digits it
  needs are within budget, and the memorizer built there;
- regime (ii), ``search_rows``: ``lam_last_crossing`` (the largest ``lam`` at which two contexts of
  one token coincide: above it the asymptotic order holds, a sufficient ``lam``, not the smallest
  that separates) by search, the certified separation at ``lam_star = lam_last_crossing (1 +
  margin)`` and at ``lam_theory``, and the memorizer at ``lam_mem``.

Both record the layer's two exact limits (``regimes.limit_fields``): uniform averaging (``lam =
0``) and hardmax. On random data uniform averaging separates almost surely (the token sets' means
differ), so these datasets cannot tell selective attention from mean pooling; the adversarial
datasets of ``contrast`` can.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence

import numpy as np

from expressivity.arguments import integer
from expressivity.datasets import TokenDataset, token_separated_dataset
from expressivity.experiments.memorization.cost import progress_tracker, search_cost, theory_cost
from expressivity.rank1.contexts import ARMS, Contexts, contexts
from expressivity.rank1.layer import (
    Rank1Layer,
    digits_bound,
    lam_theory,
    log10_delta_theory,
    norm_bound,
)
from expressivity.rank1.memorizer import memorize
from expressivity.rank1.pair_sums import last_crossing_search
from expressivity.rank1.projection import draw_projection, projection_constant
from expressivity.rank1.separation import (
    separation_arb,
    separation_certified,
    separation_exact,
    separation_float,
)
from expressivity.rng import generator

#: Draws of the projection vector before giving up (the lemma's bound holds with positive
#: probability, so a few suffice).
MAX_DRAWS = 100_000


def check_settings(**values) -> None:
    """A ``ValueError`` naming the first setting out of range: counts are integers >= 1 (``n``,
    ``n_lams`` >= 2, ``n_grid`` >= 8), ``r_min, r_max, eps`` finite and > 0, ``lam_mem`` >= 0,
    ``margin`` in (0, 1], ``max_digits`` >= 100."""
    for name, value in values.items():
        if name in ("r_min", "r_max", "eps", "lam_mem", "margin"):
            ok = (isinstance(value, (int, float)) and not isinstance(value, bool)
                  and math.isfinite(value) and (value >= 0 if name == "lam_mem" else value > 0)
                  and (name != "margin" or value <= 1))
            what = {"lam_mem": "a finite number >= 0", "margin": "a number in (0, 1]"}.get(
                name, "a finite number > 0")
        else:
            integer(name, value, {"n": 2, "max_digits": 100, "n_grid": 8, "n_lams": 2}.get(name, 1))
            continue
        if not ok:
            raise ValueError(f"{name} must be {what}, got {value!r}")
    if values.get("r_min", 0) > values.get("r_max", math.inf):
        raise ValueError(f"r_min = {values['r_min']} must be at most r_max = {values['r_max']}")


def dataset_with_projection(rng: np.random.Generator, *, V: int, d: int, n: int,
                            N: int, n_classes: int, r_min: float, r_max: float, eps: float):
    """A token-separated dataset, its projection ``v`` and the row fields describing both."""
    ds = token_separated_dataset(rng, V, d, n, N, n_classes, r_min=r_min, r_max=r_max, eps=eps)
    v, draws, ratio = draw_projection(rng, ds.vocab, MAX_DRAWS)
    return ds, v, {"d": d, "V": V, "n": n, "N": N, "n_classes": n_classes, "eps": ds.eps,
                   "r_min": r_min, "r_max": r_max, "v_draws": draws, "v_ratio": ratio,
                   "v_bound": projection_constant(V, d)}


def _theory_fields(ds: TokenDataset) -> dict:
    lt = lam_theory(ds.n, ds.d, ds.vocab_size, ds.eps, ds.r_min)
    return {"lam_theory": lt, "digits_theory": digits_bound(lt, ds.r_max),
            "log10_delta_theory": log10_delta_theory(ds.n, ds.d, ds.vocab_size, ds.eps, ds.r_min,
                                                     ds.r_max),
            "r_bound": norm_bound(ds.r_max, ds.eps)}


def limit_fields(ds: TokenDataset, cx: Contexts, v: np.ndarray) -> dict:
    """The layer's two limits in exact rational arithmetic (``separation.separation_exact``):
    ``<arm>_log10_delta`` (``-inf``: outputs of two token sets coincide) and ``<arm>_collisions``
    for ``arm`` in uniform (``lam = 0``) and hardmax."""
    layer = Rank1Layer.for_dataset(ds, v, 0.0)
    out = {}
    for arm in ARMS:
        res = separation_exact(ds, cx, layer, arm)
        out.update({f"{arm}_log10_delta": res.log10_delta, f"{arm}_collisions": res.collisions})
    return out


def memorizer_fields(ds: TokenDataset, v: np.ndarray, lam: float,
                     digits_needed: float | None = None) -> dict:
    """The memorizer at ``lam`` (``rank1.memorizer.memorize``), at the digits its certified
    separation needs (``digits_needed``, computed here when not given). ``mem_lam`` is the ``lam``
    the dataset is memorized at; ``mem_log10_max_abs_error`` the ``log10`` of its largest error."""
    fields = {"mem_lam": lam, "mem_certified": True, "points": ds.N * ds.n, "correct": math.nan,
              "accuracy": math.nan, "mem_log10_max_abs_error": math.nan,
              "n_parameters": math.nan, "n_attention": math.nan, "n_ffn": math.nan,
              "mem_digits_needed": math.nan, "feature_digits": math.nan, "ffn_digits": math.nan}
    if digits_needed is None:
        sep = separation_certified(ds, contexts(ds, v), Rank1Layer.for_dataset(ds, v, lam))
        if not sep.certified:
            return {**fields, "mem_certified": False}
        digits_needed = sep.digits_needed
    # nan: no two contexts share a token (the token ids alone separate): a few digits suffice
    need = int(digits_needed) if math.isfinite(digits_needed) else 1
    res = memorize(ds, v, lam, need)
    return {**fields, "points": res.n_points, "correct": res.n_correct,
            "accuracy": res.n_correct / res.n_points,
            "mem_log10_max_abs_error": res.log10_max_abs_error, "n_parameters": res.n_parameters,
            "n_attention": res.n_attention, "n_ffn": res.n_ffn,
            "mem_digits_needed": res.digits_needed, "feature_digits": res.feature_digits,
            "ffn_digits": res.ffn_digits}


def _crossing_fields(ds: TokenDataset, cx: Contexts, v: np.ndarray, lt: float, margin: float,
                     n_grid: int) -> dict:
    """The last crossing by search and the certified separation at ``lam_star`` above it."""
    search = last_crossing_search(cx, n_grid=n_grid)
    last = search["lam_last_crossing"]
    lam_star = last * (1 + margin)
    star = separation_certified(ds, cx, Rank1Layer.for_dataset(ds, v, lam_star))
    return {"lam_last_crossing": last, "pairs": search["pairs"],
            "crossing_pairs": search["crossing_pairs"], "lam_star": lam_star,
            "lam_ratio": lt / last if last > 0 else math.inf, "star": star}


def theory_row(rng: np.random.Generator, *, V: int, d: int, n: int, N_max: int,
               n_classes: int, r_min: float, r_max: float, eps: float, max_digits: int,
               margin: float) -> dict:
    """Regime (i) on one dataset of ``min(N_max, C(|V|, n))`` sequences: the layer at
    ``lam_theory``, in arbitrary precision when ``digits_bound(lam_theory) <= max_digits`` (else
    only the digits needed are reported).

    Records the certified lower bound of ``delta`` from the direct ``arb`` evaluation at the
    derived digits, the normalised ``arb`` cross-check, the naive float64 value (``-inf`` when it
    has collapsed), the last crossing by search, the exact limits and the memorizer built at
    ``lam_theory``.
    """
    N = min(N_max, math.comb(V, n))
    ds, v, row = dataset_with_projection(rng, V=V, d=d, n=n, N=N, n_classes=n_classes,
                                         r_min=r_min, r_max=r_max, eps=eps)
    theory = _theory_fields(ds)
    lt, digits = theory["lam_theory"], theory["digits_theory"]
    at_theory = Rank1Layer.for_dataset(ds, v, lt)
    cx = contexts(ds, v)
    row.update({"regime": "theory", **theory, "computed": digits <= max_digits})
    cross = _crossing_fields(ds, cx, v, lt, margin, n_grid=64)
    star = cross.pop("star")
    row.update({**cross, "log10_delta_star": star.log10_delta,
                "certified_star": star.certified, "digits_star": star.digits_needed})
    norm = separation_certified(ds, cx, at_theory)
    row.update({"log10_delta_normalised": norm.log10_delta,
                "digits_needed": norm.digits_needed, **limit_fields(ds, cx, v)})
    if row["computed"]:
        direct = separation_arb(ds, cx, at_theory, digits)
        flt = separation_float(ds, cx, at_theory)
        row.update({"log10_delta": direct.log10_delta, "certified": direct.certified,
                    "asymptotic_order": direct.asymptotic_order,
                    "delta_cross": direct.delta_cross, "max_norm": direct.max_norm,
                    "float64_log10_delta": flt.log10_delta, "precision": f"arb-{digits}"})
        row.update(memorizer_fields(ds, v, lt, norm.digits_needed))
    else:
        row.update({"log10_delta": math.nan, "certified": math.nan, "precision": "not computed"})
    return row


def search_row(rng: np.random.Generator, *, V: int, d: int, n: int, N: int,
               n_classes: int, r_min: float, r_max: float, eps: float, lam_mem: float,
               margin: float, n_grid: int) -> dict:
    """Regime (ii): the last crossing by search, the certified separation at
    ``lam_star = lam_last_crossing (1 + margin)`` and at ``lam_theory`` (the digits it needs, for
    the total bits), the exact limits, and the memorizer at ``lam_mem``."""
    ds, v, row = dataset_with_projection(rng, V=V, d=d, n=n, N=N, n_classes=n_classes,
                                         r_min=r_min, r_max=r_max, eps=eps)
    theory = _theory_fields(ds)
    cx = contexts(ds, v)
    cross = _crossing_fields(ds, cx, v, theory["lam_theory"], margin, n_grid)
    star = cross.pop("star")
    flt = separation_float(ds, cx, Rank1Layer.for_dataset(ds, v, cross["lam_star"]))
    at_theory = separation_certified(ds, cx, Rank1Layer.for_dataset(ds, v, theory["lam_theory"]))
    row.update({"regime": "search", **theory, **cross,
                "log10_delta": star.log10_delta, "certified": star.certified,
                "asymptotic_order": star.asymptotic_order, "delta_cross": star.delta_cross,
                "max_norm": star.max_norm, "digits_star": star.digits_needed,
                "float64_log10_delta": flt.log10_delta,
                "precision": f"arb-{star.digits} (normalised differences)",
                "log10_delta_at_theory": at_theory.log10_delta,
                "certified_at_theory": at_theory.certified,
                "digits_at_theory": at_theory.digits_needed, **limit_fields(ds, cx, v)})
    row.update(memorizer_fields(ds, v, lam_mem))
    return row


def theory_rows(*, seed: int, d: int, V: int, n: Sequence[int], N_max: int,
                n_classes: int, r_min: float, r_max: float, eps: float, max_digits: int,
                margin: float, log: logging.Logger | None = None) -> list[dict]:
    """Job ``mem_theory`` at one ``(d, |V|)``: ``theory_row`` for every sequence length in ``n``,
    with progress lines (weighted by ``cost.theory_cost``) in ``log``."""
    check_settings(d=d, V=V, N_max=N_max, n_classes=n_classes, r_min=r_min, r_max=r_max,
                    eps=eps, max_digits=max_digits, margin=margin, n=min(n, default=0))
    settings = {"V": V, "d": d, "N_max": N_max, "r_min": r_min, "r_max": r_max, "eps": eps,
                "max_digits": max_digits}
    done = progress_tracker(log, f"theory d={d} V={V}",
                            [theory_cost(**settings, n=[size])[0] for size in n])
    rows = []
    for i, size in enumerate(n):
        rows.append(theory_row(generator(seed, "memorization.theory", d=d, V=V, n=size), V=V,
                               d=d, n=size, N_max=N_max, n_classes=n_classes, r_min=r_min,
                               r_max=r_max, eps=eps, max_digits=max_digits, margin=margin))
        done(i, n=size, digits=rows[-1]["digits_theory"])
    return rows


def search_points(V: int, n: Sequence[int], N: Sequence[int]) -> tuple[list, list]:
    """``(run, skipped)``: the ``(n, N)`` of a regime (ii) job; a vocabulary of ``|V|`` tokens has
    only ``C(|V|, n)`` token sets, so larger ``N`` are skipped."""
    points = [(size, count) for size in n for count in N]
    return ([p for p in points if p[1] <= math.comb(V, p[0])],
            [p for p in points if p[1] > math.comb(V, p[0])])


def search_rows(*, seed: int, d: int, V: int, n: Sequence[int], N: Sequence[int],
                n_classes: int, r_min: float, r_max: float, eps: float, lam_mem: float,
                margin: float, n_grid: int, log: logging.Logger | None = None) -> list[dict]:
    """Job ``mem_search`` at one ``(d, |V|)``: ``search_row`` for every ``(n, N)`` that
    ``search_points`` runs, with progress lines (weighted by ``cost.search_cost``) in ``log``."""
    check_settings(d=d, V=V, n_classes=n_classes, r_min=r_min, r_max=r_max, eps=eps,
                    lam_mem=lam_mem, margin=margin, n_grid=n_grid, n=min(n, default=0),
                    N=min(N, default=0))
    points = search_points(V, n, N)[0]
    done = progress_tracker(log, f"search d={d} V={V}",
                            [search_cost(V=V, d=d, n=[size], N=[count], n_grid=n_grid)[0]
                             for size, count in points])
    rows = []
    for i, (size, count) in enumerate(points):
        rows.append(search_row(generator(seed, "memorization.search", d=d, V=V, n=size, N=count),
                               V=V, d=d, n=size, N=count, n_classes=n_classes, r_min=r_min,
                               r_max=r_max, eps=eps, lam_mem=lam_mem, margin=margin,
                               n_grid=n_grid))
        done(i, n=size, N=count)
    return rows
