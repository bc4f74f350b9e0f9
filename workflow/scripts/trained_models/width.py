"""Smallest FFN width that training fits to 100 % at one N, next to the construction's count."""

import pandas as pd

from expressivity.datasets import token_separated_dataset
from expressivity.io import write_table
from expressivity.rng import generator
from expressivity.training import (
    configure_torch,
    construction_parameters,
    minimal_width,
    run_info,
    torch_seed,
)

p = snakemake.params
mem, cfg = p.memorization, p.cfg
N = int(snakemake.wildcards.N)  # noqa: N816
device = configure_torch(p.threads, p.device)
ds = token_separated_dataset(generator(p.seed, "trained_models.dataset", N=N),
                             mem["vocab_size"], mem["d"], mem["n"], N, mem["n_classes"])
rng = generator(p.seed, "trained_models.width", N=N)
with open(snakemake.log[0], "w") as log:
    best, runs = minimal_width(ds, cfg["widths"], heads=1, head_size=1, epochs=cfg["epochs"],
                               lr=mem["lr"], seed=torch_seed(rng), record_every=cfg["epochs"],
                               device=device, log=log, label=f"N={N}")
construction = construction_parameters(N, ds.n, ds.d)
rows = [{
    "N": N, "n": ds.n, "d": ds.d, **run, "reached": run["accuracy"] == 1.0,
    "minimal_width": best, "max_width_tried": max(cfg["widths"]),
    "construction_ffn_width": construction["ffn_width"],
    "construction_ffn_parameters": construction["ffn"],
    "construction_parameters": construction["total"], "epochs_budget": cfg["epochs"],
    **run_info(device),
} for run in runs]
write_table(pd.DataFrame(rows), snakemake.output[0])
