"""Fang et al. 2022 claim: noisy regression without an approximation/sample trade-off, against a
tanh MLP and a trained one-head transformer on the same draws."""

import pandas as pd

from expressivity.experiments.universal_approximation.polynomial import regression_table
from expressivity.io import write_table
from expressivity.joblog import job_log
from expressivity.torch_runtime import configure_torch

log = job_log(snakemake)
configure_torch(threads=1)
rows = regression_table(**dict(snakemake.params.items()), log=log)
write_table(pd.DataFrame(rows), snakemake.output[0])
log.info("%d rows", len(rows))
