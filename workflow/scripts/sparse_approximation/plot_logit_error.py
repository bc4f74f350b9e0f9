"""Figure: largest logit error against d, with the JL bound and the typical JL curve."""

from matplotlib.ticker import NullFormatter

from expressivity.io import read_table
from expressivity.joblog import job_log
from expressivity.plotting import MARKERS, PALETTE, figure, save

log = job_log(snakemake)
df = read_table(snakemake.input.logit_error, ["k", "d", "max_logit_error", "jl_bound_error",
                                        "typical_max_error", "sufficient_error", "d_jl"])
with figure() as (fig, ax):
    for c, (k, sub) in enumerate(df.groupby("k")):
        colour = PALETTE[c % len(PALETTE)]
        med = sub.groupby("d")[["max_logit_error", "jl_bound_error", "typical_max_error"]].median()
        ax.plot(med.index, med["max_logit_error"], MARKERS[c], ms=3, color=colour,
                label=f"k = {k}: measured")
        ax.plot(med.index, med["typical_max_error"], "-", color=colour, lw=1,
                label=f"k = {k}: median max of n² Gaussian errors")
        ax.plot(med.index, med["jl_bound_error"], ":", color=colour, lw=1.2,
                label=f"k = {k}: JL bound (*) eta(d) beta")
        ax.axvline(sub["d_jl"].iloc[0], color=colour, lw=0.6, ls="--")
    ax.axhline(df["sufficient_error"].iloc[0], color="black", ls="--", lw=1,
               label="eps_ratio / 2 (sufficient)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.set_xlabel("d (columns of G)")
    ax.set_ylabel("max |X1 X2^T - B|")
    ax.set_title(f"Logit error against d (n = {int(df['n'].iloc[0])})")
    ax.legend(fontsize=6, ncol=2)
    save(fig, snakemake.output.png, snakemake.output.pdf)
