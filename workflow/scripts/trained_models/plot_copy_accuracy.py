"""Figure: copying accuracy against depth, one line per attention pattern."""

from expressivity.io import read_table
from expressivity.joblog import job_log
from expressivity.plotting import MARKERS, PALETTE, figure, save

log = job_log(snakemake)
df = read_table(snakemake.input[0], ["pattern", "depth", "accuracy"])
with figure() as (fig, ax):
    for i, (pattern, part) in enumerate(df.groupby("pattern", sort=False)):
        part = part.sort_values("depth")
        ax.plot(part["depth"], part["accuracy"], color=PALETTE[i % len(PALETTE)],
                marker=MARKERS[i % len(MARKERS)], label=pattern.upper())
    ax.axhline(1.0 / df["vocab"].iloc[0], color="black", ls=":", lw=1, label="chance")
    ax.set_xticks(sorted(df["depth"].unique()))
    ax.set_xlabel("encoder depth (attention layers)")
    ax.set_ylabel("held-out copy accuracy (per token)")
    r = df.iloc[0]
    ax.set_title(f"Copying task, n = {r['n']}, vocabulary {r['vocab']}, {r['steps']} steps",
                 fontsize=10)
    ax.legend(fontsize=8)
    save(fig, snakemake.output.png, snakemake.output.pdf)
