"""Figure data: delta against lam from 0 to lam_theory, float64 versus arbitrary precision."""

import pandas as pd

from expressivity.contextual_mapping import curve_rows
from expressivity.io import write_table
from expressivity.rng import generator

p = snakemake.params
c = p.cfg
rows = curve_rows(generator(p.seed, "memorization.curve"), c["V"], c["d"], c["n"],
                  p.common["n_classes"], p.common["r_min"], p.common["r_max"], c["eps"],
                  c["n_lams"], c["decades"], c["max_digits"])
write_table(pd.DataFrame(rows), snakemake.output[0])
with open(snakemake.log[0], "w") as log:
    log.write(f"{len(rows)} values of lam\n")
