"""Figure: d_min against eps_ratio, eps_zero, R and the form, with the JL-shaped prediction."""

import numpy as np
from matplotlib.ticker import NullFormatter

from expressivity.io import read_table
from expressivity.joblog import job_log
from expressivity.plotting import PALETTE, figure, save

log = job_log(snakemake)
df = read_table(snakemake.input.vary, ["varied", "eps_ratio", "eps_zero", "R", "form", "d_min",
                                       "d_jl"])
panels = [p for p in ("eps_ratio", "eps_zero", "R", "form") if p in set(df["varied"])]
with figure(1, len(panels), figsize=(3.2 * len(panels), 3.4), squeeze=False) as (fig, axes):
    for ax, p in zip(axes[0], panels, strict=True):
        sub = df[df["varied"] == p]
        med = sub.groupby(p)[["d_min", "d_jl"]].median()
        if p == "form":
            x = np.arange(len(med))
            ax.bar(x, med["d_min"], color=PALETTE[0])
            ax.set_xticks(x, [str(v) for v in med.index])
            ax.set_xlabel("form of the construction")
        else:
            ax.scatter(sub[p], sub["d_min"], s=10, color=PALETTE[0], alpha=0.5, label="trials")
            ax.plot(med.index, med["d_min"], "o-", color=PALETTE[0], label="median d_min")
            # the bound's shape, scaled to the median at the default setting
            scale = (med["d_min"] / med["d_jl"]).median()
            ax.plot(med.index, med["d_jl"] * scale, "--", color=PALETTE[1],
                    label=f"JL bound x {scale:.3f}")
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.xaxis.set_minor_formatter(NullFormatter())
            ax.yaxis.set_minor_formatter(NullFormatter())
            ax.set_xticks(med.index, [f"{v:g}" for v in med.index])
            ax.set_xlabel(p)
            ax.legend(fontsize=7)
        ax.set_ylabel("smallest working d")
    n, k = int(df["n"].iloc[0]), int(df["k"].iloc[0])
    fig.suptitle(f"d_min against the tolerances and R (n = {n}, k = {k})", fontsize=10)
    save(fig, snakemake.output.png, snakemake.output.pdf)
