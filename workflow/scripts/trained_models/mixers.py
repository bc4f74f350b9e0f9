"""Yun et al. 2020a Sec. 5 at toy scale: one token-mixing model on the counting task, several seeds."""

import pandas as pd

from expressivity.experiments.trained_models.encoders import mixers_rows
from expressivity.io import write_table
from expressivity.joblog import job_log

log = job_log(snakemake)
rows = mixers_rows(**snakemake.wildcards, **snakemake.params, log=log)
write_table(pd.DataFrame(rows), snakemake.output[0])
