"""One Lemma 6 table: checked grids, plus a row per grid skipped for exceeding the budget."""

import pandas as pd

from expressivity.io import read_table, write_table

rows = [read_table(p) for p in snakemake.input.summaries]
skipped = pd.DataFrame(snakemake.params.skipped,
                       columns=["inv_delta", "d", "n", "inputs"])
skipped["precision"] = f"skipped: grid over the budget of {snakemake.params.budget} inputs"
table = pd.concat(rows + ([skipped] if len(skipped) else []), ignore_index=True)
write_table(table.sort_values(["inv_delta", "d", "n"], kind="stable"), snakemake.output.summary)
curves = [read_table(p) for p in snakemake.input.curves if open(p).read().count("\n") > 1]
write_table(pd.concat(curves, ignore_index=True), snakemake.output.softmax)
