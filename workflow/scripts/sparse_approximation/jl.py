"""The construction at d = the JL bound (*) on the sweep's targets (Las Vegas rounds recorded)."""

from expressivity.experiments.sparse_approximation.searches import jl_table
from expressivity.io import write_table
from expressivity.joblog import job_log

log = job_log(snakemake)
table = jl_table(**snakemake.params, log=log)
write_table(table, snakemake.output[0])
