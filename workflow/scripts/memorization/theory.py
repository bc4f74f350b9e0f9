"""Regime (i): the rank-1 layer at the theoretical lam, in arbitrary precision, for one (d, |V|)."""

import pandas as pd

from expressivity.contextual_mapping import theory_row
from expressivity.io import write_table
from expressivity.rng import generator

p = snakemake.params
d, V = int(snakemake.wildcards.d), int(snakemake.wildcards.V)
rows = []
for n in p.cfg["n"]:
    rng = generator(p.seed, "memorization.theory", d=d, V=V, n=n)
    rows.append(theory_row(rng, V, d, n, p.cfg["N_max"], p.common["n_classes"],
                           p.common["r_min"], p.common["r_max"], p.cfg["eps"],
                           p.cfg["max_digits"], margin=p.common["margin"]))
write_table(pd.DataFrame(rows), snakemake.output[0])
with open(snakemake.log[0], "w") as log:
    for r in rows:
        log.write(f"d={d} V={V} n={r['n']} N={r['N']}: lam_theory={r['lam_theory']:.6g} "
                  f"digits={r['digits_theory']} computed={r['computed']} "
                  f"log10 delta={r['log10_delta']}\n")
