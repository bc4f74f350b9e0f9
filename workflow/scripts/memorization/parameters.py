"""Parameter counts and total bits against N, with reference orders and the counting bound."""

from expressivity.experiments.memorization.parameters import INPUT_COLUMNS, parameter_table
from expressivity.io import read_table, write_table
from expressivity.joblog import job_log

log = job_log(snakemake)
df = read_table(snakemake.input.search, INPUT_COLUMNS)
write_table(parameter_table(df), snakemake.output[0])
log.info(f"{len(df)} datasets")
