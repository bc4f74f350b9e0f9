"""BigBird Proposition 1: furthest vectors with one dense attention layer, at one n."""

import pandas as pd

from expressivity.counterexamples import bigbird_table
from expressivity.io import write_table

cfg = snakemake.params.cfg
rows = bigbird_table(snakemake.params.seed, int(snakemake.wildcards.n), cfg["trials"],
                     cfg["beta_min"], cfg["beta_max"], cfg["n_betas"])
write_table(pd.DataFrame(rows), snakemake.output[0])
with open(snakemake.log[0], "w") as log:
    log.write(f"{len(rows)} rows\n")
