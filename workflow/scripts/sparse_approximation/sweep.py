"""d_min of the trials first..last at one (n, k) (the one-pass search; expressivity.one_pass_search)."""

from expressivity.experiments.sparse_approximation.searches import sweep_table
from expressivity.io import write_table
from expressivity.joblog import job_log

log = job_log(snakemake)
wc = snakemake.wildcards
first, last = int(wc.first), int(wc.last)
table = sweep_table(n=int(wc.n), k=int(wc.k), first=first, trials=last - first + 1,
                    **snakemake.params, log=log)
write_table(table, snakemake.output[0])
