"""Figure: connections per layer of each sparse pattern against n, with fitted slopes."""

from expressivity.fit import loglog_fit
from expressivity.io import read_table
from expressivity.joblog import job_log
from expressivity.plotting import MARKERS, PALETTE, figure, save
from expressivity.sparse_patterns import PATTERNS

job_log(snakemake)
df = read_table(snakemake.input.patterns)
# one colour and marker per pattern (grey for the ninth)
STYLE = {name: ((*PALETTE, "0.5")[i], MARKERS[i % len(MARKERS)])
         for i, name in enumerate(PATTERNS)}
with figure(figsize=(7.5, 4.2)) as (fig, ax):
    for name, part in df.groupby("pattern", sort=False):
        colour, marker = STYLE[name]
        fit = loglog_fit(part["n"], part["connections_max"])
        ax.plot(part["n"], part["connections_max"], marker=marker, ms=4, lw=1, color=colour,
                ls="--" if name == "causal_strided" else "-",
                label=f"{name} (slope {fit.slope:.2f})")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("sequence length n")
    ax.set_ylabel("connections per layer (max over the cycle)")
    ax.set_title("Sparse patterns: O(n) connections per layer", fontsize=10)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0))
    save(fig, snakemake.output.png, snakemake.output.pdf)
