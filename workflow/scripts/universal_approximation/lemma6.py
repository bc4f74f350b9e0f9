"""Lemma 6 (Yun et al. 2020a) on every grid input of one (1/delta, d, n): summary + softmax curve."""

import pandas as pd

from expressivity.contextual_shift import lemma6_check
from expressivity.io import write_table

cfg = snakemake.params.cfg
m, d, n = (int(snakemake.wildcards[k]) for k in ("m", "d", "n"))
betas = [cfg["beta_min"] * 2**k for k in range(64) if cfg["beta_min"] * 2**k <= cfg["beta_max"]]
row, curve = lemma6_check(m, d, n, snakemake.params.budget, betas, cfg["softmax_tol"],
                          cfg["softmax_subset"])
write_table(pd.DataFrame([row]), snakemake.output.summary)
cols = ["inv_delta", "d", "n", "beta", "beta_real", "rel_error_subset", "rel_error_full"]
write_table(pd.DataFrame(curve, columns=cols), snakemake.output.softmax)
