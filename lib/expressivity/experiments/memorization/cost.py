"""Predicted seconds and peak memory of the memorization stage's jobs, from their settings.

The rules' ``resources`` (``runtime`` in minutes, ``mem_mb``) come from these functions, so a run's
plan (``make plan``) is known before it starts and a config whose cost is absurd shows in it.
Each job is a sum over its datasets of terms that follow the work done (``P = N n`` contexts of
``n`` tokens, ``D`` decimal digits):

- the grid scan of the last crossing: ``P n^2 n_grid`` exponentials in float64;
- certified normalised differences in ``arb`` at a few dozen digits: ``P n^2`` products;
- direct ``arb`` evaluation at ``D`` digits (regime (i)): ``P n`` exponentials and the memorizer's
  FFN in mpmath at ``2 D`` digits, together about ``P n D^1.5`` (measured);
- drawing the vocabulary (``|V|^2`` distances, one at a time) and the projection (``|V|^2 d``).

The coefficients were measured on the development machine (2 cores shared with other jobs, so
they are on the slow side) from the jobs of ``config/config.yaml``; memory adds the arrays each term
holds to a base of 120 MB (the interpreter, numpy, flint, mpmath). ``progress_tracker`` uses the
same predictions to weight progress lines, so their remaining time is meaningful when the units of
work differ by orders of magnitude.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Sequence

import numpy as np

from expressivity.arguments import integer
from expressivity.joblog import Progress
from expressivity.rank1.layer import digits_bound, lam_theory

#: Seconds per unit of each term (see the module docstring).
SECONDS = {
    "dataset": 0.05,          # one dataset's fixed cost (draws, contexts, tables)
    "vocab": 3e-6,            # per |V|^2 (rejection sampling of the tokens, one pair at a time)
    "projection": 1e-9,       # per |V|^2 d (the projection lemma's pairs, validation)
    "grid": 3e-8,             # per P n^2 n_grid (float64 scan of the last crossing)
    "certified": 2e-6,        # per P n^2 (one certified separation, normalised differences)
    "context": 8e-5,          # per P (exact limits, memorizer at a few dozen digits, sorting)
    "digits": 3e-9,           # per P n D^1.5 (direct arb at D digits and the FFN at 2 D digits)
    "pair": 0.005,            # one adversarial pair (its draws, exact limits, memorizer)
}
#: Bytes: interpreter and libraries, and per element of the large arrays.
BASE_BYTES = 120 * 2**20


def _counts(**values: int) -> None:
    """``arguments.integer(name, value, 1)`` for every keyword."""
    for name, value in values.items():
        integer(name, value, 1)


def _grid_bytes(P: int, n: int, n_grid: int) -> int:
    """The pair sums (``P`` pairs of ``n^2`` terms, a few arrays) and one block of the grid scan
    (``pair_sums._GRID_VALUES`` terms, a few temporaries)."""
    return 5 * 8 * P * n * n + 4 * 8 * min(P * n * n * n_grid, 2**21)


def search_cost(*, V: int, d: int, n: Sequence[int], N: Sequence[int],
                n_grid: int) -> tuple[float, int]:
    """``(seconds, peak bytes)`` of job ``mem_search`` at one ``(d, |V|)`` over its ``(n, N)``
    (those ``N > C(|V|, n)`` are skipped, as the job skips them): per dataset the vocabulary, the
    grid scan, three certified separations (at ``lam_star``, ``lam_theory`` and ``lam_mem``),
    the exact limits and the memorizer at a few dozen digits."""
    _counts(V=V, d=d, n_grid=n_grid)
    seconds, peak = 0.0, BASE_BYTES + 3 * 8 * V * V  # the vocabulary's distance matrix
    for size in n:
        for count in N:
            _counts(n=size, N=count)
            if count > math.comb(V, size):
                continue
            P = count * size
            seconds += (SECONDS["dataset"] + SECONDS["vocab"] * V * V
                        + SECONDS["projection"] * V * V * d
                        + SECONDS["grid"] * P * size**2 * n_grid
                        + 3 * SECONDS["certified"] * P * size**2 + SECONDS["context"] * P)
            peak = max(peak, BASE_BYTES + 3 * 8 * V * V + _grid_bytes(P, size, n_grid)
                       + 300 * P * size)
    return seconds, int(peak)


def theory_cost(*, V: int, d: int, n: Sequence[int], N_max: int, r_min: float,
                r_max: float, eps: float, max_digits: int) -> tuple[float, int]:
    """``(seconds, peak bytes)`` of job ``mem_theory`` at one ``(d, |V|)``: per sequence length the
    dataset of ``min(N_max, C(|V|, n))`` sequences, the search, two certified separations and, when
    ``D = digits_bound(lam_theory) <= max_digits``, the direct ``arb`` evaluation and the memorizer
    at ``D`` digits (values held as ``D``-digit numbers: about ``0.42 D`` bytes each)."""
    _counts(V=V, d=d, N_max=N_max, max_digits=max_digits)
    seconds, peak = 0.0, BASE_BYTES
    for size in n:
        _counts(n=size)
        P = min(N_max, math.comb(V, size)) * size
        D = digits_bound(lam_theory(size, d, V, eps, r_min), r_max)
        seconds += (SECONDS["dataset"] + SECONDS["grid"] * P * size**2 * 64
                    + 2 * SECONDS["certified"] * P * size**2 + SECONDS["context"] * P)
        if D <= max_digits:
            seconds += SECONDS["digits"] * P * size * D**1.5
            peak = max(peak, BASE_BYTES + int(0.42 * D) * P * (3 * size + 12))
        peak = max(peak, BASE_BYTES + _grid_bytes(P, size, 64))
    return seconds, int(peak)


def curve_cost(*, V: int, d: int, n: int, n_lams: int, zoom_points: int, max_digits: int,
               adversarial_k: int) -> tuple[float, int]:
    """``(seconds, peak bytes)`` of job ``mem_curve``: two small datasets (every token set of the
    random one; the adversarial pair has ``2^k`` tokens a side and two shared), a certified and a
    float64 separation at each ``lam``, and direct ``arb`` ones on the log grid up to
    ``max_digits`` digits (a geometric grid: their sum is a few times the largest)."""
    _counts(V=V, d=d, n=n, n_lams=n_lams, zoom_points=zoom_points, max_digits=max_digits,
            adversarial_k=adversarial_k)
    sizes = [(math.comb(V, n) * n, n), (2 * (2**adversarial_k + 2), 2**adversarial_k + 2)]
    seconds = 0.0
    for P, size in sizes:
        seconds += (SECONDS["dataset"] + (n_lams + zoom_points + 2)
                    * (SECONDS["certified"] * P * size**2 + SECONDS["context"] * P)
                    + SECONDS["digits"] * P * size * max_digits**1.5)
    return seconds, BASE_BYTES + int(0.42 * max_digits) * max(P * (3 * s + 12) for P, s in sizes)


def contrast_cost(*, d: Sequence[int], degrees: Sequence[int], draws: int,
                  extra_shared: int) -> tuple[float, int]:
    """``(seconds, peak bytes)`` of job ``mem_hardmax``: per draw one pair of at most ``2^k + 2 +
    extra_shared`` tokens a side, its exact limits, two certified separations and the memorizer
    at a few dozen digits."""
    _counts(draws=draws, **{f"d[{i}]": x for i, x in enumerate(d)},
            **{f"degrees[{i}]": k for i, k in enumerate(degrees)})
    integer("extra_shared", extra_shared, 0)
    seconds, peak = 0.0, BASE_BYTES
    for k in [1, *degrees]:  # the Theorem 1 pair is a k = 1 member
        size = 2**k + 2 + extra_shared
        P = 2 * size
        seconds += len(d) * draws * (SECONDS["pair"] + 2 * SECONDS["certified"] * P * size**2)
        peak = max(peak, BASE_BYTES + 12 * 8 * P * size**2)
    return seconds, peak


def masked_cost(*, theory_d: Sequence[int], theory_V: Sequence[int], theory_n: Sequence[int],
                N_max: int, d: Sequence[int], V: Sequence[int], n: Sequence[int],
                N: Sequence[int], pair_d: Sequence[int], pair_V: int, pair_n: int,
                draws: int) -> tuple[float, int]:
    """``(seconds, peak bytes)`` of job ``mem_masked``: per random dataset of ``N`` ordered
    sequences at most ``N n`` prefix contexts of at most ``n`` tokens, one certified separation
    and the exact limits (a context term each); per adversarial draw a pair of ``pair_n`` tokens
    a side, two certified separations (``SECONDS["pair"]`` for its draws and exact limits)."""
    integer("pair_n", pair_n, 4)  # two interior tokens and the segment ends p, q
    _counts(N_max=N_max, pair_V=pair_V, draws=draws,
            **{f"{name}[{i}]": x for name, values in (("theory_d", theory_d), ("theory_V", theory_V),
                                                      ("theory_n", theory_n), ("d", d), ("V", V),
                                                      ("n", n), ("N", N), ("pair_d", pair_d))
               for i, x in enumerate(values)})
    points = ([(min(N_max, math.perm(size, k)), size, k) for size in theory_V for k in theory_n
               if k <= size] * len(theory_d)
              + [(count, size, k) for size in V for k in n for count in N
                 if k <= size and count <= math.perm(size, k)] * len(d))
    seconds, peak = 0.0, BASE_BYTES
    for count, size, k in points:
        P = count * k
        seconds += (SECONDS["dataset"] + SECONDS["vocab"] * size * size
                    + SECONDS["certified"] * P * k**2 + 3 * SECONDS["context"] * P)
        peak = max(peak, BASE_BYTES + _grid_bytes(P, k, 1) + 300 * P * k)
    P = 2 * pair_n
    seconds += len(pair_d) * draws * (SECONDS["pair"] + 2 * SECONDS["certified"] * P * pair_n**2
                                      + SECONDS["vocab"] * (pair_V + 4)**2)
    return seconds, peak


def progress_tracker(log: logging.Logger | None, what: str,
                     weights: Sequence[float]) -> Callable[..., None]:
    """A function ``done(i, **values)`` to call after unit ``i`` of work: it reports through
    ``joblog.Progress`` with the units weighted by their predicted seconds (does nothing without
    ``log`` or work)."""
    if log is None or not len(weights):
        return lambda i, **values: None
    cum = np.cumsum(np.maximum(np.asarray(weights, dtype=float), 1e-9))
    progress = Progress(log, what, float(cum[-1]))
    return lambda i, **values: progress.update(float(cum[i]), **values)
