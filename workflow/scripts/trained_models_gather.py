"""Concatenate the memorization variants' curves and summaries (rows in input order)."""

import pandas as pd

from expressivity.io import read_table, write_table

for inputs, output in ((snakemake.input.curves, snakemake.output.curve),
                       (snakemake.input.summaries, snakemake.output.summary)):
    write_table(pd.concat([read_table(p) for p in inputs], ignore_index=True), output)
