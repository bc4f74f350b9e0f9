"""Largest logit error max_ij |(X1 X2^T - B)_ij| against d, up to the JL bound (one pass)."""

import math

import numpy as np
import pandas as pd

from expressivity.io import write_table
from expressivity.random_projection import (
    beta,
    jl_dimension,
    jl_error_bound,
    jl_typical_error,
)
from expressivity.rng import generator
from expressivity.sparse_approximation import (
    coupled_factors,
    d_grid,
    logit_values,
    make_target,
    one_pass_search,
)

cfg, seed, err_cfg = snakemake.params.cfg, snakemake.params.seed, snakemake.params.error
eps_r, eps_z, R, delta = cfg["eps_ratio"], cfg["eps_zero"], cfg["R"], cfg["delta"]
n = err_cfg["n"]
rows = []
for k in snakemake.params.k:
    d_jl = jl_dimension(n, k, R, eps_r, eps_z, delta)
    grid = d_grid(cfg["search"]["d_start"], d_jl, 0.1, cfg["search"]["min_step"])
    for trial in range(err_cfg["trials"]):
        rng = generator(seed, "sparse_approximation.error", k=k, trial=trial)
        target = make_target(cfg["target"], n, k, R, rng)
        B = logit_values(target, eps_r, eps_z)
        norm = float(np.sqrt((np.where(target.real, B, 0.0) ** 2).sum(axis=1)).max())
        QT, KT = coupled_factors(target, B, rng, int(grid[-1]))
        res = one_pass_search(target, QT, KT, grid, eps_r, eps_z, cfg["search"]["block"], B=B)
        for d, e, s in zip(res.grid, res.max_error, res.slack, strict=True):
            rows.append({"n": n, "k": k, "trial": trial, "d": int(d), "max_logit_error": e,
                         "min_slack": s, "works": bool(s >= 0), "row_norm_max": norm,
                         "jl_bound_error": jl_error_bound(n, d, beta(k, R, eps_r, eps_z), delta),
                         "jl_typical_error": jl_typical_error(n, d, norm),
                         "sufficient_error": eps_r / 2, "d_jl": d_jl, "precision": "float64"})
df = pd.DataFrame(rows)
df["jl_bound_error"] = df["jl_bound_error"].replace(math.inf, np.nan)
write_table(df, snakemake.output[0])
with open(snakemake.log[0], "w") as log:
    log.write(f"{len(df)} (k, trial, d) rows at n = {n}\n")
