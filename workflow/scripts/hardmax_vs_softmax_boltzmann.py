"""Boltzmann operator properties on one chunk of the random vectors."""

import numpy as np
import pandas as pd

from expressivity.boltzmann import check_vector, random_vector
from expressivity.io import write_table
from expressivity.rng import generator

cfg = snakemake.params.cfg
chunk, n_chunks = int(snakemake.wildcards.chunk), snakemake.params.n_chunks
first = chunk * cfg["n_vectors"] // n_chunks
last = (chunk + 1) * cfg["n_vectors"] // n_chunks
rows = []
with open(snakemake.log[0], "w") as log:
    for i in range(first, last):
        rng = generator(snakemake.params.seed, "hardmax_vs_softmax.boltzmann", vector=i)
        a = random_vector(rng, cfg["size_min"], cfg["size_max"], cfg["scale_max"], cfg["tie_fraction"])
        rows.append({"vector": i, **check_vector(rng, a, np.array(cfg["spreads"]), cfg["mp_dps"])})
        if (i - first + 1) % 1000 == 0:
            log.write(f"checked {i - first + 1}/{last - first} vectors\n")
write_table(pd.DataFrame(rows), snakemake.output[0])
