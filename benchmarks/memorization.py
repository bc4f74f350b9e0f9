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
N = 1000, n = 6 (larger than any ci case; normalised only: direct needs ~10^4+ digits). Then the
seconds each job of the stage takes on the ci cases, through the functions the workflow scripts
call.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import cases  # noqa: E402
import numpy as np  # noqa: E402

from expressivity.experiments import memorization as experiments  # noqa: E402
from expressivity.rank1.contexts import contexts  # noqa: E402
from expressivity.rank1.layer import digits_bound, lam_theory, output_scale  # noqa: E402
from expressivity.rank1.pair_sums import lam_min_search  # noqa: E402
from expressivity.rank1.separation import (  # noqa: E402
    separation_arb,
    separation_certified,
    separation_float,
)
from expressivity.reference.memorization import context_values_mpmath  # noqa: E402


def best(fn, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def regime_i() -> None:
    c = cases.MEM_CURVE
    V, d, n = c["V"], c["d"], c["n"]  # noqa: N806
    ds, v, _ = experiments.curve_dataset(**{k: c[k] for k in ("seed", "V", "d", "n", "n_classes",
                                                              "r_min", "r_max", "eps")})
    cx = contexts(ds, v)
    alpha = output_scale(ds.eps, ds.r_max)
    lam = lam_theory(n, d, V, ds.eps, ds.r_min)
    digits = digits_bound(lam, ds.r_max)
    t_float = best(lambda: separation_float(ds, cx, lam, alpha, v))
    t_arb = best(lambda: separation_arb(ds, cx, v, lam, alpha, v, digits), repeat=1)
    t_norm = best(lambda: separation_certified(ds, cx, v, lam, alpha, v))
    t_mp = best(lambda: context_values_mpmath(ds, cx, v, lam, digits), repeat=1)
    print(f"regime (i) |V|={V} d={d} n={n} N={ds.N}: lam_theory={lam:.5g}, {digits} digits")
    print(f"  float64 direct          {t_float * 1e3:10.2f} ms   (ratio 1)")
    print(f"  arb direct              {t_arb * 1e3:10.2f} ms   ratio {t_arb / t_float:10.1f}")
    print(f"  mpmath direct (values)  {t_mp * 1e3:10.2f} ms   ratio {t_mp / t_float:10.1f}")
    print(f"  arb normalised          {t_norm * 1e3:10.2f} ms   ratio {t_norm / t_float:10.1f}")


def regime_ii() -> None:
    ds, v, _ = experiments.dataset_with_projection(
        np.random.default_rng(1), V=64, d=8, n=6, N=1000, n_classes=4, r_min=1.0, r_max=2.0,
        eps=0.25)
    cx = contexts(ds, v)
    alpha = output_scale(ds.eps, ds.r_max)
    t_search = best(lambda: lam_min_search(cx), repeat=1)
    lam = lam_min_search(cx)["lam_min"] * 1.01
    t_float = best(lambda: separation_float(ds, cx, lam, alpha, v))
    t_norm = best(lambda: separation_certified(ds, cx, v, lam, alpha, v), repeat=1)
    res = separation_certified(ds, cx, v, lam, alpha, v)
    print(f"regime (ii) |V|=64 d=8 n=6 N=1000: lam_min search {t_search:.2f} s; at "
          f"lam_star={lam:.4g} (direct would need {res['digits_needed']:.0f} digits)")
    print(f"  float64 direct          {t_float * 1e3:10.2f} ms   (ratio 1; reads delta = 0)")
    print(f"  arb normalised          {t_norm * 1e3:10.2f} ms   ratio {t_norm / t_float:10.1f}")


def jobs() -> None:
    work = {f"theory d={d} V={V}": lambda d=d, V=V: experiments.theory_rows(  # noqa: N803
        d=d, V=V, **cases.MEM_THEORY) for d, V in cases.MEM_THEORY_POINTS}
    work.update({f"search d={d} V={V}": lambda d=d, V=V: experiments.search_rows(  # noqa: N803
        d=d, V=V, **cases.MEM_SEARCH) for d, V in cases.MEM_SEARCH_POINTS})
    work["curve"] = lambda: experiments.curve_rows(**cases.MEM_CURVE)
    work["hardmax"] = lambda: experiments.hardmax_contrast(**cases.MEM_HARDMAX)
    print(f"\n{'ci.yaml job':<40}{'seconds':>14}")
    for name, job in work.items():
        print(f"{name:<40}{best(job, repeat=1):>14.2f}")


if __name__ == "__main__":
    regime_i()
    regime_ii()
    jobs()
