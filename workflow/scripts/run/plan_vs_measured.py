"""Predicted against measured wall time of every compute job of this run.

The prediction is what ``make plan`` prints and a cluster is asked for: each rule's ``runtime``
(minutes, from its stage's cost model), read from a dry run of a clean run of the same config. The
measurement is the job's ``benchmark:`` record. A point above the diagonal is a job that took longer
than planned: on a cluster it would have been killed at its wall-time limit.
"""

import sys
from pathlib import Path

import numpy as np
import pandas as pd

from expressivity.claims import STAGES
from expressivity.io import write_table
from expressivity.joblog import job_log
from expressivity.plotting import MARKERS, PALETTE, figure, save

log = job_log(snakemake)
sys.path.insert(0, str(Path(snakemake.scriptdir).parents[1]))  # workflow/, where plan.py is
from plan import dry_run, measured  # noqa: E402

jobs = dry_run(snakemake.params.config, cwd=Path.cwd())
rows = pd.DataFrame(measured(jobs, cwd=Path.cwd()),
                    columns=["rule", "stage", "wildcards", "predicted_s", "measured_s"])
rows["ratio"] = rows["measured_s"] / rows["predicted_s"]
write_table(rows, snakemake.output.table)
over = rows[rows["ratio"] > 1]
log.info("%d compute jobs: measured / planned time median %.3g, max %.3g; %d over their plan",
         len(rows), rows["ratio"].median(), rows["ratio"].max(), len(over))
for job in over.itertuples():
    log.warning("%s %s took %.0f s, planned %.0f s", job.rule, job.wildcards, job.measured_s,
                job.predicted_s)

with figure(figsize=(6.0, 4.6)) as (fig, ax):
    low = max(min(rows["measured_s"].min(), rows["predicted_s"].min()) / 2, 1e-2)
    high = max(rows["measured_s"].max(), rows["predicted_s"].max()) * 2
    line = np.array([low, high])
    ax.plot(line, line, color="0.3", lw=1, label="measured = planned")
    ax.fill_between(line, line, high, color=PALETTE[3], alpha=0.08, lw=0,
                    label="over the plan (killed on a cluster)")
    for i, stage in enumerate(STAGES):
        part = rows[rows["stage"] == stage]
        if len(part):
            ax.scatter(part["predicted_s"], part["measured_s"], s=18, marker=MARKERS[i],
                       color=PALETTE[i], label=f"{stage} ({len(part)} jobs)", zorder=3)
    ax.set(xscale="log", yscale="log", xlim=(low, high), ylim=(low, high),
           xlabel="planned wall time (s): the rule's runtime resource",
           ylabel="measured wall time (s): benchmark record",
           title=f"{len(over)} of {len(rows)} compute jobs ran over their plan")
    ax.legend(fontsize=7, loc="upper left")
    save(fig, snakemake.output.png, snakemake.output.pdf)
