"""Figure: Monte-Carlo L^p error of the constructed transformers against the grid spacing."""

from expressivity.io import read_table
from expressivity.joblog import job_log
from expressivity.plotting import PALETTE, figure, save

job_log(snakemake)
df = read_table(snakemake.input.approximation)
with figure() as (fig, ax):
    styles = {"yun": "-", "kajitsuka_sato": "--", "yun_positional": ":"}
    for i, ((target, route), part) in enumerate(df.groupby(["target", "route"], sort=False)):
        for p, marker in (("L1", "o"), ("L2", "s")):
            ax.plot(part["delta"], part[p], ls=styles.get(route, "-"), marker=marker, ms=3,
                    color=PALETTE[i % len(PALETTE)], label=f"{target}, {route}, {p}")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("grid spacing δ")
    ax.set_ylabel("Monte-Carlo L^p error")
    ax.set_title("Constructed Transformers: error falls with δ")
    ax.legend(fontsize=6)
    save(fig, snakemake.output.png, snakemake.output.pdf)
