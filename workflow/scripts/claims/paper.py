"""Evaluate one paper's claims, across its stages, into results/papers/<paper>.csv: each claim
judged on its own stage's tables, as the stage's claims table judges it."""

from collections import defaultdict
from pathlib import Path

import pandas as pd

from expressivity.claims import paper_claims, paper_summary
from expressivity.io import read_table, write_table
from expressivity.joblog import job_log

log = job_log(snakemake)
tables = defaultdict(dict)  # {stage: {table name: table}}: two stages may use one table name
for path in map(Path, snakemake.input.tables):
    tables[path.parent.name][path.stem] = read_table(path)
claims = paper_claims(snakemake.params.paper)
table = pd.DataFrame([c.judge(tables[c.stage], snakemake.params.seed) for c in claims])
write_table(table, snakemake.output[0])
for row in table.itertuples():
    log.info(f"{row.status:>13}  {row.id}")
log.info(paper_summary(table, snakemake.params.paper))
