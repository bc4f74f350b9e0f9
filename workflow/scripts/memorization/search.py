"""Regime (ii): lam_min by search, certified separation there, memorizer; one (d, |V|)."""

import math

import pandas as pd

from expressivity.experiments.memorization import search_points, search_rows
from expressivity.io import write_table
from expressivity.joblog import job_log

log = job_log(snakemake)
p = snakemake.params
d, V = int(snakemake.wildcards.d), int(snakemake.wildcards.V)
rows = search_rows(d=d, V=V, **dict(p.items()))
write_table(pd.DataFrame(rows), snakemake.output[0])
for n, N in search_points(V, p.n, p.N)[1]:
    log.info(f"skipped n={n} N={N}: C({V}, {n}) = {math.comb(V, n)} < N token sets")
log.info(f"{len(rows)} datasets")
