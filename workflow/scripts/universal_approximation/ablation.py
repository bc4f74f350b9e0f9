"""Fang et al. 2022's adaptations ablated: the staircase of every block variant, with the float64
floor of the read-out measured in the same run."""

import pandas as pd

from expressivity.experiments.universal_approximation.polynomial import ablation_table
from expressivity.io import write_table
from expressivity.joblog import job_log

log = job_log(snakemake)
rows = ablation_table(**dict(snakemake.params.items()))
write_table(pd.DataFrame(rows), snakemake.output[0])
log.info("%d rows", len(rows))
