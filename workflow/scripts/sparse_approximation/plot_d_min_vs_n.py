"""Figure: d_min against n (log2 axis) with the fit a + b ln n and the JL bound."""

import numpy as np

from expressivity.claims.sparse_approximation import log_fit
from expressivity.io import read_table
from expressivity.joblog import job_log
from expressivity.plotting import MARKERS, PALETTE, figure, save

log = job_log(snakemake)
df = read_table(snakemake.input.sweep, ["n", "k", "d_min", "d_jl"])
ks = sorted(df["k"].unique())
with figure() as (fig, ax):
    for c, (k, colour) in enumerate(zip(ks, PALETTE, strict=False)):
        sub = df[df["k"] == k]
        med = sub.groupby("n")["d_min"].median()
        ax.scatter(sub["n"], sub["d_min"], s=10, color=colour, alpha=0.4, marker=MARKERS[c])
        ax.plot(med.index, med.values, MARKERS[c], color=colour, label=f"k = {k}: median d_min")
        if med.notna().all() and len(med) >= 2:
            a, b, r2 = log_fit(med.index, med.values)
            x = np.geomspace(med.index.min(), med.index.max(), 100)
            ax.plot(x, a + b * np.log(x), "-", color=colour, lw=1,
                    label=f"fit {a:.0f} + {b:.0f} ln n (R² = {r2:.3f})")
        jl = sub.groupby("n")["d_jl"].first()
        ax.plot(jl.index, jl.values, "--", color=colour, lw=1, label=f"JL bound (*), k = {k}")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("sequence length n")
    ax.set_ylabel("smallest working d")
    ax.set_title("Fixed W_Q, W_K: d_min grows like log n")
    ax.legend(fontsize=6, ncol=2)
    save(fig, snakemake.output.png, snakemake.output.pdf)
