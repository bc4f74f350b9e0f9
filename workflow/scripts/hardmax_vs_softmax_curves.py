"""Curves boltz(beta a)/beta against beta for a few example vectors (figure data)."""

import math

import numpy as np
import pandas as pd

from expressivity.attention import boltz
from expressivity.io import write_table
from expressivity.rng import generator

cfg = snakemake.params.cfg
rows = []
for example, n in enumerate([4, 16, 64]):
    rng = generator(snakemake.params.seed, "hardmax_vs_softmax.curves", example=example)
    a = rng.standard_normal(n)
    for beta in np.logspace(-2, 3, cfg["example_betas"]):
        rows.append({
            "example": example, "n": n, "beta": beta,
            "boltz_over_beta": float(boltz(beta * a)) / beta,
            "max": float(a.max()), "lower_bound": float(a.max()) - math.log(n) / beta,
        })
write_table(pd.DataFrame(rows), snakemake.output[0])
