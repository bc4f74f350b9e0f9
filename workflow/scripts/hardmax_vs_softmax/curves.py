"""Curves boltz(beta a)/beta against beta for three example vectors (figure data)."""

import pandas as pd

from expressivity.experiments.hardmax_vs_softmax.boltzmann import limit_curves
from expressivity.io import write_table
from expressivity.joblog import job_log

log = job_log(snakemake)
rows = limit_curves(**dict(snakemake.params.items()))
write_table(pd.DataFrame(rows), snakemake.output[0])
log.info(f"{len(rows)} points")
