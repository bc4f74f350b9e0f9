"""Contrast: the same rank-1 layer with hardmax on the Theorem 1 pattern (exact arithmetic)."""

import pandas as pd

from expressivity.experiments.memorization import hardmax_contrast
from expressivity.io import write_table
from expressivity.joblog import job_log

log = job_log(snakemake)
rows = hardmax_contrast(**dict(snakemake.params.items()))
write_table(pd.DataFrame(rows), snakemake.output[0])
log.info(f"{len(rows)} draws")
