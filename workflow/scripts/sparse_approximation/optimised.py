"""Optimised inputs against the random construction at one (n, k), with the lower bounds on d and
the unbounded d = 2 circle (expressivity.optimised_inputs, expressivity.norm_bounds)."""

from expressivity.experiments.sparse_approximation.optimised import optimised_table
from expressivity.io import write_table
from expressivity.joblog import job_log

log = job_log(snakemake)
wc = snakemake.wildcards
table = optimised_table(n=int(wc.n), k=int(wc.k), **snakemake.params, log=log)
write_table(table, snakemake.output[0])
