"""Gather the stage claims tables into results/claims.csv."""

import pandas as pd

from expressivity.claims import summary_line
from expressivity.io import read_table, write_table

table = pd.concat([read_table(p, ["id", "status"]) for p in snakemake.input.stages], ignore_index=True)
write_table(table, snakemake.output[0])
with open(snakemake.log[0], "w") as log:
    log.write(summary_line(table) + "\n")
