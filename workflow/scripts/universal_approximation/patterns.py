"""Assumption 1 (Yun et al. 2020b) and connections of every sparse pattern at every length n."""

import pandas as pd

from expressivity.experiments.universal_approximation.patterns import assumption_table
from expressivity.io import write_table
from expressivity.joblog import job_log

log = job_log(snakemake)
rows = assumption_table(**dict(snakemake.params.items()))
write_table(pd.DataFrame(rows), snakemake.output[0])
log.info("%d rows", len(rows))
