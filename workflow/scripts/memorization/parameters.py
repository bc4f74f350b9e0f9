"""Parameter counts against N with reference orders of growth, and the log-log slope per series."""

from expressivity.experiments.memorization import parameter_table
from expressivity.io import read_table, write_table
from expressivity.joblog import job_log

log = job_log(snakemake)
df = read_table(snakemake.input.search, ["d", "V", "n", "N", "n_parameters"])
write_table(parameter_table(df), snakemake.output[0])
log.info(f"{len(df)} datasets")
