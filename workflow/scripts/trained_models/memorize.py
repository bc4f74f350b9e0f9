"""Kajitsuka & Sato Sec. 6 (reconstructed): one variant of the one-layer memorization experiment.

Variants: ``learned`` (tied rank-1 w learned), ``fixed`` (w fixed at the projection vector of the
construction, expressivity.contextual_mapping.draw_projection), ``no_attention`` (token-wise FFN).
"""

import numpy as np
import pandas as pd

from expressivity.contextual_mapping import draw_projection
from expressivity.datasets import token_separated_dataset
from expressivity.io import write_table
from expressivity.rng import generator
from expressivity.training import (
    configure_torch,
    construction_parameters,
    hardmax_ceiling,
    memorize,
    run_info,
    token_ceiling,
    torch_seed,
)

p = snakemake.params
cfg, variant = p.cfg, snakemake.wildcards.variant
device = configure_torch(p.threads, p.device)
ds = token_separated_dataset(generator(p.seed, "trained_models.dataset", N=cfg["N"]),
                             cfg["vocab_size"], cfg["d"], cfg["n"], cfg["N"], cfg["n_classes"])
rng = generator(p.seed, "trained_models.memorize", variant=variant)
w_fixed, heads = None, 1
if variant == "fixed":
    v, _, _ = draw_projection(rng, ds.vocab)
    w_fixed = v.reshape(1, ds.d, 1)
elif variant == "no_attention":
    heads = 0
with open(snakemake.log[0], "w") as log:
    res = memorize(ds, width=cfg["width"], heads=heads, head_size=1, w_fixed=w_fixed,
                   epochs=cfg["epochs"], lr=cfg["lr"], seed=torch_seed(rng),
                   record_every=cfg["record_every"], device=device, log=log, label=variant)
model = res["model"]
w = (model.attention.w.detach().cpu().numpy()[0, :, 0] if heads else np.zeros(ds.d))
construction = construction_parameters(ds.N, ds.n, ds.d)
curve = pd.DataFrame(res["curve"])
curve.insert(0, "variant", variant)
write_table(curve, snakemake.output.curve)
write_table(pd.DataFrame([{
    "variant": variant, "N": ds.N, "n": ds.n, "d": ds.d, "vocab_size": ds.vocab_size,
    "n_classes": int(ds.labels.max()) + 1, "width": cfg["width"], "epochs_budget": cfg["epochs"],
    "lr": cfg["lr"], "accuracy": res["accuracy"], "accuracy_hardmax": res["accuracy_hardmax"],
    "epochs_to_perfect": res["epochs_to_perfect"],
    "hardmax_ceiling": hardmax_ceiling(ds, w) if heads else float("nan"),
    "token_ceiling": token_ceiling(ds),
    "temperature": float(model.attention.log_lam.exp()[0]) if heads else float("nan"),
    "ffn_parameters": model.ffn_parameters(),
    "attention_parameters": model.attention_parameters(),
    "construction_parameters": construction["total"],
    **run_info(device),
}]), snakemake.output.summary)
