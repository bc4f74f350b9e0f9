"""The dimension-norm frontier at one k: the smallest d of optimised inputs under every logit
budget and criterion, at every n (expressivity.experiments.sparse_approximation.frontier)."""

from expressivity.experiments.sparse_approximation.frontier import frontier_table
from expressivity.io import write_table
from expressivity.joblog import job_log

log = job_log(snakemake)
table = frontier_table(k=int(snakemake.wildcards.k), **snakemake.params, log=log)
write_table(table, snakemake.output[0])
