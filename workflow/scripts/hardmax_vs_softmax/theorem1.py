"""Theorem 1: random one-layer attentions on the counterexample; the explicit softmax memorizer."""

import pandas as pd

from expressivity.counterexamples import memorizer_table, theorem1_search
from expressivity.io import write_table

cfg = snakemake.params.cfg
rows = theorem1_search(snakemake.params.seed, cfg["n_draws"], cfg["d"], cfg["heads_max"],
                       cfg["head_size_max"], cfg["weight_scales"], cfg["tie_tol"],
                       cfg["exact_draws"])
write_table(pd.DataFrame(rows), snakemake.output.search)
write_table(pd.DataFrame(memorizer_table(cfg["d"], cfg["lam"])), snakemake.output.memorizer)
with open(snakemake.log[0], "w") as log:
    log.write(f"{len(rows)} draws\n")
