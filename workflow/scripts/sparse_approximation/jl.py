"""The construction at d = the JL bound (*) on the sweep's targets (Las Vegas rounds recorded).

The bound is taken with failure probability delta / (number of trials), so that by the union bound
all trials succeed at the first draw with probability >= 1 - delta.
"""

import pandas as pd

from expressivity.io import write_table
from expressivity.random_projection import jl_dimension
from expressivity.rng import generator
from expressivity.sparse_approximation import las_vegas, make_target

cfg, seed, p = snakemake.params.cfg, snakemake.params.seed, snakemake.params
checks = [(n, k) for k in p.k for n in p.n]
delta_each = cfg["delta"] / (len(checks) * p.trials)
rows = []
with open(snakemake.log[0], "w") as log:
    for n, k in checks:
        d = jl_dimension(n, k, cfg["R"], cfg["eps_ratio"], cfg["eps_zero"], delta_each)
        for trial in range(p.trials):
            target = make_target(cfg["target"], n, k, cfg["R"],
                                 generator(seed, "sparse_approximation.sweep", n=n, k=k,
                                           trial=trial))
            rng = generator(seed, "sparse_approximation.jl", n=n, k=k, trial=trial)
            res = las_vegas(target, d, cfg["eps_ratio"], cfg["eps_zero"], rng, p.max_rounds,
                            build=False)
            rows.append({"n": n, "k": k, "trial": trial, "d": d, "delta_each": delta_each,
                         "ok": res.ok, "rounds": res.rounds, "first_draw_ok": res.ok and
                         res.rounds == 1, "min_slack": res.min_slack, "precision": "float64"})
            log.write(f"n={n} k={k} trial={trial} d={d}: rounds={res.rounds} "
                      f"min slack={res.min_slack:.4f}\n")
write_table(pd.DataFrame(rows), snakemake.output[0])
