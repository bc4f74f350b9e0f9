"""Jobs that build the construction itself: one fixed module (W_Q, W_K) for targets of every kind,
and the heatmap example (a numeric Figure 2 of Likhosherstov, Choromanski & Weller 2021/2023).

The mathematics is in ``sparse_target``, ``approximation_check``, ``fixed_module`` and
``attention_mass``; the d_min of the example comes from ``searches.trial_record``.
"""

from __future__ import annotations

import logging
import math

import numpy as np
import pandas as pd

from expressivity.approximation_check import check_block, logit_values
from expressivity.attention import softmax
from expressivity.attention_mass import row_mass
from expressivity.experiments.sparse_approximation.searches import trial_record
from expressivity.fixed_module import (
    Construction,
    coupled_factors,
    fingerprint,
    las_vegas,
    sparse_fixed_weights,
)
from expressivity.rng import generator
from expressivity.sparse_target import KINDS, make_target


def module_table(*, seed: int, n: int, d: int, k: list[int], trials: int, max_rounds: int,
                 R: float, eps_ratio: float, eps_zero: float,
                 log: logging.Logger | None = None) -> pd.DataFrame:
    """One fixed module (W_Q, W_K at dimension d) for targets of every kind and k: per target, the
    Las Vegas input X, each draw checked on X W_Q (X W_K)^T / sqrt(d) computed through the explicit
    weights (``las_vegas(via_weights=True)``), and its off-support attention mass."""
    reference = fingerprint(*sparse_fixed_weights(d))
    rows = []
    for kind in KINDS:
        for k_ in k:
            for trial in range(trials):
                rng = generator(seed, "sparse_approximation.module", kind=kind, k=k_, trial=trial)
                A = make_target(kind, n, k_, R, rng)
                res = las_vegas(A, d, eps_ratio, eps_zero, rng, max_rounds, via_weights=True)
                row = {"kind": kind, "n": n, "k": k_, "trial": trial, "d": d, "d_over_n": d / n,
                       "rounds": res.rounds, "found": res.ok, "weights_fingerprint": "",
                       "same_weights": False, "input_fingerprint": "",
                       "min_slack_via_weights": res.min_slack, "ok_via_weights": res.ok,
                       "off_mass_mean": np.nan, "precision": "float64"}
                if res.ok:
                    c = res.construction
                    fp = fingerprint(*c.weights)
                    off, _ = row_mass(c.logits(), A.cols, A.vals, A.real)
                    row.update(weights_fingerprint=fp, same_weights=fp == reference,
                               input_fingerprint=fingerprint(c.X),
                               off_mass_mean=float(off.mean()))
                rows.append(row)
                if log is not None:
                    log.info("%s k=%d trial %d: rounds=%d ok=%s", kind, k_, trial, res.rounds,
                             res.ok)
    return pd.DataFrame(rows)


def example_table(*, seed: int, kind: str, n: int, k: int, window: int, R: float,
                  eps_ratio: float, eps_zero: float, delta: float, search: dict,
                  log: logging.Logger | None = None) -> pd.DataFrame:
    """The heatmap example: one target of family ``kind`` at its d_min, the attention of the fixed
    module through the explicit weights, on the ``window x window`` corner (queries and keys
    0..window-1; every row normalised over all n keys). One row per entry (i, j) of the window:
    the row-normalised target Abar, row-normalised exp(B), the attention M, and each row's
    off-support mass over all n keys. Band and block targets keep their support near the diagonal,
    so the corner shows it; a permutation target's support mostly lies outside any corner."""
    if not 1 <= window <= n:
        raise ValueError(f"window must be in [1, n = {n}], got {window}")
    rng = generator(seed, "sparse_approximation.example", kind=kind, n=n, k=k)
    A = make_target(kind, n, k, R, rng)
    state = rng.bit_generator.state
    row = trial_record(A, rng, R=R, eps_ratio=eps_ratio, eps_zero=eps_zero, delta=delta,
                       search=search)
    if math.isnan(row["d_min"]):
        raise RuntimeError(f"no working d found for the example (n = {n}, k = {k}); raise "
                           "search.max_extensions")
    d_min = int(row["d_min"])
    rng.bit_generator.state = state  # the same G prefix as the search
    B = logit_values(A, eps_ratio, eps_zero)
    construction = Construction(*coupled_factors(A, B, rng, d_min), d_min, "row")
    rows = np.arange(window)
    S = construction.logits(rows)  # (window, n), through the explicit weights
    chk = check_block(S.copy(), A.cols[rows], np.log(A.vals[rows]), 1.0, eps_ratio,
                      math.log(eps_zero))
    off, tv = row_mass(S, A.cols[rows], A.vals[rows], A.real[rows])
    dense_B = np.zeros((window, n))
    dense_A = np.zeros((window, n))
    r = rows[:, None]
    dense_B[r, A.cols[rows]] = np.where(A.real[rows], B[rows], 0.0)
    dense_A[r, A.cols[rows]] = np.where(A.real[rows], A.vals[rows], 0.0)
    if log is not None:
        log.info("%s n=%d k=%d: d_min=%d, window rows pass: %s, mean off-support mass %.3f",
                 kind, n, k, d_min, chk.ok, off.mean())
    i, j = np.indices((window, window))
    crop = (slice(None), slice(0, window))
    return pd.DataFrame({
        "i": i.ravel(), "j": j.ravel(), "kind": kind, "n": n, "k": k, "d": d_min,
        "A": dense_A[crop].ravel(),
        "A_rownorm": (dense_A / dense_A.sum(axis=1, keepdims=True))[crop].ravel(),
        "expB_rownorm": softmax(dense_B)[crop].ravel(),
        "attention": softmax(S)[crop].ravel(),
        "row_off_mass": np.repeat(off, window), "row_tv": np.repeat(tv, window),
        "ok": chk.ok, "precision": "float64",
    })
