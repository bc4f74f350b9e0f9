"""Regime (ii): lam_min by search, certified separation there, memorizer; one (d, |V|)."""

import math

import pandas as pd

from expressivity.contextual_mapping import search_row
from expressivity.io import write_table
from expressivity.rng import generator

p = snakemake.params
d, V = int(snakemake.wildcards.d), int(snakemake.wildcards.V)
rows, skipped = [], []
for n in p.cfg["n"]:
    for N in p.cfg["N"]:
        if N > math.comb(V, n):  # fewer distinct token sets than N: the larger N are skipped
            skipped.append((n, N))
            continue
        rng = generator(p.seed, "memorization.search", d=d, V=V, n=n, N=N)
        rows.append(search_row(rng, V, d, n, N, p.common["n_classes"], p.common["r_min"],
                               p.common["r_max"], p.cfg["eps"], p.cfg["lam_mem"],
                               margin=p.common["margin"], n_grid=p.cfg["n_grid"]))
write_table(pd.DataFrame(rows), snakemake.output[0])
with open(snakemake.log[0], "w") as log:
    for n, N in skipped:
        log.write(f"skipped n={n} N={N}: C({V}, {n}) = {math.comb(V, n)} < N token sets\n")
    log.write(f"{len(rows)} datasets\n")
