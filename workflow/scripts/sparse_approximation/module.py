"""One fixed module (W_Q, W_K at one d) for targets of every kind and k."""

from expressivity.experiments.sparse_approximation.construction import module_table
from expressivity.io import write_table
from expressivity.joblog import job_log

log = job_log(snakemake)
table = module_table(**snakemake.params, log=log)
write_table(table, snakemake.output[0])
