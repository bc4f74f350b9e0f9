"""Theorem 1: random one-layer attentions on the counterexample, hardmax versus softmax."""

import numpy as np
import pandas as pd

from expressivity.counterexamples import (
    THEOREM1_LABELS,
    THEOREM1_TOKENS,
    explicit_memorizer,
    random_heads,
    shared_token_gap,
    shared_tokens_equal_exactly,
    theorem1_sequences,
)
from expressivity.io import write_table
from expressivity.rng import generator

cfg, seed = snakemake.params.cfg, snakemake.params.seed
rows = []
with open(snakemake.log[0], "w") as log:
    for draw in range(cfg["n_draws"]):
        rng = generator(seed, "hardmax_vs_softmax.theorem1", draw=draw)
        e = rng.standard_normal(cfg["d"])
        e /= np.linalg.norm(e)
        h = int(rng.integers(1, cfg["heads_max"] + 1))
        s = int(rng.integers(1, cfg["head_size_max"] + 1))
        scale = float(rng.choice(cfg["weight_scales"]))
        heads = random_heads(rng, cfg["d"], h, s, scale)
        exact = shared_tokens_equal_exactly(heads, e) if draw < cfg["exact_draws"] else None
        rows.append({
            "draw": draw, "heads": h, "head_size": s, "weight_scale": scale,
            "gap_hardmax": shared_token_gap(heads, e, "hardmax", tie_tol=cfg["tie_tol"]),
            "gap_softmax": shared_token_gap(heads, e, "softmax"),
            "hardmax_equal_exact": exact,
        })
        if (draw + 1) % 500 == 0:
            log.write(f"{draw + 1}/{cfg['n_draws']} draws\n")
write_table(pd.DataFrame(rows), snakemake.output.search)

e = np.eye(cfg["d"])[0]
model = explicit_memorizer(e, lam=cfg["lam"])
memo = []
for seq, (X, labels) in enumerate(zip(theorem1_sequences(e), THEOREM1_LABELS, strict=True)):
    out = model(X)
    for k, (t, y, f, o) in enumerate(zip(THEOREM1_TOKENS[seq], labels, model.features(X), out,
                                         strict=True)):
        memo.append({"sequence": seq + 1, "position": k, "token": t, "label": int(y),
                     "feature": float(f), "output": float(o), "predicted": int(np.rint(o)),
                     "n_parameters": model.n_parameters})
write_table(pd.DataFrame(memo), snakemake.output.memorizer)
