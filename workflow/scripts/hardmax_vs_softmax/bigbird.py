"""BigBird Proposition 1: furthest vectors with one dense attention layer, at one n, on the trials
first..last."""

import pandas as pd

from expressivity.experiments.hardmax_vs_softmax.bigbird import bigbird_table
from expressivity.io import write_table
from expressivity.joblog import job_log

log = job_log(snakemake)
wc = snakemake.wildcards
first, last = int(wc.first), int(wc.last)
rows = bigbird_table(n=int(wc.n), first=first, trials=last - first + 1,
                     **dict(snakemake.params.items()), log=log)
write_table(pd.DataFrame(rows), snakemake.output[0])
log.info(f"{len(rows)} rows")
