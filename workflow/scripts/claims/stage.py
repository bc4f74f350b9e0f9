"""Evaluate one stage's claims from its tables into results/claims/<stage>.csv."""

from pathlib import Path

from expressivity.claims import evaluate_stage
from expressivity.io import read_table, write_table
from expressivity.joblog import job_log

log = job_log(snakemake)
tables = {Path(p).stem: read_table(p) for p in snakemake.input.tables}
table = evaluate_stage(snakemake.params.stage, tables)
write_table(table, snakemake.output[0])
for row in table.itertuples():
    log.info(f"{row.status:>13}  {row.id}: measured {row.measured:.6g} {row.op} {row.threshold:g}")
