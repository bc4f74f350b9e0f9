"""Contrast: the same rank-1 layer with hardmax on the Theorem 1 pattern (exact arithmetic)."""

import pandas as pd

from expressivity.contextual_mapping import hardmax_contrast_rows
from expressivity.io import write_table
from expressivity.rng import generator

p = snakemake.params
rows = []
for d in p.cfg["d"]:
    rows += hardmax_contrast_rows(generator(p.seed, "memorization.hardmax", d=d), d,
                                  p.cfg["draws"], margin=p.common["margin"])
write_table(pd.DataFrame(rows), snakemake.output[0])
with open(snakemake.log[0], "w") as log:
    log.write(f"{len(rows)} draws\n")
