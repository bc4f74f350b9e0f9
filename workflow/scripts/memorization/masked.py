"""The causal (masked) rank-1 layer: certified prefix separation on random ordered sequences and
the exact collisions of causal uniform averaging and hardmax on prefix segment pairs."""

import pandas as pd

from expressivity.experiments.memorization.masked import masked_rows
from expressivity.io import write_table
from expressivity.joblog import job_log

log = job_log(snakemake)
rows = masked_rows(log=log, **dict(snakemake.params.items()))
write_table(pd.DataFrame(rows), snakemake.output[0])
log.info(f"{len(rows)} datasets")
