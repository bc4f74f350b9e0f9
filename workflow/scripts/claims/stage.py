"""Evaluate one stage's claims from its tables into results/claims/<stage>.csv, and the power
simulations of its statistical findings into results/claims/power/<stage>.csv."""

from pathlib import Path

from expressivity.claims import evaluate_stage
from expressivity.io import read_table, write_table
from expressivity.joblog import job_log

log = job_log(snakemake)
tables = {Path(p).stem: read_table(p) for p in snakemake.input.tables}
table, power = evaluate_stage(snakemake.params.stage, tables, snakemake.params.seed)
write_table(table, snakemake.output.claims)
write_table(power, snakemake.output.power)
for row in table.itertuples():
    why = f" ({row.reason})" if row.reason else ""
    log.info(f"{row.status:>13}{why}  {row.id}: measured {row.measured:.6g} {row.op} "
             f"{row.threshold:g}")
for row in power.itertuples():
    log.info(f"power {row.power:.3f} ({row.rejected}/{row.replicates})  {row.claim} against "
             f"{row.alternative}")
