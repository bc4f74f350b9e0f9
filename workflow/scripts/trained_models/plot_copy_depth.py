"""Figure: copying accuracy (mean over seeds, bars from the lowest to the highest seed) and
reliability (the fraction of seeds that reach the target, 95 % Wilson interval) against depth, one
line per attention pattern; filled markers: some seed reaches the target (existence). Where a
pattern's masks leave some source unheard at a depth, a short bar of its colour marks the most any
encoder with those masks can reach (the reach ceiling). The title states the verdicts of the
claims that name this figure."""

from expressivity.claims import verdict_lines
from expressivity.io import read_table
from expressivity.joblog import job_log
from expressivity.plotting import MARKERS, PALETTE, figure, save
from expressivity.training_protocol import EXISTS

log = job_log(snakemake)
df = read_table(snakemake.input.copy_depth, [
    "pattern", "depth", "cell_accuracy_mean", "cell_accuracy_min", "cell_accuracy_max",
    "cell_existence", "cell_reliability", "cell_reliability_lo", "cell_reliability_hi", "chance",
    "target", "reach_ceiling"
])
cells = df.groupby(["pattern", "depth"], sort=False, as_index=False).first()
patterns = list(dict.fromkeys(cells["pattern"]))
with figure(1, 2, figsize=(12, 4.4)) as (fig, (acc_ax, rel_ax)):
    for i, (pattern, part) in enumerate(cells.groupby("pattern", sort=False)):
        part = part.sort_values("depth")
        color, marker = PALETTE[i % len(PALETTE)], MARKERS[i % len(MARKERS)]
        # the patterns side by side around each depth, so no marker hides another
        x = part["depth"] + 0.08 * (i - (len(patterns) - 1) / 2)
        found = part["cell_existence"] == EXISTS
        for ax, y, lo, hi in ((acc_ax, "cell_accuracy_mean", "cell_accuracy_min",
                               "cell_accuracy_max"),
                              (rel_ax, "cell_reliability", "cell_reliability_lo",
                               "cell_reliability_hi")):
            ax.errorbar(x, part[y], yerr=[part[y] - part[lo], part[hi] - part[y]], color=color,
                        capsize=3, lw=1.2, label=pattern.upper())
            ax.scatter(x[found], part[y][found], marker=marker, color=color, zorder=3)
            ax.scatter(x[~found], part[y][~found], marker=marker, facecolors="white",
                       edgecolors=color, zorder=3)
        capped = part["reach_ceiling"] < 1
        acc_ax.hlines(part["reach_ceiling"][capped], x[capped] - 0.12, x[capped] + 0.12,
                      color=color, lw=2.5, zorder=2)
    r = df.iloc[0]
    acc_ax.axhline(r["target"], color="grey", ls="--", lw=1, label=f"target {r['target']:g}")
    acc_ax.axhline(r["chance"], color="black", ls=":", lw=1, label="chance (1 / vocabulary)")
    if (df["reach_ceiling"] < 1).any():
        acc_ax.plot([], [], color="grey", lw=2.5, label="reach ceiling (any model, these masks)")
    acc_ax.set_ylabel("held-out copy accuracy per token\n(mean, lowest to highest seed)")
    rel_ax.set_ylabel("fraction of seeds reaching the target\n(95 % Wilson interval)")
    rel_ax.set_ylim(-0.03, 1.03)
    for ax in (acc_ax, rel_ax):
        depths = sorted(df["depth"].unique())
        ax.set_xticks(depths)
        ax.set_xlim(depths[0] - 0.5, depths[-1] + 0.5)
        ax.set_xlabel("encoder depth (attention layers)")
    # one legend for both panels, beside them: no line or marker under it
    rel_ax.legend(*acc_ax.get_legend_handles_labels(), fontsize=7, loc="upper left",
                  bbox_to_anchor=(1.02, 1.0))
    verdicts = verdict_lines(read_table(snakemake.input.claims), "trained_models/copy_depth", width=130)
    fig.suptitle("\n".join([f"Copying task, n = {r['n']}, vocabulary {r['vocab']}: "
                            f"{df['seed_index'].nunique()} seeds, window {r['window']}, lr decay "
                            f"{r['lr_decay']:g}, budget {r['budget']} (filled: at least one seed at "
                            "the target)", *verdicts]), fontsize=9)
    save(fig, snakemake.output.png, snakemake.output.pdf)
