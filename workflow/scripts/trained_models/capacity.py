"""Kajitsuka & Sato 2024's memorization at CoNLL shape: one arm at one N and a, every width."""

import pandas as pd

from expressivity.experiments.trained_models.capacity import capacity_rows
from expressivity.io import write_table
from expressivity.joblog import job_log

log = job_log(snakemake)
rows = capacity_rows(**snakemake.wildcards, **snakemake.params, log=log)
write_table(pd.DataFrame(rows), snakemake.output[0])
