"""Curves boltz(beta a)/beta against beta for three example vectors (figure data)."""

import pandas as pd

from expressivity.boltzmann import limit_curves
from expressivity.io import write_table

rows = limit_curves(snakemake.params.seed, (4, 16, 64), snakemake.params.cfg["example_betas"])
write_table(pd.DataFrame(rows), snakemake.output[0])
