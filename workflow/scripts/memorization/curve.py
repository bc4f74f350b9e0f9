"""Figure data: delta against lam from 0 to lam_theory, float64 versus arbitrary precision."""

import pandas as pd

from expressivity.experiments.memorization import curve_rows
from expressivity.io import write_table
from expressivity.joblog import job_log

log = job_log(snakemake)
rows = curve_rows(**dict(snakemake.params.items()))
write_table(pd.DataFrame(rows), snakemake.output[0])
log.info(f"{len(rows)} values of lam")
