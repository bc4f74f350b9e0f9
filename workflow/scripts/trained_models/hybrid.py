"""Yun et al. 2020a, Sec. 5: one hybrid (k attention layers on top of an alternative) on one task."""

import pandas as pd

from expressivity.experiments.trained_models.papers import hybrid_rows
from expressivity.io import write_table
from expressivity.joblog import job_log

log = job_log(snakemake)
rows = hybrid_rows(**snakemake.wildcards, **snakemake.params, log=log)
write_table(pd.DataFrame(rows), snakemake.output[0])
