"""Gather the stage claims tables into results/claims.csv: one row per registered claim."""

import pandas as pd

from expressivity.claims import registry, summary_line
from expressivity.io import read_table, write_table
from expressivity.joblog import job_log

log = job_log(snakemake)
table = pd.concat([read_table(p, ["id", "status"]) for p in snakemake.input.stages], ignore_index=True)
registered = [claim.id for claim in registry()]
if list(table["id"]) != registered:
    missing = sorted(set(registered) - set(table["id"]))
    extra = sorted(set(table["id"]) - set(registered))
    raise ValueError(f"the stage claims tables hold {len(table)} rows for {len(registered)} "
                     f"registered claims (missing: {missing}; not registered or repeated: {extra})")
write_table(table, snakemake.output[0])
log.info(summary_line(table))
