"""Fang et al. 2022 claim: max relative error against (blocks, degree) for every dimension d."""

import pandas as pd

from expressivity.experiments.universal_approximation.polynomial import staircase_table
from expressivity.io import write_table
from expressivity.joblog import job_log

log = job_log(snakemake)
rows = staircase_table(**dict(snakemake.params.items()))
write_table(pd.DataFrame(rows), snakemake.output[0])
log.info("%d rows", len(rows))
