"""Fang et al. 2022 claim: noisy regression without an approximation/sample trade-off."""

import pandas as pd

from expressivity.io import write_table
from expressivity.polynomial import regression_table
from expressivity.rng import generator

cfg = snakemake.params.cfg
rng = generator(snakemake.params.seed, "universal_approximation.regression")
rows = regression_table(cfg["d"], cfg["degree"], [cfg["degree"], cfg["degree"] - 1],
                        cfg["n_train"], cfg["sigma"], cfg["repeats"], rng, cfg["n_test"])
write_table(pd.DataFrame(rows), snakemake.output[0])
