"""One Lemma 6 table: checked grids, plus a row per grid skipped for exceeding the budget."""

from expressivity.experiments.universal_approximation.lemma6 import lemma6_tables
from expressivity.io import read_table, write_table
from expressivity.joblog import job_log

log = job_log(snakemake)
summaries = [read_table(p) for p in snakemake.input.summaries]
# a grid where float64 is not exact has no softmax curve: its table is a header only
curves = [c for c in map(read_table, snakemake.input.curves) if len(c)]
summary, softmax = lemma6_tables(summaries, curves, **dict(snakemake.params.items()))
write_table(summary, snakemake.output.summary)
write_table(softmax, snakemake.output.softmax)
log.info("%d grids, %d softmax rows", len(summary), len(softmax))
