"""Theorem 1: random one-layer attentions on the counterexample; the softmax memorizer under random
labellings."""

import pandas as pd

from expressivity.experiments.hardmax_vs_softmax.theorem1 import theorem1_tables
from expressivity.io import write_table
from expressivity.joblog import job_log

log = job_log(snakemake)
tables = theorem1_tables(**dict(snakemake.params.items()), log=log)
for name, rows in tables.items():
    write_table(pd.DataFrame(rows), snakemake.output[name])
log.info(f"{len(tables['search'])} draws")
