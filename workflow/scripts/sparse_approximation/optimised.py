"""Optimised inputs against the random construction at every n and one k, with the lower bounds on d and
the unbounded d = 2 circle (expressivity.optimised_inputs, expressivity.norm_bounds)."""

from expressivity.experiments.sparse_approximation.optimised import optimised_table
from expressivity.io import write_table
from expressivity.joblog import job_log

log = job_log(snakemake)
table = optimised_table(k=int(snakemake.wildcards.k), **snakemake.params, log=log)
write_table(table, snakemake.output[0])
