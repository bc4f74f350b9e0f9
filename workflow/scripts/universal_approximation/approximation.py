"""End-to-end L^p errors against delta for one target and series (d, n) (Yun et al.; Kajitsuka &
Sato)."""

import pandas as pd

from expressivity.experiments.universal_approximation.approximation import approximation_table
from expressivity.io import write_table
from expressivity.joblog import job_log

log = job_log(snakemake)
rows = approximation_table(target=snakemake.wildcards.target, d=int(snakemake.wildcards.d),
                           n=int(snakemake.wildcards.n), **dict(snakemake.params.items()),
                           log=log)
write_table(pd.DataFrame(rows), snakemake.output[0])
log.info("%d rows", len(rows))
