"""Figure: copying accuracy against depth, one line per attention pattern (mean over seeds, bars from
the lowest to the highest seed; filled: the cell reaches the target, open: it plateaus below)."""

from expressivity.io import read_table
from expressivity.joblog import job_log
from expressivity.plotting import MARKERS, PALETTE, figure, save
from expressivity.training_protocol import REACHES

log = job_log(snakemake)
df = read_table(snakemake.input[0], ["pattern", "depth", "cell_accuracy_mean", "cell_accuracy_min",
                                     "cell_accuracy_max", "cell_verdict", "chance", "target"])
cells = df.groupby(["pattern", "depth"], sort=False, as_index=False).first()
patterns = list(dict.fromkeys(cells["pattern"]))
with figure(figsize=(6.6, 4.4)) as (fig, ax):
    for i, (pattern, part) in enumerate(cells.groupby("pattern", sort=False)):
        part = part.sort_values("depth")
        color, marker = PALETTE[i % len(PALETTE)], MARKERS[i % len(MARKERS)]
        mean = part["cell_accuracy_mean"]
        # the patterns side by side around each depth, so no marker hides another
        x = part["depth"] + 0.08 * (i - (len(patterns) - 1) / 2)
        ax.errorbar(x, mean,
                    yerr=[mean - part["cell_accuracy_min"], part["cell_accuracy_max"] - mean],
                    color=color, capsize=3, lw=1.2, label=pattern.upper())
        reached = part["cell_verdict"] == REACHES
        ax.scatter(x[reached], mean[reached], marker=marker, color=color, zorder=3)
        ax.scatter(x[~reached], mean[~reached], marker=marker, facecolors="white",
                   edgecolors=color, zorder=3)
    r = df.iloc[0]
    ax.axhline(r["target"], color="grey", ls="--", lw=1, label=f"target {r['target']:g}")
    ax.axhline(r["chance"], color="black", ls=":", lw=1, label="chance (1 / vocabulary)")
    depths = sorted(df["depth"].unique())
    ax.set_xticks(depths)
    ax.set_xlim(depths[0] - 0.5, depths[-1] + 0.5)
    ax.set_xlabel("encoder depth (attention layers)")
    ax.set_ylabel("held-out copy accuracy (per token)")
    ax.set_title(f"Copying task, n = {r['n']}, vocabulary {r['vocab']}: "
                 f"{df['seed_index'].nunique()} seeds, at most {r['budget']} steps "
                 "(filled marker: every seed at the target)", fontsize=9)
    ax.legend(fontsize=7, ncol=2)
    save(fig, snakemake.output.png, snakemake.output.pdf)
