"""Figure: furthest-vector accuracy of softmax attention against beta, one curve per n."""

from expressivity.io import read_table
from expressivity.joblog import job_log
from expressivity.plotting import MARKERS, PALETTE, figure, save

log = job_log(snakemake)
df = read_table(snakemake.input[0], ["n", "sigma", "beta", "accuracy", "beta_sufficient"])
soft = df[df["sigma"] == "softmax"]
with figure() as (fig, ax):
    for (n, part), colour, marker in zip(soft.groupby("n"), PALETTE, MARKERS, strict=False):
        mean = part.groupby("beta")["accuracy"].mean()
        ax.plot(mean.index, 100 * mean.values, color=colour, marker=marker, ms=3, label=f"n = {n}")
        ax.axvline(part["beta_sufficient"].max(), color=colour, ls=":", lw=1)
    hard = df[df["sigma"] == "hardmax"]["accuracy"].min()
    ax.axhline(100 * hard, color="black", ls="--", lw=1, label=f"hardmax (min {100 * hard:.0f}%)")
    ax.set_xscale("log")
    ax.set_xlabel("softmax inverse temperature β (dotted: sufficient β per n)")
    ax.set_ylabel("furthest vector found (%)")
    ax.set_title("BigBird Prop. 1: one dense layer finds the furthest vector")
    ax.legend(fontsize=8)
    save(fig, snakemake.output.png, snakemake.output.pdf)
