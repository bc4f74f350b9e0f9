"""Concatenate the tables of parallel jobs into one table (rows in input order)."""

import pandas as pd

from expressivity.io import read_table, write_table
from expressivity.joblog import job_log

log = job_log(snakemake)
table = pd.concat([read_table(p) for p in snakemake.input.tables], ignore_index=True)
write_table(table, snakemake.output[0])
log.info(f"{len(table)} rows from {len(snakemake.input.tables)} tables")
