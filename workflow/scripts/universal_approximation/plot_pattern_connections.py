"""Figure: connections per layer of each sparse pattern against n."""

import numpy as np

from expressivity.io import read_table
from expressivity.joblog import job_log
from expressivity.plotting import MARKERS, PALETTE, figure, save

job_log(snakemake)
df = read_table(snakemake.input.patterns)
with figure() as (fig, ax):
    for i, (name, part) in enumerate(df.groupby("pattern", sort=False)):
        ns, c = part["n"].to_numpy(), part["connections_max"].to_numpy()
        slope = np.polyfit(np.log(ns), np.log(c), 1)[0]
        ax.plot(ns, c, marker=MARKERS[i % len(MARKERS)], ms=3, color=PALETTE[i % len(PALETTE)],
                label=f"{name} (slope {slope:.2f})")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("sequence length n")
    ax.set_ylabel("connections per layer (max over the cycle)")
    ax.set_title("Sparse patterns: O(n) connections")
    ax.legend(fontsize=6)
    save(fig, snakemake.output.png, snakemake.output.pdf)
