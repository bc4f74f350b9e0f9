"""STAR's relay on the copying task: one width and length, several seeds."""

import pandas as pd

from expressivity.experiments.trained_models.papers import star_rows
from expressivity.io import write_table
from expressivity.joblog import job_log

log = job_log(snakemake)
rows = star_rows(**snakemake.wildcards, **snakemake.params, log=log)
write_table(pd.DataFrame(rows), snakemake.output[0])
