"""Figure: boltz(beta a)/beta against beta, with max(a) and max(a) - log(n)/beta."""

from expressivity.io import read_table
from expressivity.joblog import job_log
from expressivity.plotting import PALETTE, figure, save

log = job_log(snakemake)
df = read_table(snakemake.input[0], ["example", "n", "beta", "boltz_over_beta", "max", "lower_bound"])
with figure() as (fig, ax):
    for (_, part), colour in zip(df.groupby("example"), PALETTE, strict=False):
        n = int(part["n"].iloc[0])
        ax.plot(part["beta"], part["boltz_over_beta"], color=colour, label=f"boltz(βa)/β, n = {n}")
        ax.plot(part["beta"], part["max"], color=colour, ls=":", lw=1)
        ax.plot(part["beta"], part["lower_bound"], color=colour, ls="--", lw=1)
    ax.plot([], [], color="grey", ls=":", label="max(a) (upper bound)")
    ax.plot([], [], color="grey", ls="--", label="max(a) − log(n)/β (lower bound)")
    ax.set_xscale("log")
    lo = df["max"].min() - 3
    ax.set_ylim(lo, df["max"].max() + 0.5)
    ax.set_xlabel("inverse temperature β")
    ax.set_ylabel("boltz(βa)/β")
    ax.set_title("Boltzmann operator against its hardmax limit, the max")
    ax.legend(fontsize=8)
    save(fig, snakemake.output.png, snakemake.output.pdf)
