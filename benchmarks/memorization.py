"""Cost of verifying the rank-1 contextual mapping in arbitrary precision against float64.

Usage: ``.venv/bin/python benchmarks/memorization.py``. Reports (never asserts) the best of three
wall times of one exhaustive separation check on the same dataset and ``lam``:

- float64 direct (``separation_float``; collapses at large ``lam``, reads delta = 0),
- arb direct with the digits derived from ``lam`` and ``r_max`` (``separation_arb``),
- arb normalised differences (``separation_certified``),
- mpmath direct at the same digits (context values only, no certification; the reference
  implementation ``context_values_mpmath``),

each as a ratio to float64 measured in the same run, at the theoretical ``lam`` of the dataset of
the ``delta_vs_lambda`` job of config/ci.yaml (``tests/cases.py``), plus the regime (ii) check of
N = 1000, n = 6 (larger than any ci case; normalised only: direct needs ~10^4+ digits), and the
cross-token minimum (pruned by lower bounds) against its brute-force reference at N = 200. Then the
seconds each job of the stage takes on the ci cases, through the functions the workflow scripts
call, next to the cost model's prediction (``experiments.memorization.cost``).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import cases
import numpy as np

from expressivity.experiments.memorization import contrast, cost, curve, masked, regimes
from expressivity.rank1.contexts import contexts, values_float
from expressivity.rank1.layer import Rank1Layer, digits_bound, lam_theory, output_scale
from expressivity.rank1.pair_sums import last_crossing_search
from expressivity.rank1.separation import (
    cross_token_min,
    separation_arb,
    separation_certified,
    separation_float,
)
from expressivity.reference.memorization import (
    context_values_mpmath,
    cross_token_min_brute_force,
)


def best(fn, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def regime_i() -> None:
    c = cases.MEM_CURVE
    V, d, n = c["V"], c["d"], c["n"]
    ds, v, _ = curve.curve_dataset(**{k: c[k] for k in ("seed", "V", "d", "n", "n_classes",
                                                              "r_min", "r_max", "eps")})
    cx = contexts(ds, v)
    lam = lam_theory(n, d, V, ds.eps, ds.r_min)
    digits = digits_bound(lam, ds.r_max)
    t_float = best(lambda: separation_float(ds, cx, Rank1Layer.for_dataset(ds, v, lam)))
    t_arb = best(lambda: separation_arb(ds, cx, Rank1Layer.for_dataset(ds, v, lam), digits), repeat=1)
    t_norm = best(lambda: separation_certified(ds, cx, Rank1Layer.for_dataset(ds, v, lam)))
    t_mp = best(lambda: context_values_mpmath(ds, cx, v, lam, digits), repeat=1)
    print(f"regime (i) |V|={V} d={d} n={n} N={ds.N}: lam_theory={lam:.5g}, {digits} digits")
    print(f"  float64 direct          {t_float * 1e3:10.2f} ms   (ratio 1)")
    print(f"  arb direct              {t_arb * 1e3:10.2f} ms   ratio {t_arb / t_float:10.1f}")
    print(f"  mpmath direct (values)  {t_mp * 1e3:10.2f} ms   ratio {t_mp / t_float:10.1f}")
    print(f"  arb normalised          {t_norm * 1e3:10.2f} ms   ratio {t_norm / t_float:10.1f}")


def regime_ii() -> None:
    ds, v, _ = regimes.dataset_with_projection(
        np.random.default_rng(1), V=64, d=8, n=6, N=1000, n_classes=4, r_min=1.0, r_max=2.0,
        eps=0.25)
    cx = contexts(ds, v)
    alpha = output_scale(ds.eps, ds.r_max)
    t_search = best(lambda: last_crossing_search(cx), repeat=1)
    lam = last_crossing_search(cx)["lam_last_crossing"] * 1.01
    t_float = best(lambda: separation_float(ds, cx, Rank1Layer.for_dataset(ds, v, lam)))
    t_norm = best(lambda: separation_certified(ds, cx, Rank1Layer.for_dataset(ds, v, lam)), repeat=1)
    res = separation_certified(ds, cx, Rank1Layer.for_dataset(ds, v, lam))
    # the brute force holds all pairs of outputs: a smaller dataset (N = 200) keeps it to ~100 MB
    small, vs, _ = regimes.dataset_with_projection(
        np.random.default_rng(1), V=64, d=8, n=6, N=200, n_classes=4, r_min=1.0, r_max=2.0,
        eps=0.25)
    cs = contexts(small, vs)
    c = values_float(cs, lam) * cs.sign
    t_cross = best(lambda: cross_token_min(small, cs, c, alpha, vs))
    t_brute = best(lambda: cross_token_min_brute_force(small, cs, c, alpha, vs), repeat=1)
    print(f"regime (ii) |V|=64 d=8 n=6 N=1000: last-crossing search {t_search:.2f} s; at "
          f"lam_star={lam:.4g} (direct would need {res.digits_needed:.0f} digits)")
    print(f"  float64 direct          {t_float * 1e3:10.2f} ms   (ratio 1; reads delta = 0)")
    print(f"  arb normalised          {t_norm * 1e3:10.2f} ms   ratio {t_norm / t_float:10.1f}")
    print(f"  cross-token minimum (N = 200) {t_cross * 1e3:.2f} ms, brute force "
          f"{t_brute * 1e3:.0f} ms (ratio {t_brute / t_cross:.0f})")


def jobs() -> None:
    work = {f"theory d={d} V={V}": (
        lambda d=d, V=V: regimes.theory_rows(d=d, V=V, **cases.MEM_THEORY),
        cost.theory_cost(V=V, d=d, **{k: cases.MEM_THEORY[k] for k in (
            "n", "N_max", "r_min", "r_max", "eps", "max_digits")})[0])
        for d, V in cases.MEM_THEORY_POINTS}
    work.update({f"search d={d} V={V}": (
        lambda d=d, V=V: regimes.search_rows(d=d, V=V, **cases.MEM_SEARCH),
        cost.search_cost(V=V, d=d, **{k: cases.MEM_SEARCH[k] for k in ("n", "N", "n_grid")})[0])
        for d, V in cases.MEM_SEARCH_POINTS})
    c, h = cases.MEM_CURVE, cases.MEM_HARDMAX
    work["curve"] = (lambda: curve.curve_rows(**c), cost.curve_cost(**{k: c[k] for k in (
        "V", "d", "n", "n_lams", "zoom_points", "max_digits", "adversarial_k")})[0])
    work["hardmax"] = (lambda: contrast.hardmax_contrast(**h), cost.contrast_cost(
        **{k: h[k] for k in ("d", "degrees", "draws", "extra_shared")})[0])
    m = cases.MEM_MASKED
    work["masked"] = (lambda: masked.masked_rows(**m), cost.masked_cost(**{k: v for k, v in m.items(
        ) if k not in ("seed", "n_classes", "r_min", "r_max", "theory_eps", "eps", "lam")})[0])
    print(f"\n{'ci.yaml job':<40}{'seconds':>10}{'predicted':>12}")
    for name, (job, predicted) in work.items():
        print(f"{name:<40}{best(job, repeat=1):>10.2f}{predicted:>12.2f}")


if __name__ == "__main__":
    regime_i()
    regime_ii()
    jobs()
