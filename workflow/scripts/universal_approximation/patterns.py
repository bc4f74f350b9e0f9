"""Assumption 1 (Yun et al. 2020b) and connections of every sparse pattern at every length n."""

import pandas as pd

from expressivity.io import write_table
from expressivity.rng import generator
from expressivity.sparse_patterns import assumption_table

rows = []
for n in snakemake.params.n:
    rng = generator(snakemake.params.seed, "universal_approximation.patterns", n=n)
    rows += assumption_table(n, snakemake.params.names, rng)
write_table(pd.DataFrame(rows), snakemake.output[0])
