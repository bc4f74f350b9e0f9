"""The heatmap example: A, row-normalised exp(B) and the fixed module's attention at d_min."""

from expressivity.experiments.sparse_approximation import example_table
from expressivity.io import write_table
from expressivity.joblog import job_log

log = job_log(snakemake)
table = example_table(**snakemake.params,
                      progress=log.info)
write_table(table, snakemake.output[0])
