"""d_min against eps_ratio, eps_zero, R and the form of the construction, at one (n, k)."""

import pandas as pd

from expressivity.io import write_table
from expressivity.rng import generator
from expressivity.sparse_approximation import make_target, trial_record

cfg, vary, seed = snakemake.params.cfg, snakemake.params.vary, snakemake.params.seed
base = {"eps_ratio": cfg["eps_ratio"], "eps_zero": cfg["eps_zero"], "R": cfg["R"], "form": "row"}
settings = [(key, {**base, key: value}) for key in ("eps_ratio", "eps_zero", "R")
            for value in vary[key]]
settings += [("form", {**base, "form": form}) for form in vary["forms"]]
rows = []
with open(snakemake.log[0], "w") as log:
    for varied, s in settings:
        for trial in range(vary["trials"]):
            rng = generator(seed, "sparse_approximation.vary", varied=varied, value=s[varied],
                            trial=trial)
            target = make_target(cfg["target"], vary["n"], vary["k"], s["R"], rng)
            row, _ = trial_record(target, rng, R=s["R"], eps_ratio=s["eps_ratio"],
                                  eps_zero=s["eps_zero"], delta=cfg["delta"],
                                  search=cfg["search"], form=s["form"])
            rows.append({"varied": varied, "kind": cfg["target"], "trial": trial, **row})
            log.write(f"{varied}={s[varied]} trial={trial}: d_min={row['d_min']}\n")
write_table(pd.DataFrame(rows), snakemake.output[0])
