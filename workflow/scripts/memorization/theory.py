"""Regime (i): the rank-1 layer at the theoretical lam, in arbitrary precision, for one (d, |V|)."""

import pandas as pd

from expressivity.experiments.memorization.regimes import theory_rows
from expressivity.io import write_table
from expressivity.joblog import job_log

log = job_log(snakemake)
d, V = int(snakemake.wildcards.d), int(snakemake.wildcards.V)
rows = theory_rows(d=d, V=V, log=log, **dict(snakemake.params.items()))
write_table(pd.DataFrame(rows), snakemake.output[0])
for r in rows:
    log.info(f"d={d} V={V} n={r['n']} N={r['N']}: lam_theory={r['lam_theory']:.6g} "
             f"digits={r['digits_theory']} computed={r['computed']} "
             f"log10 delta={r['log10_delta']}")
