"""BigBird Proposition 1: furthest vectors with one dense attention layer, at one n."""

import math

import numpy as np
import pandas as pd

from expressivity.counterexamples import (
    furthest_reference,
    furthest_vector_attention,
    nearest_index,
    random_unit_vectors,
    sufficient_beta,
)
from expressivity.io import write_table
from expressivity.rng import generator

cfg, n = snakemake.params.cfg, int(snakemake.wildcards.n)
d = math.ceil(math.log2(n)) ** 2
rows = []
for trial in range(cfg["trials"]):
    rng = generator(snakemake.params.seed, "hardmax_vs_softmax.bigbird", n=n, trial=trial)
    U = random_unit_vectors(rng, n, d)
    truth = furthest_reference(U)
    beta_suff = sufficient_beta(U)
    hard = furthest_vector_attention(U, "hardmax")
    rows.append({"n": n, "d": d, "trial": trial, "sigma": "hardmax", "beta": math.inf,
                 "accuracy": float(np.mean(np.all(hard == U[truth], axis=1))),
                 "beta_sufficient": beta_suff, "at_or_above_sufficient": True})
    betas = np.append(np.logspace(math.log10(cfg["beta_min"]), math.log10(cfg["beta_max"]),
                                  cfg["n_betas"]), beta_suff)
    for beta in np.sort(betas[np.isfinite(betas)]):
        soft = furthest_vector_attention(U, "softmax", beta=beta)
        rows.append({"n": n, "d": d, "trial": trial, "sigma": "softmax", "beta": float(beta),
                     "accuracy": float(np.mean(nearest_index(soft, U) == truth)),
                     "beta_sufficient": beta_suff, "at_or_above_sufficient": bool(beta >= beta_suff)})
write_table(pd.DataFrame(rows), snakemake.output[0])
