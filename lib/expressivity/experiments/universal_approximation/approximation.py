"""The end-to-end approximation of a target by Yun et al.'s route and Kajitsuka & Sato's three-layer
route (``expressivity.universal``): ``L^p`` errors, layers and parameters against ``delta``."""

from __future__ import annotations

import logging
import math

import numpy as np

from expressivity import universal
from expressivity.approximation_rate import SPARSE_ROUTES, repeated_measure
from expressivity.arguments import integer
from expressivity.experiments.universal_approximation import (
    MB,
    STAGE,
    advance,
    sizes,
    tracker,
)
from expressivity.quantization import check_inverse_delta, quantize
from expressivity.rng import generator
from expressivity.sparse_patterns import pattern_masks


def _routes(target: str, sparse_patterns=()) -> tuple[str, ...]:
    """Yun et al.'s and the three-layer route for an equivariant target; the positional route,
    dense and under each of ``sparse_patterns`` (Yun et al. 2020b), for the other."""
    if target in universal.EQUIVARIANT_TARGETS:
        return ("yun", "kajitsuka_sato")
    return ("yun_positional", *(f"yun_sparse_{p}" for p in sparse_patterns))


def _sparse_patterns(names) -> list[str]:
    if isinstance(names, str) or any(f"yun_sparse_{p}" not in SPARSE_ROUTES for p in names):
        raise ValueError(f"sparse_patterns must list some of "
                         f"{[r.removeprefix('yun_sparse_') for r in SPARSE_ROUTES]}, got "
                         f"{names!r}")
    return list(names)


def _route_budget(route: str, certificate_budget: int) -> float:
    """The largest table a route may build: the grid multisets Kajitsuka & Sato's certificate
    sorts; Yun et al.'s routes (equivariant, positional, sparse) build none (their value maps are
    evaluated at the sampled cells)."""
    return certificate_budget if route == "kajitsuka_sato" else math.inf


def approximation_table(*, target: str, d: int, inv_delta, samples: int, n: int, lam: float,
                        mp_dps: int, memorization_budget: int, certificate_budget: int,
                        sparse_patterns, seed: int,
                        log: logging.Logger | None = None) -> list[dict]:
    """``L^1``/``L^2`` Monte-Carlo errors (with standard errors), layers and parameters against
    ``delta = 1/inv_delta`` for one target at token dimension ``d``: Yun et al.'s route
    (positional for targets that are not equivariant) and, for equivariant targets, Kajitsuka &
    Sato's three-layer route (``lam``; its separation certified over every grid multiset, at
    most ``certificate_budget`` of them; its FFN solved with ``mp_dps`` digits within
    ``memorization_budget`` points).

    Each ``delta`` has its own sample of ``samples`` uniform inputs ``(n, d)`` (independent
    Monte-Carlo errors across ``delta``, so a fitted slope's standard error reflects them); the
    routes share it, and their rows compare at equal ``delta`` (Yun et al.'s rows carry the ratio
    of their layers and errors to the three-layer route's). Yun et al.'s routes run at every
    ``delta`` (their value maps are evaluated at the sampled cells); where the Kajitsuka & Sato
    certificate's multisets (``universal.table_size``) exceed ``certificate_budget`` that route
    gets a row saying so and no errors."""
    name = universal.check_target(target)
    ms = [check_inverse_delta(m) for m in sizes("inv_delta", inv_delta, 2)]
    for key, value in (("memorization_budget", memorization_budget), ("samples", samples),
                       ("certificate_budget", certificate_budget)):
        integer(key, value, 1)
    routes = _routes(name, _sparse_patterns(sparse_patterns))
    weights = {(route, m): _route_seconds(route, m, n, d, samples, memorization_budget)
               for m in ms for route in routes
               if universal.table_size(route, m, n, d)
               <= _route_budget(route, certificate_budget)}
    progress = tracker(log, f"approximation {name} d={d}", sum(weights.values()))
    done = 0.0
    rows = []
    for m in ms:
        X = universal.sample(generator(seed, f"{STAGE}.sample", d=d, inv_delta=m), samples, n, d)
        F = universal.target(name, X)
        digits = quantize(X, m)
        base = {"target": name, "inv_delta": m, "delta": 1.0 / m, "n": n, "d": d,
                "samples": samples,
                "repeated_measure": repeated_measure(1.0 / m, n, d),
                **_target_terms(F, universal.grid_target(name, digits, m),
                                universal.repeated_tokens(digits, m))}
        at_m = {}
        for route in routes:
            size = universal.table_size(route, m, n, d)
            budget = _route_budget(route, certificate_budget)
            if size > budget:
                at_m[route] = {**base, "route": route, "table_size": size,
                               "status": f"skipped: table of {size} entries over the budget "
                                         f"of {budget}"}
                continue
            if route == "kajitsuka_sato":
                res = universal.ks_route(name, X, m, lam, memorization_budget,
                                         generator(seed, f"{STAGE}.ks", target=name, d=d,
                                                   inv_delta=m), mp_dps, certificate_budget)
            else:
                masks = None if not route.startswith("yun_sparse_") else pattern_masks(
                    route.removeprefix("yun_sparse_"), n)
                res = universal.yun_route(name, X, m, positional=route != "yun", masks=masks)
            G = res.pop("G")
            at_m[route] = {**base, "route": route, "table_size": size, "status": "computed",
                           **universal.lp_errors(F, G), **res}
            done += weights[(route, m)]
            advance(progress, done, inv_delta=m, route=route)
        yun, ks = at_m.get("yun"), at_m.get("kajitsuka_sato")
        if yun is not None and yun["status"] == "computed":
            both = ks is not None and ks["status"] == "computed"
            yun["layers_over_ks"] = (yun["layers_total"] / ks["layers_total"] if both
                                     else float("nan"))
            for p in ("L1", "L2"):
                yun[f"{p}_over_ks"] = yun[p] / ks[p] if both and ks[p] > 0 else float("nan")
        rows += [at_m[route] for route in routes]
    return rows


def _target_terms(F: np.ndarray, F_bar: np.ndarray, repeated: np.ndarray) -> dict:
    """What the target alone gives the error of every route at one ``delta`` (no route is run):
    ``f_bar``'s ``L^p`` error over the sample (``piecewise_constant_L<p>``: every route that
    returns ``f_bar`` on all cells), on its distinct-token inputs (``distinct_piecewise_L<p>``, the
    ``A`` of ``approximation_rate.two_term_error``) and ``f``'s ``L^p`` norm on its repeated-token
    inputs (``repeated_target_L<p>``, ``B``: Yun et al.'s route returns 0 there; NaN when the
    sample has none), with the fraction of repeated-token inputs."""
    zero = np.zeros_like(F)
    terms = {"repeated_fraction": float(np.mean(repeated))}
    for p in (1, 2):
        terms[f"piecewise_constant_L{p}"] = universal.lp_errors(F, F_bar, (p,))[f"L{p}"]
        terms[f"distinct_piecewise_L{p}"] = (universal.lp_errors(
            F[~repeated], F_bar[~repeated], (p,))[f"L{p}"] if (~repeated).any() else math.nan)
        terms[f"repeated_target_L{p}"] = (universal.lp_errors(
            F[repeated], zero[repeated], (p,))[f"L{p}"] if repeated.any() else math.nan)
    return terms


def _route_seconds(route: str, m: int, n: int, d: int, samples: int,
                   memorization_budget: int) -> float:
    """Predicted CPU seconds of one route at ``1/delta = m``: the three-layer route's certificate
    (2e-6 s per multiset and token) and, within ``memorization_budget``, its mpmath memorization
    (4e-5 s per point); Yun et al.'s routes build no table: the exact integer network's layers
    over the sample (3e-5 s a layer plus 2.5e-9 s per token and layer; ``m^d + 1`` layers for the
    equivariant route, ``n m^d + n`` for the positional one, 1.3 times as many under a sparse
    pattern's masks) and the sample's value map, code check and errors (1.5e-6 s per token).
    Measured on single routes at 20,000 samples ((d, n) = (1, 3), (2, 3), (1, 4) up to 1/delta =
    64, 32, 96: 0.06 to 0.6 s each) and on the positional target's three jobs of the default
    config (predicted 5.2, 11.2, 7.9 s; measured 5.7, 10.8, 9.5 s)."""
    D = m**d
    if route == "kajitsuka_sato":  # the certificate over every multiset, the FFN within its budget
        size = universal.table_size(route, m, n, d)
        ffn = 4e-5 * n * size if size <= memorization_budget else 0.0
        return 2e-6 * n * size + ffn + 2e-6 * samples * n
    if route == "yun":
        layers = D + 1
    else:
        layers = (n * D + n) * (1.0 if route == "yun_positional" else 1.3)
    return layers * (3e-5 + 2.5e-9 * samples * n) + 1.5e-6 * samples * n


def approximation_cost(*, target: str, d: int, inv_delta, samples: int, n: int,
                       memorization_budget: int, certificate_budget: int,
                       sparse_patterns) -> tuple[float, int]:
    """Predicted CPU seconds and peak bytes of ``approximation_table``."""
    seconds, mem = 0.0, 100.0
    for m in inv_delta:
        for route in _routes(target, sparse_patterns):
            size = universal.table_size(route, m, n, d)
            if size <= _route_budget(route, certificate_budget):
                seconds += _route_seconds(route, m, n, d, samples, memorization_budget)
                per = 250 if route == "kajitsuka_sato" else 0  # bytes per table entry
                mem = max(mem, 100 + per * n * size / 1e6 + 1e-4 * samples * n * d)
    return seconds, round(mem * MB)

