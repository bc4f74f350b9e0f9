"""Boltzmann operator properties on one chunk of the random vectors."""

import pandas as pd

from expressivity.experiments.hardmax_vs_softmax.boltzmann import check_chunk
from expressivity.io import write_table
from expressivity.joblog import job_log

log = job_log(snakemake)
chunk = int(snakemake.wildcards.chunk)
rows = check_chunk(chunk=chunk, **dict(snakemake.params.items()), log=log)
write_table(pd.DataFrame(rows), snakemake.output[0])
log.info(f"chunk {chunk}: checked vectors {rows[0]['vector']}..{rows[-1]['vector']}")
