"""Contrast: uniform averaging and hardmax (exact) against softmax (certified) on datasets with
equal power sums and shared extremes, where the first two provably fail."""

import pandas as pd

from expressivity.experiments.memorization.contrast import hardmax_contrast
from expressivity.io import write_table
from expressivity.joblog import job_log

log = job_log(snakemake)
rows = hardmax_contrast(log=log, **dict(snakemake.params.items()))
write_table(pd.DataFrame(rows), snakemake.output[0])
log.info(f"{len(rows)} draws")
