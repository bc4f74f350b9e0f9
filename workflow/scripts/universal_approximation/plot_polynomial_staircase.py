"""Figure: fixed attention blocks: polynomial error against degree."""

import numpy as np

from expressivity.io import read_table
from expressivity.joblog import job_log
from expressivity.plotting import MARKERS, PALETTE, figure, save

job_log(snakemake)
df = read_table(snakemake.input.polynomial_staircase)
with figure() as (fig, ax):
    ds = sorted(df["d"].unique())
    for i, d in enumerate(ds):
        part = df[df["d"] == d]
        for L, sub in part.groupby("blocks"):
            ax.plot(sub["degree"] + 0.08 * (i - 1), np.maximum(sub["max_rel_error"], 1e-18),
                    marker=MARKERS[int(L) % len(MARKERS)], ms=4, lw=0.8,
                    color=PALETTE[int(L) % len(PALETTE)],
                    label=f"L = {L} blocks" if i == 0 else None)
    ax.axhline(1e-9, color="black", ls="--", lw=1)
    ax.axhline(1e-2, color="grey", ls=":", lw=1)
    ax.set_yscale("log")
    ax.set_xlabel(f"target degree (d = {', '.join(map(str, ds))} side by side)")
    ax.set_ylabel("max relative error")
    ax.set_title("Fixed attention blocks: exact up to degree L")
    ax.legend(fontsize=7)
    save(fig, snakemake.output.png, snakemake.output.pdf)
