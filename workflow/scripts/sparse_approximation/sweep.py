"""d_min of every trial at one (n, k) (the one-pass search; see expressivity.one_pass_search)."""

from expressivity.experiments.sparse_approximation import sweep_table
from expressivity.io import write_table
from expressivity.joblog import job_log

log = job_log(snakemake)
table = sweep_table(n=int(snakemake.wildcards.n), k=int(snakemake.wildcards.k),
                    **snakemake.params, progress=log.info)
write_table(table, snakemake.output[0])
