"""End-to-end L^p errors against delta for one target (Yun et al.; Kajitsuka & Sato)."""

import pandas as pd

from expressivity.io import write_table
from expressivity.rng import generator
from expressivity.universal import approximation_table, sample

cfg = snakemake.params.cfg
name = snakemake.wildcards.target
seed = snakemake.params.seed
X = sample(generator(seed, "universal_approximation.sample"), cfg["samples"], cfg["n"], cfg["d"])
rows = approximation_table(name, cfg["inv_delta"], X, cfg["lam"], snakemake.params.budget,
                           generator(seed, "universal_approximation.ks", target=name),
                           cfg["mp_dps"])
write_table(pd.DataFrame(rows), snakemake.output[0])
