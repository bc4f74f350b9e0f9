"""The heatmap example: target, row-normalised exp(B) and the fixed module's attention at d_min."""

from expressivity.experiments.sparse_approximation.construction import example_table
from expressivity.io import write_table
from expressivity.joblog import job_log

log = job_log(snakemake)
table = example_table(**snakemake.params, log=log)
write_table(table, snakemake.output[0])
