"""Throughput of the universal-approximation checks: grid inputs checked per second.

Usage: ``.venv/bin/python benchmarks/universal_approximation.py``. Reports (never asserts) inputs
per second for the exact integer reference of Lemma 6, the hardmax attention matrices, softmax
attention, the property checks, and the sparse contextual mapping, on one grid each, plus the
ratio of each to the integer reference measured in the same run; then the seconds each job of the
stage takes on the cases of config/ci.yaml (``tests/cases.py``), through the functions the
workflow scripts call, next to the cost model's prediction (the rules' ``runtime``).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import cases

from expressivity.contextual_mapping import contextual_properties
from expressivity.experiments.universal_approximation import (
    approximation,
    lemma6,
    patterns,
    polynomial,
)
from expressivity.quantization import grid_digits
from expressivity.reference.universal_approximation import run_integer_reference
from expressivity.selective_shift import (
    compare_with_reference,
    dense_network,
    positional_network,
    run_attention,
    run_integer,
)
from expressivity.sparse_patterns import pattern_masks


def rate(fn, inputs: int, repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return inputs / best


def main() -> None:
    m, d, n = 4, 2, 4                                  # 65536 grid inputs, 17 layers
    net = dense_network(m, d, n)
    digits = grid_digits(m, n, d, 10**6)
    q = run_integer(net, digits)
    N = len(digits)
    results = {
        "integer reference": rate(lambda: run_integer(net, digits), N),
        "properties 1-4": rate(lambda: contextual_properties(net, digits, q), N, 1),
        "hardmax matrices (+ exact recheck)": rate(
            lambda: compare_with_reference(net, digits, q), N, 1),
        "softmax matrices": rate(lambda: run_attention(net, digits, "softmax", 128.0), N, 1),
        "integer reference, plain Python": rate(
            lambda: run_integer_reference(net, digits[:2048]), 2048, 1),
    }
    sm, sd, sn = 3, 1, 6
    masks = pattern_masks("fixed", sn)
    snet = positional_network(sm, sd, sn, masks)
    sdig = grid_digits(sm, sn, sd, 10**6)
    results["sparse mapping (FIXED, Python ints)"] = rate(
        lambda: run_integer(snet, sdig), len(sdig))
    ref = results["integer reference"]
    print(f"Lemma 6 grid 1/delta={m}, d={d}, n={n}: {N} inputs, {net.attention_layers} layers; "
          f"sparse grid 1/delta={sm}, d={sd}, n={sn}: {len(sdig)} inputs; {os.cpu_count()} CPUs")
    print(f"{'check':<40}{'inputs/s':>14}{'vs integer ref':>16}")
    for name, r in results.items():
        print(f"{name:<40}{r:>14.0f}{r / ref:>16.3f}")
    jobs = {f"lemma6 m={m} d={d} n={n}": lambda m=m, d=d, n=n: lemma6.lemma6_check(
        m=m, d=d, n=n, **cases.UA_LEMMA6) for m, d, n in cases.UA_LEMMA6_GRIDS}
    jobs.update({f"approximation {t} d={s['d']} n={s['n']}":
                 lambda t=t, s=s: approximation.approximation_table(target=t, **s,
                                                                    **cases.UA_APPROXIMATION)
                 for t in cases.UA_TARGETS for s in cases.UA_APPROXIMATION_SERIES})
    jobs.update({
        "patterns": lambda: patterns.assumption_table(**cases.UA_PATTERNS),
        "sparse_mapping": lambda: patterns.sparse_mapping_table(**cases.UA_SPARSE_MAPPING),
        "polynomial_staircase": lambda: polynomial.staircase_table(**cases.UA_STAIRCASE),
        "polynomial_ablation": lambda: polynomial.ablation_table(**cases.UA_ABLATION),
        "polynomial_regression": lambda: polynomial.regression_table(**cases.UA_REGRESSION),
    })
    print(f"\n{'ci.yaml job':<40}{'seconds':>14}{'predicted':>12}")
    costs = {f"lemma6 m={m} d={d} n={n}": lemma6.lemma6_cost(m=m, d=d, n=n, **cases.UA_LEMMA6)
             for m, d, n in cases.UA_LEMMA6_GRIDS}
    settings = {k: cases.UA_APPROXIMATION[k] for k in ("samples", "memorization_budget",
                                                       "certificate_budget", "sparse_patterns")}
    costs.update({f"approximation {t} d={s['d']} n={s['n']}": approximation.approximation_cost(
        target=t, **s, **settings) for t in cases.UA_TARGETS for s in cases.UA_APPROXIMATION_SERIES})
    for name, cost, case in (("patterns", patterns.assumption_cost, cases.UA_PATTERNS),
                             ("sparse_mapping", patterns.sparse_mapping_cost,
                              cases.UA_SPARSE_MAPPING),
                             ("polynomial_staircase", polynomial.staircase_cost,
                              cases.UA_STAIRCASE),
                             ("polynomial_ablation", polynomial.ablation_cost, cases.UA_ABLATION),
                             ("polynomial_regression", polynomial.regression_cost,
                              cases.UA_REGRESSION)):
        # the case's settings the cost model takes (the case also holds the seed)
        keys = cost.__code__.co_varnames[:cost.__code__.co_kwonlyargcount]
        costs[name] = cost(**{k: case[k] for k in keys})
    for name, job in jobs.items():
        predicted = costs.get(name, (float("nan"),))[0]
        print(f"{name:<40}{1 / rate(job, 1, 1):>14.2f}{predicted:>12.2f}")


if __name__ == "__main__":
    main()
