"""Figure: furthest-vector accuracy of softmax attention against beta, one curve per n (mean over
trials, shaded from the worst to the best trial), with hardmax."""

from expressivity.io import read_table
from expressivity.joblog import job_log
from expressivity.plotting import MARKERS, PALETTE, figure, save

log = job_log(snakemake)
df = read_table(snakemake.input[0], ["n", "trial", "sigma", "kind", "beta", "accuracy",
                                     "beta_empirical"])
grid = df[df["kind"] == "grid"]
with figure() as (fig, ax):
    for (n, part), colour, marker in zip(grid.groupby("n"), PALETTE, MARKERS, strict=False):
        acc = part.groupby("beta")["accuracy"].agg(["mean", "min", "max"])
        ax.plot(acc.index, 100 * acc["mean"], color=colour, marker=marker, ms=3,
                label=f"n = {n} ({part['trial'].nunique()} trials)")
        ax.fill_between(acc.index, 100 * acc["min"], 100 * acc["max"], color=colour, alpha=0.2,
                        lw=0)
        emp = df[df["n"] == n].groupby("trial")["beta_empirical"].first()
        ax.plot(emp, [100.0] * len(emp), marker="|", ms=12, mew=1.5, ls="none", color=colour)
    hard = df[df["sigma"] == "hardmax"]["accuracy"].min()
    ax.axhline(100 * hard, color="black", ls="--", lw=1, label=f"hardmax (min {100 * hard:.0f}%)")
    ax.set_xscale("log")
    ax.set_xlabel("softmax inverse temperature β (ticks: smallest working β per trial)")
    ax.set_ylabel("furthest vector found (%)")
    ax.set_title("BigBird Prop. 1: furthest-vector accuracy of one dense layer", fontsize=10)
    ax.legend(fontsize=8, loc="lower right")
    save(fig, snakemake.output.png, snakemake.output.pdf)
