"""d_min at one (n, k) with one of eps_ratio, eps_zero, R or the form changed."""

from expressivity.experiments.sparse_approximation.searches import vary_table
from expressivity.io import write_table
from expressivity.joblog import job_log

log = job_log(snakemake)
table = vary_table(varied=snakemake.wildcards.varied, **snakemake.params, log=log)
write_table(table, snakemake.output[0])
