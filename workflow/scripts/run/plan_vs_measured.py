"""Predicted against measured time of every compute job of this run.

The prediction is what ``make plan`` prints: each job's seconds on one core from its stage's cost
model (the resource ``cpu_ms``), read from a dry run of a clean run of the same config, divided by
this machine's speed against the machine the models were fitted on (``machine_speed``). The
measurement is the job's ``benchmark:`` record: its CPU time per thread (its time on an idle core,
whatever else the machine ran; the wall time is in the table too). The band is a factor of 2 either
way; a cluster is asked for more than the prediction (``runtime``: half again, plus a minute; for a
training, half again its whole budget).
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
from machine_speed import speed  # noqa: E402
from plan import agreement, busy_seconds, dry_run, measured  # noqa: E402

here = speed()
log.info("this machine runs %.2f times as fast as the machine the cost models were fitted on", here)
jobs = dry_run(snakemake.params.config, cwd=Path.cwd())
records = measured(jobs, cwd=Path.cwd(), speed=here)
rows = pd.DataFrame([{**r, "measured_s": busy_seconds(r)} for r in records],
                    columns=["rule", "stage", "wildcards", "threads", "predicted_s", "measured_s",
                             "wall_s", "cpu_s", "mean_load", "max_rss_mb", "speed"])
rows["ratio"] = rows["measured_s"] / rows["predicted_s"]
write_table(rows, snakemake.output.table)
over = rows[rows["ratio"] > 2]
if len(rows):
    median, total = agreement(records, busy_seconds)
    log.info("%d compute jobs: measured / predicted time median %.3g, total %.3g, max %.3g; %d "
             "over twice their prediction", len(rows), median, total, rows["ratio"].max(), len(over))
for job in over.itertuples():
    log.warning("%s %s took %.1f s on a core, predicted %.1f s", job.rule, job.wildcards,
                job.measured_s, job.predicted_s)

with figure(figsize=(6.0, 4.6)) as (fig, ax):
    low = max(min(rows["measured_s"].min(), rows["predicted_s"].min()) / 2, 1e-2)
    high = max(rows["measured_s"].max(), rows["predicted_s"].max()) * 2
    line = np.array([low, high])
    ax.plot(line, line, color="0.3", lw=1, label="measured = predicted")
    ax.fill_between(line, line / 2, line * 2, color=PALETTE[2], alpha=0.1, lw=0,
                    label="within a factor of 2")
    for i, stage in enumerate(STAGES):
        part = rows[rows["stage"] == stage]
        if len(part):
            ax.scatter(part["predicted_s"], part["measured_s"], s=18, marker=MARKERS[i],
                       color=PALETTE[i], label=f"{stage} ({len(part)} jobs)", zorder=3)
    ax.set(xscale="log", yscale="log", xlim=(low, high), ylim=(low, high),
           xlabel=f"predicted seconds on one core (cost model / speed {here:.2f})",
           ylabel="measured seconds on a core (CPU time per thread)",
           title=f"{len(over)} of {len(rows)} compute jobs over twice their prediction")
    ax.legend(fontsize=7, loc="upper left")
    save(fig, snakemake.output.png, snakemake.output.pdf)
