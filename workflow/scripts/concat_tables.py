"""Concatenate the tables of parallel jobs into one table (rows in input order)."""

import pandas as pd

from expressivity.io import read_table, write_table

write_table(pd.concat([read_table(p) for p in snakemake.input.tables], ignore_index=True),
            snakemake.output[0])
