"""Yun et al. 2020b copying task: one sparse pattern at one depth."""

import pandas as pd

from expressivity.io import write_table
from expressivity.rng import generator
from expressivity.sparse_patterns import pattern_masks
from expressivity.training import configure_torch, run_info, train_encoder

p = snakemake.params
cfg = p.cfg
pattern, depth = snakemake.wildcards.pattern, int(snakemake.wildcards.depth)
device = configure_torch(p.threads, p.device)
cycle = pattern_masks(pattern, cfg["n"], rng=generator(p.seed, "trained_models.pattern",
                                                        pattern=pattern))
masks = [cycle[layer % len(cycle)] for layer in range(depth)]
rng = generator(p.seed, "trained_models.copy", pattern=pattern, depth=depth)
with open(snakemake.log[0], "w") as log:
    res = train_encoder(rng, task="copy", n=cfg["n"], vocab=cfg["vocab"],
                        mixers=["attention"] * depth, masks=masks, d_model=cfg["d_model"],
                        heads=cfg["heads"], steps=cfg["steps"], batch=cfg["batch"],
                        lr=cfg["lr"], eval_size=cfg["eval_size"],
                        record_every=cfg["record_every"], device=device, log=log,
                        label=f"{pattern} L={depth}")
write_table(pd.DataFrame([{
    "pattern": pattern, "depth": depth, "n": cfg["n"], "vocab": cfg["vocab"],
    "cycle_length": len(cycle), "connections_max": max(int(m.sum()) for m in cycle),
    "accuracy": res["accuracy"], "steps": cfg["steps"], "parameters": res["parameters"],
    **run_info(device),
}]), snakemake.output[0])
