"""Jobs of the memorization stage (Kajitsuka & Sato 2024, Theorem 2 and Corollary 1;
``expressivity.rank1``): which datasets and which ``lam`` we run, and the rows each job writes.

- regime (i), ``theory_rows``: the layer at ``lam_theory``, in ball arithmetic where the digits it
  needs are within budget;
- regime (ii), ``search_rows``: ``lam_min`` by search and the certified separation just above it,
  and the memorizer;
- ``curve_rows``: ``delta`` against ``lam`` on one dataset (figure data);
- ``hardmax_contrast``: the same layer on the Theorem 1 pattern (``expressivity.theorem1``) with
  hardmax and softmax;
- ``parameter_table``: parameter counts against ``N`` next to reference orders of growth.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from expressivity.datasets import TokenDataset, token_separated_dataset, validate_dataset
from expressivity.rank1.contexts import contexts
from expressivity.rank1.layer import (
    Rank1Layer,
    digits_bound,
    lam_theory,
    log10_delta_theory,
    norm_bound,
    output_scale,
)
from expressivity.rank1.memorizer import memorize
from expressivity.rank1.pair_sums import lam_min_search
from expressivity.rank1.projection import draw_projection, projection_constant
from expressivity.rank1.separation import separation_arb, separation_certified, separation_float
from expressivity.rng import generator
from expressivity.theorem1 import THEOREM1_LABELS, THEOREM1_TOKENS, shared_tokens_equal_exactly

#: Draws of the projection vector before giving up (the lemma's bound holds with positive
#: probability, so a few suffice).
MAX_DRAWS = 100_000


# --------------------------------------------------------------------------- one dataset


def dataset_with_projection(rng: np.random.Generator, *, V: int, d: int, n: int,  # noqa: N803
                            N: int, n_classes: int, r_min: float, r_max: float, eps: float):
    """A token-separated dataset, its projection ``v`` and the row fields describing both."""
    ds = token_separated_dataset(rng, V, d, n, N, n_classes, r_min=r_min, r_max=r_max, eps=eps)
    v, draws, ratio = draw_projection(rng, ds.vocab, MAX_DRAWS)
    return ds, v, {"d": d, "V": V, "n": n, "N": N, "eps": ds.eps, "r_min": r_min,
                   "r_max": r_max, "v_draws": draws, "v_ratio": ratio,
                   "v_bound": projection_constant(V, d)}


def _theory_fields(ds: TokenDataset, *, V: int, d: int, n: int, r_min: float,
                   r_max: float) -> dict:
    lt = lam_theory(n, d, V, ds.eps, r_min)
    return {"lam_theory": lt, "digits_theory": digits_bound(lt, r_max),
            "log10_delta_theory": log10_delta_theory(n, d, V, ds.eps, r_min, r_max),
            "r_bound": norm_bound(r_max, ds.eps)}


def _memorize_row(ds: TokenDataset, v: np.ndarray, lam: float, prefix: str) -> dict:
    """The memorizer at ``lam`` at the digits its certified separation needs."""
    sep = separation_certified(ds, contexts(ds, v), v, lam, output_scale(ds.eps, ds.r_max), v)
    if not sep["certified"]:
        return {f"{prefix}lam": lam, f"{prefix}correct": math.nan}
    res = memorize(ds, v, lam, int(sep["digits_needed"]))
    return {f"{prefix}lam": lam, "points": res.n_points, "correct": res.n_correct,
            "accuracy": res.n_correct / res.n_points, "max_abs_error": res.max_abs_error,
            "n_parameters": res.n_parameters, "n_attention": res.n_attention, "n_ffn": res.n_ffn,
            "feature_digits": res.feature_digits, "ffn_digits": res.ffn_digits}


def theory_row(rng: np.random.Generator, *, V: int, d: int, n: int, N_max: int,  # noqa: N803
               n_classes: int, r_min: float, r_max: float, eps: float, max_digits: int,
               margin: float) -> dict:
    """Regime (i) on one dataset of ``min(N_max, C(|V|, n))`` sequences: the layer at
    ``lam_theory``, in arbitrary precision when ``digits_bound(lam_theory) <= max_digits`` (else
    only the digits needed are reported).

    Records the certified lower bound of ``delta`` from the direct ``arb`` evaluation at the
    derived digits, the normalised ``arb`` cross-check, the naive float64 value (0 when it has
    collapsed), ``lam_min`` by search, and the memorizer built at ``lam_theory``.
    """
    N = min(N_max, math.comb(V, n))  # noqa: N806
    ds, v, row = dataset_with_projection(rng, V=V, d=d, n=n, N=N, n_classes=n_classes,
                                         r_min=r_min, r_max=r_max, eps=eps)
    alpha = output_scale(ds.eps, r_max)
    theory = _theory_fields(ds, V=V, d=d, n=n, r_min=r_min, r_max=r_max)
    lt, digits = theory["lam_theory"], theory["digits_theory"]
    cx = contexts(ds, v)
    row.update({"regime": "theory", "lam_theory": lt, "digits_theory": digits,
                "log10_delta_theory": theory["log10_delta_theory"],
                "r_bound": theory["r_bound"], "computed": digits <= max_digits})
    search = lam_min_search(cx)
    lam_star = search["lam_min"] * (1 + margin)
    star = separation_certified(ds, cx, v, lam_star, alpha, v)
    row.update({"lam_min": search["lam_min"], "lam_star": lam_star,
                "lam_ratio": lt / search["lam_min"] if search["lam_min"] > 0 else math.inf,
                "log10_delta_star": star["log10_delta"], "certified_star": star["certified"],
                "digits_star": star["digits_needed"]})
    norm = separation_certified(ds, cx, v, lt, alpha, v)
    row.update({"log10_delta_normalised": norm["log10_delta"],
                "digits_needed": norm["digits_needed"]})
    if row["computed"]:
        direct = separation_arb(ds, cx, v, lt, alpha, v, digits)
        flt = separation_float(ds, cx, lt, alpha, v)
        row.update({"log10_delta": direct["log10_delta"], "certified": direct["certified"],
                    "asymptotic_order": direct["asymptotic_order"],
                    "delta_cross": direct["delta_cross"], "max_norm": direct["max_norm"],
                    "float64_log10_delta": flt["log10_delta"], "precision": f"arb-{digits}"})
        row.update(_memorize_row(ds, v, lt, "mem_"))
    else:
        row.update({"log10_delta": math.nan, "certified": math.nan, "precision": "not computed"})
    return row


def search_row(rng: np.random.Generator, *, V: int, d: int, n: int, N: int,  # noqa: N803
               n_classes: int, r_min: float, r_max: float, eps: float, lam_mem: float,
               margin: float, n_grid: int) -> dict:
    """Regime (ii): ``lam_min`` by search, the certified separation at
    ``lam_star = lam_min (1 + margin)``, and the memorizer at ``lam_mem`` (where its features need
    few digits; the parameter count does not depend on ``lam``)."""
    ds, v, row = dataset_with_projection(rng, V=V, d=d, n=n, N=N, n_classes=n_classes,
                                         r_min=r_min, r_max=r_max, eps=eps)
    alpha = output_scale(ds.eps, r_max)
    theory = _theory_fields(ds, V=V, d=d, n=n, r_min=r_min, r_max=r_max)
    cx = contexts(ds, v)
    search = lam_min_search(cx, n_grid=n_grid)
    lam_star = search["lam_min"] * (1 + margin)
    star = separation_certified(ds, cx, v, lam_star, alpha, v)
    flt = separation_float(ds, cx, lam_star, alpha, v)
    row.update({"regime": "search", **theory, "lam_min": search["lam_min"],
                "pairs": search["pairs"], "crossing_pairs": search["crossing_pairs"],
                "lam_star": lam_star,
                "lam_ratio": (theory["lam_theory"] / search["lam_min"] if search["lam_min"] > 0
                              else math.inf),
                "log10_delta": star["log10_delta"], "certified": star["certified"],
                "asymptotic_order": star["asymptotic_order"], "delta_cross": star["delta_cross"],
                "max_norm": star["max_norm"], "digits_star": star["digits_needed"],
                "float64_log10_delta": flt["log10_delta"],
                "precision": f"arb-{star['digits']} (normalised differences)"})
    row.update(_memorize_row(ds, v, lam_mem, "mem_"))
    return row


# --------------------------------------------------------------------------- jobs


def theory_rows(*, seed: int, d: int, V: int, n: Sequence[int], N_max: int,  # noqa: N803
                n_classes: int, r_min: float, r_max: float, eps: float, max_digits: int,
                margin: float) -> list[dict]:
    """Job ``mem_theory`` at one ``(d, |V|)``: ``theory_row`` for every sequence length in ``n``."""
    return [theory_row(generator(seed, "memorization.theory", d=d, V=V, n=size), V=V, d=d,
                       n=size, N_max=N_max, n_classes=n_classes, r_min=r_min, r_max=r_max,
                       eps=eps, max_digits=max_digits, margin=margin)
            for size in n]


def search_points(V: int, n: Sequence[int], N: Sequence[int]) -> tuple[list, list]:  # noqa: N803
    """``(run, skipped)``: the ``(n, N)`` of a regime (ii) job; a vocabulary of ``|V|`` tokens has
    only ``C(|V|, n)`` token sets, so larger ``N`` are skipped."""
    points = [(size, count) for size in n for count in N]
    return ([p for p in points if p[1] <= math.comb(V, p[0])],
            [p for p in points if p[1] > math.comb(V, p[0])])


def search_rows(*, seed: int, d: int, V: int, n: Sequence[int], N: Sequence[int],  # noqa: N803
                n_classes: int, r_min: float, r_max: float, eps: float, lam_mem: float,
                margin: float, n_grid: int) -> list[dict]:
    """Job ``mem_search`` at one ``(d, |V|)``: ``search_row`` for every ``(n, N)`` that
    ``search_points`` runs."""
    return [search_row(generator(seed, "memorization.search", d=d, V=V, n=size, N=count), V=V,
                       d=d, n=size, N=count, n_classes=n_classes, r_min=r_min, r_max=r_max,
                       eps=eps, lam_mem=lam_mem, margin=margin, n_grid=n_grid)
            for size, count in search_points(V, n, N)[0]]


def curve_dataset(*, seed: int, V: int, d: int, n: int, n_classes: int,  # noqa: N803
                  r_min: float, r_max: float, eps: float):
    """The dataset of the ``delta_vs_lambda`` job (every token set of ``n`` of the ``|V|`` tokens)
    and its projection: ``(ds, v, row fields)``."""
    return dataset_with_projection(generator(seed, "memorization.curve"), V=V, d=d, n=n,
                                   N=math.comb(V, n), n_classes=n_classes, r_min=r_min,
                                   r_max=r_max, eps=eps)


def curve_rows(*, seed: int, V: int, d: int, n: int, n_classes: int,  # noqa: N803
               r_min: float, r_max: float, eps: float, n_lams: int, decades: float,
               max_digits: int) -> list[dict]:
    """``delta`` against ``lam`` from 0 to ``lam_theory`` on ``curve_dataset``: naive float64,
    direct ``arb`` at ``digits_bound(lam)`` (when within ``max_digits``) and the certified
    normalised differences. ``lam`` runs over 0 and a log grid of ``decades`` decades up to
    ``lam_theory``."""
    ds, v, base = curve_dataset(seed=seed, V=V, d=d, n=n, n_classes=n_classes, r_min=r_min,
                                r_max=r_max, eps=eps)
    alpha = output_scale(ds.eps, r_max)
    lt = lam_theory(n, d, V, ds.eps, r_min)
    cx = contexts(ds, v)
    lam_min = lam_min_search(cx)["lam_min"]
    lams = np.concatenate([[0.0], lt * np.logspace(-decades, 0, n_lams - 1)])
    rows = []
    for lam in lams:
        flt = separation_float(ds, cx, lam, alpha, v)
        cert = separation_certified(ds, cx, v, lam, alpha, v)
        digits = digits_bound(lam, r_max)
        row = {**base, "lam": lam, "lam_theory": lt, "lam_min": lam_min,
               "log10_delta_theory": log10_delta_theory(n, d, V, ds.eps, r_min, r_max),
               "float64_log10_delta": flt["log10_delta"],
               "certified_log10_delta": cert["log10_delta"], "certified": cert["certified"],
               "digits_needed": cert["digits_needed"], "digits_bound": digits,
               "arb_log10_delta": math.nan}
        if digits <= max_digits:
            row["arb_log10_delta"] = separation_arb(ds, cx, v, lam, alpha, v, digits)["log10_delta"]
        rows.append(row)
    return rows


def theorem1_pattern(e: np.ndarray) -> TokenDataset:
    """The Theorem 1 sequences (``expressivity.theorem1``) as a token dataset along ``e``: tokens
    ``t e`` for ``t`` in {1, 2, 2.5, 3.5, 4, 5}, ``eps`` the smallest gap, ``r_max = 5``."""
    ts = np.unique(np.concatenate(THEOREM1_TOKENS))
    seqs = np.array([[int(np.flatnonzero(ts == t)[0]) for t in seq] for seq in THEOREM1_TOKENS])
    ds = TokenDataset(vocab=np.outer(ts, e), sequences=seqs, labels=np.array(THEOREM1_LABELS),
                      r_min=float(ts.min()), r_max=float(ts.max()), eps=float(np.diff(ts).min()))
    validate_dataset(ds)
    return ds


def hardmax_contrast_rows(rng: np.random.Generator, *, d: int, draws: int,
                          margin: float) -> list[dict]:
    """The rank-1 layer on the Theorem 1 pattern: per draw of ``e`` and of ``v`` (accepted by the
    lemma's bound): with hardmax the outputs at the shared tokens 1 and 5 are equal in exact
    rational arithmetic, so ``delta = 0`` exactly and the layer is not a contextual mapping; with
    softmax at ``lam_star`` the certified ``delta > 0``."""
    rows = []
    for draw in range(draws):
        e = rng.standard_normal(d)
        e /= np.linalg.norm(e)
        ds = theorem1_pattern(e)
        v, n_draws, _ = draw_projection(rng, ds.vocab)
        cx = contexts(ds, v)
        lam_star = lam_min_search(cx)["lam_min"] * (1 + margin) or 1.0
        soft = separation_certified(ds, cx, v, lam_star, output_scale(ds.eps, ds.r_max), v)
        layer = Rank1Layer.for_dataset(ds, v, lam_star)
        equal = shared_tokens_equal_exactly([layer.head], e)
        X1, X2 = (ds.vocab[s] for s in ds.sequences)
        hard_gap = float(np.max(np.abs(layer(X1, "hardmax")[[0, 3]] - layer(X2, "hardmax")[[0, 3]])))
        rows.append({"d": d, "draw": draw, "v_draws": n_draws, "lam": lam_star,
                     "hardmax_equal_exact": bool(equal),
                     "hardmax_delta_exact": 0.0 if equal else math.nan,
                     "hardmax_gap_float64": hard_gap,
                     "softmax_log10_delta": soft["log10_delta"],
                     "softmax_certified": soft["certified"]})
    return rows


def hardmax_contrast(*, seed: int, d: Sequence[int], draws: int, margin: float) -> list[dict]:
    """Job ``mem_hardmax``: ``hardmax_contrast_rows`` for every dimension in ``d``."""
    return [row for dim in d
            for row in hardmax_contrast_rows(generator(seed, "memorization.hardmax", d=dim),
                                             d=dim, draws=draws, margin=margin)]


# --------------------------------------------------------------------------- parameter counts


def loglog_slope(x: Sequence[float], y: Sequence[float]) -> float:
    """Least-squares slope of ``log y`` against ``log x`` (NaN with fewer than two distinct x)."""
    lx, ly = np.log(np.asarray(x, float)), np.log(np.asarray(y, float))
    if len(np.unique(lx)) < 2:
        return math.nan
    return float(np.polyfit(lx, ly, 1)[0])


def parameter_table(df: pd.DataFrame) -> pd.DataFrame:
    """Parameter counts against ``N`` with reference orders of growth (constants set to 1).

    ``df`` has columns ``d, V, n, N, n_parameters`` (ours: ``4d + d + 2nN``). Adds Kim et al.
    2023's ``d + n + sqrt(nN)`` and the optimal ``sqrt(nN)`` of Kajitsuka & Sato 2025 as orders of
    growth (their constants and log factors are unknown here), and each ``(d, V, n)`` series'
    log-log slope of ours in ``N``.
    """
    out = df[["d", "V", "n", "N", "n_parameters"]].copy()
    out["kim2023_order"] = out["d"] + out["n"] + np.sqrt(out["n"] * out["N"])
    out["optimal_order"] = np.sqrt(out["n"] * out["N"])
    slopes = {key: loglog_slope(g["N"], g["n_parameters"])
              for key, g in out.groupby(["d", "V", "n"], sort=True)}
    out["series_slope"] = [slopes[(d, V, n)] for d, V, n in zip(out["d"], out["V"], out["n"],  # noqa: N806
                                                               strict=True)]
    return out.sort_values(["d", "V", "n", "N"]).reset_index(drop=True)
