"""Ablation: heads h and head size s of the tied attention on the memorization dataset."""

import pandas as pd

from expressivity.datasets import token_separated_dataset
from expressivity.io import write_table
from expressivity.rng import generator
from expressivity.training import configure_torch, memorize, run_info, torch_seed

p = snakemake.params
cfg = p.cfg
heads = int(snakemake.wildcards.heads)
size = cfg["d"] if snakemake.wildcards.size == "d" else int(snakemake.wildcards.size)
device = configure_torch(p.threads, p.device)
ds = token_separated_dataset(generator(p.seed, "trained_models.dataset", N=cfg["N"]),
                             cfg["vocab_size"], cfg["d"], cfg["n"], cfg["N"], cfg["n_classes"])
rng = generator(p.seed, "trained_models.heads", heads=heads, size=snakemake.wildcards.size)
with open(snakemake.log[0], "w") as log:
    res = memorize(ds, width=cfg["width"], heads=heads, head_size=size, epochs=cfg["epochs"],
                   lr=cfg["lr"], seed=torch_seed(rng), record_every=cfg["record_every"],
                   device=device, log=log, label=f"h={heads} s={size}")
write_table(pd.DataFrame([{
    "heads": heads, "head_size": size, "head_size_label": snakemake.wildcards.size,
    "N": ds.N, "n": ds.n, "d": ds.d, "width": cfg["width"], "epochs_budget": cfg["epochs"],
    "accuracy": res["accuracy"], "accuracy_hardmax": res["accuracy_hardmax"],
    "epochs_to_perfect": res["epochs_to_perfect"],
    "attention_parameters": res["model"].attention_parameters(), **run_info(device),
}]), snakemake.output[0])
