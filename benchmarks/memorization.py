"""Cost of verifying the rank-1 contextual mapping in arbitrary precision against float64.

Usage: ``.venv/bin/python benchmarks/memorization.py``. Reports (never asserts) the best of three
wall times of one exhaustive separation check on the same dataset and ``lam``:

- float64 direct (``separation_float``; collapses at large ``lam``, reads delta = 0),
- arb direct with the digits derived from ``lam`` and ``r_max`` (``separation_arb``),
- arb normalised differences (``separation_certified``),
- mpmath direct at the same digits (context values only, no certification),

each as a ratio to float64 measured in the same run, at the theoretical ``lam`` of a regime (i)
dataset, plus the regime (ii) check of N = 1000, n = 6 (normalised only: direct needs ~10^4+ digits).
"""

from __future__ import annotations

import math
import time

import mpmath
import numpy as np

from expressivity.contextual_mapping import (
    contexts,
    digits_bound,
    draw_projection,
    lam_min_search,
    lam_theory,
    separation_arb,
    separation_certified,
    separation_float,
)
from expressivity.datasets import token_separated_dataset


def best(fn, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def mpmath_values(ds, cx, v, lam, digits):
    with mpmath.workdps(digits):
        z = [mpmath.fsum(mpmath.mpf(float(a)) * mpmath.mpf(float(b)) for a, b in zip(v, row, strict=True))
             for row in ds.vocab]
        out = []
        for p in range(cx.n_contexts):
            s = int(cx.sign[p])
            w = [z[m] * s for m in cx.members[p]]
            b = mpmath.mpf(lam) * abs(z[cx.token[p]])
            E = [mpmath.exp(b * (x - w[0])) for x in w]
            out.append(mpmath.fsum(x * e for x, e in zip(w, E, strict=True)) / mpmath.fsum(E))
        return out


for V, d, n in [(4, 2, 2), (5, 3, 3)]:
    rng = np.random.default_rng(0)
    ds = token_separated_dataset(rng, V, d, n, math.comb(V, n), 4, eps=1.0)
    v, _, _ = draw_projection(rng, ds.vocab)
    cx = contexts(ds, v)
    alpha = ds.eps / (4 * ds.r_max)
    lam = lam_theory(n, d, V, ds.eps, ds.r_min)
    digits = digits_bound(lam, ds.r_max)
    t_float = best(lambda: separation_float(ds, cx, lam, alpha, v))  # noqa: B023
    t_arb = best(lambda: separation_arb(ds, cx, v, lam, alpha, v, digits), repeat=1)  # noqa: B023
    t_norm = best(lambda: separation_certified(ds, cx, v, lam, alpha, v))  # noqa: B023
    t_mp = best(lambda: mpmath_values(ds, cx, v, lam, digits), repeat=1)  # noqa: B023
    print(f"regime (i) |V|={V} d={d} n={n} N={ds.N}: lam_theory={lam:.5g}, {digits} digits")
    print(f"  float64 direct          {t_float * 1e3:10.2f} ms   (ratio 1)")
    print(f"  arb direct              {t_arb * 1e3:10.2f} ms   ratio {t_arb / t_float:10.1f}")
    print(f"  mpmath direct (values)  {t_mp * 1e3:10.2f} ms   ratio {t_mp / t_float:10.1f}")
    print(f"  arb normalised          {t_norm * 1e3:10.2f} ms   ratio {t_norm / t_float:10.1f}")

rng = np.random.default_rng(1)
ds = token_separated_dataset(rng, 64, 8, 6, 1000, 4, eps=0.25)
v, _, _ = draw_projection(rng, ds.vocab)
cx = contexts(ds, v)
alpha = ds.eps / (4 * ds.r_max)
t_search = best(lambda: lam_min_search(cx), repeat=1)
lam = lam_min_search(cx)["lam_min"] * 1.01
t_float = best(lambda: separation_float(ds, cx, lam, alpha, v))
t_norm = best(lambda: separation_certified(ds, cx, v, lam, alpha, v), repeat=1)
res = separation_certified(ds, cx, v, lam, alpha, v)
print(f"regime (ii) |V|=64 d=8 n=6 N=1000: lam_min search {t_search:.2f} s; at lam_star={lam:.4g} "
      f"(direct would need {res['digits_needed']:.0f} digits)")
print(f"  float64 direct          {t_float * 1e3:10.2f} ms   (ratio 1; reads delta = 0)")
print(f"  arb normalised          {t_norm * 1e3:10.2f} ms   ratio {t_norm / t_float:10.1f}")
