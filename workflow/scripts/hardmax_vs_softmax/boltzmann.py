"""Boltzmann operator properties on one chunk of the random vectors."""

import pandas as pd

from expressivity.boltzmann import check_vectors
from expressivity.io import write_table

cfg = snakemake.params.cfg
chunk, n_chunks = int(snakemake.wildcards.chunk), snakemake.params.n_chunks
first = chunk * cfg["n_vectors"] // n_chunks
last = (chunk + 1) * cfg["n_vectors"] // n_chunks
rows = check_vectors(snakemake.params.seed, first, last, cfg["size_min"], cfg["size_max"],
                     cfg["scale_max"], cfg["tie_fraction"], cfg["spreads"], cfg["mp_dps"])
write_table(pd.DataFrame(rows), snakemake.output[0])
with open(snakemake.log[0], "w") as log:
    log.write(f"checked vectors {first}..{last - 1}\n")
