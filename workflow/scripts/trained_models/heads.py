"""Ablation: heads h and head size s of the tied attention on the heads/rank dataset."""

import pandas as pd

from expressivity.experiments.trained_models.memorization import heads_rows
from expressivity.io import write_table
from expressivity.joblog import job_log

log = job_log(snakemake)
rows = heads_rows(**snakemake.wildcards, **snakemake.params, log=log)
write_table(pd.DataFrame(rows), snakemake.output[0])
