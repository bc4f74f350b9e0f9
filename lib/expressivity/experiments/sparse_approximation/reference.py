"""The exact-rule reference d_ref for every (n, k) of the sweep and of the mass-calibrated sweep.

``d_min_reference`` models the search's decision rule row by row; this job gives it the rows the
sweep's targets have (logits B of real targets drawn at each n, so that rows whose permutations
collide are as frequent as in the sweep) and the search's own grid of d, and writes one row per
(series, k, n): ``d_ref`` (the model's median working d, interpolated) and ``d_ref_grid`` (the first
grid d at which the model's probability that every row passes reaches 1/2: what the measured
median d_min is compared with). No sweep table is read: the reference depends on the config alone.
"""

from __future__ import annotations

import logging
import math

import numpy as np
import pandas as pd

from expressivity.approximation_check import logit_values
from expressivity.attention_mass import mass_calibrated_eps_zero
from expressivity.d_min_reference import RowModel
from expressivity.experiments.sparse_approximation.searches import sweep_points
from expressivity.one_pass_search import d_grid
from expressivity.rng import generator
from expressivity.sparse_target import make_target

#: Rows of B per (n, k) (from real targets), each paired with every quadrature point.
DRAWS = 256
#: The largest d of the reference's grid (the search's grid, continued).
GRID_MAX = 100_000


def sample_rows(*, seed: int, target: str, n: int, k: int, R: float, eps_ratio: float,
                eps_zero: float, draws: int = DRAWS) -> tuple[np.ndarray, np.ndarray]:
    """``(B_rows, real)``: ``draws`` rows of the logits B of independent targets of size n (as many
    targets as it takes), with their genuine-slot masks."""
    rng = generator(seed, "sparse_approximation.reference.rows", n=n, k=k, eps_zero=eps_zero)
    rows, real = [], []
    for _ in range(math.ceil(draws / n)):
        A = make_target(target, n, k, R, rng)
        rows.append(logit_values(A, eps_ratio, eps_zero))
        real.append(A.real)
    return np.concatenate(rows)[:draws], np.concatenate(real)[:draws]


def reference_table(*, seed: int, target: str, R: float, eps_ratio: float, eps_zero: float,
                    search: dict, sweep: dict, mass: dict, draws: int = DRAWS,
                    log: logging.Logger | None = None) -> pd.DataFrame:
    """One row per (series, k, n) of the sweep (eps_zero) and of the mass-calibrated sweep
    (eps_zero = mass.eps / n): the exact-rule reference ``d_ref`` and ``d_ref_grid`` on the grid
    of ``search`` (``d_start, resolution, min_step``)."""
    grid = d_grid(search["d_start"], GRID_MAX, search["resolution"], search["min_step"])
    series = [("per-entry", sweep_points(sweep), lambda n: eps_zero),
              ("mass-calibrated", sweep_points(mass), lambda n: mass_calibrated_eps_zero(
                  mass["eps"], n))]
    rows = []
    for name, points, eps_of in series:
        start = {}  # the grid index of the last n of each k: d_ref grows with n
        for n, k, _ in sorted(points, key=lambda p: (p[1], p[0])):
            zero = eps_of(n)
            B, real = sample_rows(seed=seed, target=target, n=n, k=k, R=R, eps_ratio=eps_ratio,
                                  eps_zero=zero, draws=draws)
            model = RowModel(B, real, eps_ratio, zero, generator(
                seed, "sparse_approximation.reference", series=name, n=n, k=k))
            on_grid, d_ref, start[k] = model.reference(n, grid, start=start.get(k, 0))
            rows.append({"series": name, "k": k, "n": n, "eps_ratio": eps_ratio,
                         "eps_zero": zero, "draws": draws, "d_ref": d_ref,
                         "d_ref_grid": on_grid})
            if log is not None:
                log.info("%s k=%d n=%d: d_ref = %.1f (grid %g)", name, k, n, d_ref, on_grid)
    return pd.DataFrame(rows)
