"""Figure: d_min / n against n, next to d = n (exact representation)."""

from expressivity.io import read_table
from expressivity.joblog import job_log
from expressivity.plotting import MARKERS, PALETTE, figure, save

log = job_log(snakemake)
df = read_table(snakemake.input.sweep, ["n", "k", "d_min_over_n"])
ks = sorted(df["k"].unique())

with figure() as (fig, ax):
    for c, (k, colour) in enumerate(zip(ks, PALETTE, strict=False)):
        sub = df[df["k"] == k]
        ax.scatter(sub["n"], sub["d_min_over_n"], s=10, color=colour, alpha=0.4, marker=MARKERS[c])
        med = sub.groupby("n")["d_min_over_n"].median()
        ax.plot(med.index, med.values, "-" + MARKERS[c], color=colour, label=f"k = {k} (median)")
    ax.axhline(1.0, color="black", ls="--", lw=1,
               label="d = n: exact representation with fixed X (Bhojanapalli et al. 2020)")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("sequence length n")
    ax.set_ylabel("d_min / n")
    ax.set_title("The needed width falls far below n")
    ax.legend(fontsize=7)
    save(fig, snakemake.output.png, snakemake.output.pdf)
