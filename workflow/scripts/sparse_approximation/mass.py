"""The mass-calibrated variant (eps_zero = eps / n) on the sweep's trials first..last at (n, k)."""

from expressivity.experiments.sparse_approximation.searches import mass_table
from expressivity.io import write_table
from expressivity.joblog import job_log

log = job_log(snakemake)
wc = snakemake.wildcards
first, last = int(wc.first), int(wc.last)
table = mass_table(n=int(wc.n), k=int(wc.k), first=first, trials=last - first + 1,
                   **snakemake.params, log=log)
write_table(table, snakemake.output[0])
