"""Yun et al. 2020a Sec. 5 at toy scale: one token-mixing model on the counting task."""

import pandas as pd

from expressivity.io import write_table
from expressivity.rng import generator
from expressivity.training import configure_torch, hybrid_mixers, run_info, train_encoder

p = snakemake.params
cfg = p.cfg
alternative, k = snakemake.wildcards.alternative, int(snakemake.wildcards.k)
device = configure_torch(p.threads, p.device)
mixers = hybrid_mixers(alternative, k, cfg["depth"])
rng = generator(p.seed, "trained_models.mixers", alternative=alternative, k=k)
with open(snakemake.log[0], "w") as log:
    res = train_encoder(rng, task="count", n=cfg["n"], vocab=cfg["vocab"], mixers=mixers,
                        d_model=cfg["d_model"], heads=cfg["heads"], kernel=cfg["kernel"],
                        steps=cfg["steps"], batch=cfg["batch"], lr=cfg["lr"],
                        eval_size=cfg["eval_size"], record_every=cfg["record_every"],
                        device=device, log=log, label="+".join(mixers))
write_table(pd.DataFrame([{
    "alternative": alternative, "attention_layers": k, "depth": cfg["depth"],
    "layers": "+".join(mixers), "task": "count", "accuracy": res["accuracy"],
    "steps": cfg["steps"], "parameters": res["parameters"], **run_info(device),
}]), snakemake.output[0])
