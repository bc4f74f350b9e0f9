"""Yun et al. 2020b copying task: one sparse pattern at one depth, several seeds."""

import pandas as pd

from expressivity.experiments.trained_models.encoders import copy_rows
from expressivity.io import write_table
from expressivity.joblog import job_log

log = job_log(snakemake)
rows = copy_rows(**snakemake.wildcards, **snakemake.params, log=log)
write_table(pd.DataFrame(rows), snakemake.output[0])
