"""Fang et al. 2022 claim: max relative error against (blocks, degree) for every dimension d."""

import pandas as pd

from expressivity.io import write_table
from expressivity.polynomial import staircase_table
from expressivity.rng import generator

cfg = snakemake.params.cfg
rows = []
for d in cfg["d"]:
    rng = generator(snakemake.params.seed, "universal_approximation.staircase", d=d)
    rows += staircase_table(d, cfg["max_blocks"], cfg["max_degree"], rng, cfg["n_test"])
write_table(pd.DataFrame(rows), snakemake.output[0])
