"""Largest logit error max_ij |(X1 X2^T - B)_ij| against d at one k, up to the JL bound."""

from expressivity.experiments.sparse_approximation.searches import error_table
from expressivity.io import write_table
from expressivity.joblog import job_log

log = job_log(snakemake)
table = error_table(k=int(snakemake.wildcards.k), **snakemake.params, log=log)
write_table(table, snakemake.output[0])
