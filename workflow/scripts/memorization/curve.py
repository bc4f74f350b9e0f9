"""Figure data: delta against lam on a random and an adversarial dataset (uniform averaging at
lam = 0, softmax on a zoom and a log grid to lam_theory, hardmax), float64 versus arbitrary
precision."""

import pandas as pd

from expressivity.experiments.memorization.curve import curve_rows
from expressivity.io import write_table
from expressivity.joblog import job_log

log = job_log(snakemake)
rows = curve_rows(log=log, **dict(snakemake.params.items()))
write_table(pd.DataFrame(rows), snakemake.output[0])
log.info(f"{len(rows)} rows")
