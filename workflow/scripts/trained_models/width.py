"""Smallest FFN width that training fits to 100 % at one N, next to the construction's count."""

import pandas as pd

from expressivity.experiments.trained_models.width import width_rows
from expressivity.io import write_table
from expressivity.joblog import job_log

log = job_log(snakemake)
rows = width_rows(**snakemake.wildcards, **snakemake.params, log=log)
write_table(pd.DataFrame(rows), snakemake.output[0])
