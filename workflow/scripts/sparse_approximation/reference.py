"""The exact-rule reference d_ref at every (n, k) of the sweep and of the mass-calibrated sweep."""

from expressivity.experiments.sparse_approximation.reference import reference_table
from expressivity.io import write_table
from expressivity.joblog import job_log

log = job_log(snakemake)
write_table(reference_table(**snakemake.params, log=log), snakemake.output[0])
