"""Growth of d_min in n: out-of-sample model comparison, ratio to the exact-rule reference,
local log-log slopes and the crossover n* (from the sweep and the mass-calibrated sweep)."""

from expressivity.experiments.sparse_approximation.models import models_tables
from expressivity.io import read_table, write_table
from expressivity.joblog import job_log

log = job_log(snakemake)
tables = models_tables(sweep=read_table(snakemake.input.sweep),
                       mass=read_table(snakemake.input.mass),
                       reference=read_table(snakemake.input.reference), **snakemake.params,
                       log=log)
for name, table in tables.items():
    write_table(table, snakemake.output[name])
