"""The unbounded constructions on the frontier's targets: the circle (d = 2) and the moment curve
(d = 2k) at their smallest scale (expressivity.experiments.sparse_approximation.frontier)."""

from expressivity.experiments.sparse_approximation.frontier import unbounded_table
from expressivity.io import write_table
from expressivity.joblog import job_log

log = job_log(snakemake)
write_table(unbounded_table(**snakemake.params, log=log), snakemake.output[0])
