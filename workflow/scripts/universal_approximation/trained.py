"""Fang et al. 2022's blocks trained instead of fixed (random weights, Adam), with and without
softmax, under the trained-models protocol; the floor band measured in the same run. One job: the
cells first..last of L blocks (``trained_cells``)."""

import pandas as pd

from expressivity.experiments.universal_approximation.polynomial import trained_table
from expressivity.io import write_table
from expressivity.joblog import job_log
from expressivity.torch_runtime import configure_torch

log = job_log(snakemake)
configure_torch(threads=1)
wc = snakemake.wildcards
rows = trained_table(L=int(wc.L), first=int(wc.first), last=int(wc.last),
                     **dict(snakemake.params.items()), log=log)
write_table(pd.DataFrame(rows), snakemake.output[0])
log.info("%d rows", len(rows))
