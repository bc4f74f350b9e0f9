"""d_min of every trial at one (n, k) (one-pass search; see expressivity.sparse_approximation)."""

import time

import pandas as pd

from expressivity.io import write_table
from expressivity.rng import generator
from expressivity.sparse_approximation import make_target, trial_record

cfg, seed = snakemake.params.cfg, snakemake.params.seed
n, k = int(snakemake.wildcards.n), int(snakemake.wildcards.k)
rows = []
with open(snakemake.log[0], "w") as log:
    for trial in range(snakemake.params.trials):
        start = time.perf_counter()
        rng = generator(seed, "sparse_approximation.sweep", n=n, k=k, trial=trial)
        target = make_target(cfg["target"], n, k, cfg["R"], rng)
        row, _ = trial_record(target, rng, R=cfg["R"], eps_ratio=cfg["eps_ratio"],
                              eps_zero=cfg["eps_zero"], delta=cfg["delta"], search=cfg["search"])
        rows.append({"kind": cfg["target"], "trial": trial, **row})
        seconds = time.perf_counter() - start
        # each extension redid the pass with a horizon 1.5 times longer
        passes = sum(1.5**-e for e in range(row["extensions"] + 1))
        flops = 2.0 * n * n * row["d_max"] * passes
        log.write(f"n={n} k={k} trial={trial}: d_min={row['d_min']} d_max={row['d_max']} "
                  f"extensions={row['extensions']} {seconds:.2f} s, about "
                  f"{flops / seconds / 1e9:.1f} GFLOP/s\n")
write_table(pd.DataFrame(rows), snakemake.output[0])
