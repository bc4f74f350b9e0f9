"""Yun et al. 2020b's sparsity sweep: one task, pattern, configuration and level."""

import pandas as pd

from expressivity.experiments.trained_models.papers import sparsity_rows
from expressivity.io import write_table
from expressivity.joblog import job_log

log = job_log(snakemake)
rows = sparsity_rows(**snakemake.wildcards, **snakemake.params, log=log)
write_table(pd.DataFrame(rows), snakemake.output[0])
