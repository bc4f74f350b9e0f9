"""Regime (ii): the last crossing of the asymptotic order by search, certified separation there and
at lam_theory, the exact limits, the memorizer; one (d, |V|)."""

import math

import pandas as pd

from expressivity.experiments.memorization.regimes import search_points, search_rows
from expressivity.io import write_table
from expressivity.joblog import job_log

log = job_log(snakemake)
p = snakemake.params
d, V = int(snakemake.wildcards.d), int(snakemake.wildcards.V)
for n, N in search_points(V, p.n, p.N)[1]:
    log.info(f"skipped n={n} N={N}: C({V}, {n}) = {math.comb(V, n)} < N token sets")
rows = search_rows(d=d, V=V, log=log, **dict(p.items()))
write_table(pd.DataFrame(rows), snakemake.output[0])
log.info(f"{len(rows)} datasets")
