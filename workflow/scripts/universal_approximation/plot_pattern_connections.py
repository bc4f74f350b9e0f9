"""Figure: connections per layer of each sparse pattern against n, with fitted and expected
log-log slopes; the title states the claim connections_linear as the claims table judged it."""

from expressivity.claims import verdict_lines
from expressivity.claims.universal_approximation.sparse_patterns import CONNECTION_SLOPES
from expressivity.fit import loglog_fit
from expressivity.io import read_table
from expressivity.joblog import job_log
from expressivity.plotting import MARKERS, PALETTE, figure, save
from expressivity.sparse_patterns import PATTERNS

job_log(snakemake)
df = read_table(snakemake.input.patterns)
verdicts = verdict_lines(read_table(snakemake.input.claims), "universal_approximation/pattern_connections")
# one colour and marker per pattern (grey for the ninth)
STYLE = {name: ((*PALETTE, "0.5")[i], MARKERS[i % len(MARKERS)])
         for i, name in enumerate(PATTERNS)}
with figure(figsize=(7.5, 4.2)) as (fig, ax):
    for name, part in df.groupby("pattern", sort=False):
        colour, marker = STYLE[name]
        fit = loglog_fit(part["n"], part["connections_max"])
        ax.plot(part["n"], part["connections_max"], marker=marker, ms=4, lw=1, color=colour,
                ls="--" if name == "causal_strided" else "-",
                label=f"{name} (slope {fit.slope:.2f}, expected {CONNECTION_SLOPES[name]:g})")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("sequence length n")
    ax.set_ylabel("connections per layer (max over the cycle)")
    fig.suptitle("\n".join(["Sparse patterns: connections per layer against n", *verdicts]),
                 fontsize=8.5)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0))
    save(fig, snakemake.output.png, snakemake.output.pdf)
