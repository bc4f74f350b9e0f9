"""One fixed module (W_Q, W_K at one d) for many targets, and the heatmap example at its d_min."""

import numpy as np
import pandas as pd

from expressivity.attention import softmax
from expressivity.io import write_table
from expressivity.rng import generator
from expressivity.sparse_approximation import (
    KINDS,
    Construction,
    check_logits,
    coupled_factors,
    fingerprint,
    fixed_weights,
    las_vegas,
    logit_values,
    make_target,
    trial_record,
)

cfg, seed, mod = snakemake.params.cfg, snakemake.params.seed, snakemake.params.module
eps_r, eps_z, R = cfg["eps_ratio"], cfg["eps_zero"], cfg["R"]
n, d = mod["n"], mod["d"]
reference = fingerprint(*fixed_weights(d))
rows = []
with open(snakemake.log[0], "w") as log:
    for kind in KINDS:
        for k in snakemake.params.k:
            for trial in range(mod["trials"]):
                rng = generator(seed, "sparse_approximation.module", kind=kind, k=k, trial=trial)
                target = make_target(kind, n, k, R, rng)
                res = las_vegas(target, d, eps_r, eps_z, rng, mod["max_rounds"])
                row = {"kind": kind, "n": n, "k": k, "trial": trial, "d": d,
                       "rounds": res.rounds, "found": res.ok, "weights_fingerprint": "",
                       "same_weights": False, "input_fingerprint": "",
                       "min_slack_via_weights": np.nan, "ok_via_weights": False,
                       "precision": "float64"}
                if res.ok:
                    c = res.construction
                    chk = check_logits(target, c.logits(), eps_r, eps_z)  # X W_Q (X W_K)^T / sqrt d
                    fp = fingerprint(*c.weights)
                    row.update(weights_fingerprint=fp, same_weights=fp == reference,
                               input_fingerprint=fingerprint(c.X),
                               min_slack_via_weights=float(chk.slack.min()), ok_via_weights=chk.ok)
                rows.append(row)
                log.write(f"{kind} k={k} trial={trial}: rounds={res.rounds} ok={row['ok_via_weights']}\n")
write_table(pd.DataFrame(rows), snakemake.output.module)

# heatmap example: A, row-normalised exp(B) and the attention of the fixed module at d_min
k = mod["example_k"]
rng = generator(seed, "sparse_approximation.example", n=n, k=k)
target = make_target(cfg["target"], n, k, R, rng)
state = rng.bit_generator.state
row, res = trial_record(target, rng, R=R, eps_ratio=eps_r, eps_zero=eps_z, delta=cfg["delta"],
                        search=cfg["search"])
d_min = int(row["d_min"])
rng.bit_generator.state = state  # the same G prefix as the search
B = logit_values(target, eps_r, eps_z)
QT, KT = coupled_factors(target, B, rng, d_min)
logits = Construction(QT, KT, d_min, "row").logits()
ok = check_logits(target, logits, eps_r, eps_z).ok
A = target.to_dense()
dense_B = np.zeros_like(A)
dense_B[np.arange(n)[:, None], target.cols] = B
i, j = np.indices(A.shape)
write_table(pd.DataFrame({
    "i": i.ravel(), "j": j.ravel(), "A": A.ravel(),
    "expB_rownorm": softmax(dense_B).ravel(), "attention": softmax(logits).ravel(),
    "d": d_min, "k": k, "ok": ok, "precision": "float64",
}), snakemake.output.example)
