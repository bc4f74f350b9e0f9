"""Figure data of the memorization stage: ``delta`` against ``lam`` on two datasets.

- ``"random"``: every token set of ``n`` of ``|V|`` random tokens (Kajitsuka & Sato 2024, Theorem 2's
  setting); uniform averaging separates it almost surely.
- ``"adversarial"``: a pair with equal power sums of degree ``1..k`` and shared extremes
  (``expressivity.equal_power_sums``): uniform averaging and hardmax give ``delta = 0`` exactly, and
  softmax separates it to order ``lam^k`` near 0.

On each: the uniform arm (``lam = 0``, exact rationals), softmax on a linear zoom ``(0, zoom_max]``
and on a log grid from ``lam_small`` to ``lam_theory`` (certified normalised differences, the naive
float64 value, and a direct ``arb`` evaluation at ``digits_bound(lam)`` digits where within
``max_digits``), and the hardmax arm (exact; ``lam`` recorded as ``inf``).
"""

from __future__ import annotations

import logging
import math

import numpy as np

from expressivity.equal_power_sums import equal_power_sum_pair, small_lam_log10_delta
from expressivity.experiments.memorization.cost import progress_tracker
from expressivity.experiments.memorization.regimes import check_settings, dataset_with_projection
from expressivity.rank1.contexts import contexts
from expressivity.rank1.layer import (
    Rank1Layer,
    digits_bound,
    lam_theory,
    log10_delta_theory,
    output_scale,
)
from expressivity.rank1.pair_sums import last_crossing_search
from expressivity.rank1.projection import draw_projection
from expressivity.rank1.separation import (
    separation_arb,
    separation_certified,
    separation_exact,
    separation_float,
)
from expressivity.rng import generator

#: The two datasets of the curve.
DATASETS = ("random", "adversarial")


def curve_dataset(*, seed: int, V: int, d: int, n: int, n_classes: int,
                  r_min: float, r_max: float, eps: float):
    """The random dataset of the ``delta_vs_lambda`` job (every token set of ``n`` of the ``|V|``
    tokens) and its projection: ``(ds, v, row fields)``."""
    return dataset_with_projection(generator(seed, "memorization.curve"), V=V, d=d, n=n,
                                   N=math.comb(V, n), n_classes=n_classes, r_min=r_min,
                                   r_max=r_max, eps=eps)


def adversarial_curve_dataset(*, seed: int, d: int, k: int, n_classes: int):
    """The adversarial pair of the ``delta_vs_lambda`` job (``"prouhet"`` family, degree ``k``, no
    extra shared tokens), its projection and row fields: ``(pair, v, row fields)``."""
    rng = generator(seed, "memorization.curve", dataset="adversarial")
    pair = equal_power_sum_pair(rng, family="prouhet", k=k, d=d, n_classes=n_classes)
    ds = pair.dataset
    v, draws, ratio = draw_projection(rng, ds.vocab)
    return pair, v, {"d": d, "V": ds.vocab_size, "n": ds.n, "N": ds.N, "eps": ds.eps,
                     "r_min": ds.r_min, "r_max": ds.r_max, "v_draws": draws, "v_ratio": ratio,
                     "k": pair.k, "generators": " ".join(map(str, pair.generators))}


def _lams(lt: float, *, n_lams: int, lam_small: float, zoom_max: float,
          zoom_points: int) -> list[tuple[str, float]]:
    """``(grid, lam)``: the linear zoom ``(0, zoom_max]`` then the log grid up to ``lam_theory``."""
    zoom = np.linspace(0.0, zoom_max, zoom_points + 1)[1:]
    logs = np.geomspace(min(lam_small, lt), lt, n_lams)
    return [("zoom", float(x)) for x in zoom] + [("log", float(x)) for x in logs]


def curve_rows(*, seed: int, V: int, d: int, n: int, n_classes: int,
               r_min: float, r_max: float, eps: float, n_lams: int, lam_small: float,
               zoom_max: float, zoom_points: int, max_digits: int, adversarial_k: int,
               log: logging.Logger | None = None) -> list[dict]:
    """Job ``mem_curve``: the rows of both datasets (module docstring); columns ``dataset``,
    ``arm`` (uniform, softmax, hardmax), ``grid`` (zero, zoom, log, limit), ``lam``, the
    certified, float64, direct-arb and exact ``log10 delta`` (``-inf``: delta = 0), and for the
    adversarial pair ``asymptote_log10_delta``, the small-``lam`` prediction ``K lam^k``."""
    for name, value in (("lam_small", lam_small), ("zoom_max", zoom_max)):
        if not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
            raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
    check_settings(n_lams=n_lams, zoom_points=zoom_points, max_digits=max_digits,
                   adversarial_k=adversarial_k)
    rand_ds, rand_v, rand_row = curve_dataset(seed=seed, V=V, d=d, n=n, n_classes=n_classes,
                                              r_min=r_min, r_max=r_max, eps=eps)
    pair, adv_v, adv_row = adversarial_curve_dataset(seed=seed, d=d, k=adversarial_k,
                                                     n_classes=n_classes)
    cases = [("random", rand_ds, rand_v, {**rand_row, "k": 0, "generators": ""}, None),
             ("adversarial", pair.dataset, adv_v, adv_row, pair)]
    grids = {name: _lams(lam_theory(ds.n, ds.d, ds.vocab_size, ds.eps, ds.r_min), n_lams=n_lams,
                         lam_small=lam_small, zoom_max=zoom_max, zoom_points=zoom_points)
             for name, ds, *_ in cases}
    done = progress_tracker(log, "delta against lam",
                            [1.0] * sum(len(g) + 2 for g in grids.values()))
    rows = []
    for name, ds, v, row, adv in cases:
        alpha = output_scale(ds.eps, ds.r_max)
        cx = contexts(ds, v)
        lt = lam_theory(ds.n, ds.d, ds.vocab_size, ds.eps, ds.r_min)
        base = {"dataset": name, **row, "lam_theory": lt,
                "lam_last_crossing": last_crossing_search(cx)["lam_last_crossing"],
                "log10_delta_theory": log10_delta_theory(ds.n, ds.d, ds.vocab_size, ds.eps,
                                                         ds.r_min, ds.r_max)}
        coef = small_lam_log10_delta(adv, v, alpha) if adv is not None else math.nan
        empty = {"certified_log10_delta": math.nan, "certified": math.nan,
                 "float64_log10_delta": math.nan, "arb_log10_delta": math.nan,
                 "exact_log10_delta": math.nan, "collisions": math.nan,
                 "digits_needed": math.nan, "digits_bound": math.nan,
                 "asymptote_log10_delta": math.nan}
        for arm, grid, lam in (("uniform", "zero", 0.0), ("hardmax", "limit", math.inf)):
            exact = separation_exact(ds, cx, Rank1Layer.for_dataset(ds, v, 0.0), arm)
            rows.append({**base, "arm": arm, "grid": grid, "lam": lam, **empty,
                         "exact_log10_delta": exact.log10_delta,
                         "collisions": exact.collisions})
            done(len(rows) - 1, arm=arm, dataset=name)
        for grid, lam in grids[name]:
            layer = Rank1Layer.for_dataset(ds, v, lam)
            cert = separation_certified(ds, cx, layer)
            digits = digits_bound(lam, ds.r_max)
            arb_value = (separation_arb(ds, cx, layer, digits).log10_delta
                         if grid == "log" and digits <= max_digits else math.nan)
            rows.append({**base, "arm": "softmax", "grid": grid, "lam": lam, **empty,
                         "certified_log10_delta": cert.log10_delta,
                         "certified": cert.certified,
                         "float64_log10_delta": separation_float(ds, cx, layer).log10_delta,
                         "arb_log10_delta": arb_value, "digits_needed": cert.digits_needed,
                         "digits_bound": digits,
                         "asymptote_log10_delta": coef + pair.k * math.log10(lam)
                         if adv is not None else math.nan})
            done(len(rows) - 1, lam=lam, dataset=name)
    return rows
