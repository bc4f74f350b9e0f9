"""Figure: the rank-1 layer on the Theorem 1 pattern, softmax (certified) versus hardmax (exact)."""

import numpy as np

from expressivity.io import read_table
from expressivity.joblog import job_log
from expressivity.plotting import PALETTE, figure, save

log = job_log(snakemake)
df = read_table(snakemake.input[0], ["d", "draw", "softmax_log10_delta", "hardmax_equal_exact"])
with figure() as (fig, ax):
    x = np.arange(len(df))
    ax.plot(x, df["softmax_log10_delta"], ls="none", marker="o", color=PALETTE[0],
            label="softmax at lam_star: certified log10 delta")
    floor = float(df["softmax_log10_delta"].min()) - 2
    eq = df["hardmax_equal_exact"].astype(bool).to_numpy()
    ax.plot(x[eq], np.full(eq.sum(), floor), ls="none", marker="x", color=PALETTE[3],
            label=f"hardmax: delta = 0 exactly ({eq.sum()} of {len(df)} draws; drawn at floor)")
    ax.set_xlabel("draw (grouped by d = " + ", ".join(str(d) for d in df["d"].unique()) + ")")
    ax.set_ylabel("log10 delta")
    ax.set_title("Theorem 1 pattern: same rank-1 layer, softmax separates, hardmax cannot",
                 fontsize=9)
    ax.legend(fontsize=8)
    save(fig, snakemake.output.png, snakemake.output.pdf)
