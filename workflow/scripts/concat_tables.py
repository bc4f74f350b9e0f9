"""Concatenate the tables of parallel jobs into one table (rows in input order); where the parts
are a cell's learning rates run apart (param ``cells``: the columns naming a cell), recompute each
cell's summary over all its rows."""

import pandas as pd

from expressivity.io import read_table, write_table
from expressivity.joblog import job_log

log = job_log(snakemake)
table = pd.concat([read_table(p) for p in snakemake.input.tables], ignore_index=True)
if snakemake.params.cells:
    from expressivity.experiments.trained_models.runs import cells_summarised

    table = cells_summarised(table, snakemake.params.cells)
write_table(table, snakemake.output[0])
log.info(f"{len(table)} rows from {len(snakemake.input.tables)} tables")
