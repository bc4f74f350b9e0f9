"""The sparse selective-shift contextual mapping of every pattern, exhaustively on small grids."""

import pandas as pd

from expressivity.experiments.universal_approximation.patterns import sparse_mapping_table
from expressivity.io import write_table
from expressivity.joblog import job_log

log = job_log(snakemake)
rows = sparse_mapping_table(**dict(snakemake.params.items()), log=log)
write_table(pd.DataFrame(rows), snakemake.output[0])
log.info("%d rows", len(rows))
