"""Figure: STAR on the copying task: held-out accuracy (mean over seeds, bars from the lowest to
the highest seed) against the relay's load n log2(vocab) / d_model, one line per length n;
filled markers: some seed reaches the target. The title states the verdicts of the claims that
name this figure."""

from expressivity.claims import verdict_lines
from expressivity.io import read_table
from expressivity.joblog import job_log
from expressivity.plotting import MARKERS, PALETTE, figure, save
from expressivity.training_protocol import EXISTS

log = job_log(snakemake)
df = read_table(snakemake.input.star_bottleneck, [
    "d_model", "n", "load", "cell_accuracy_mean", "cell_accuracy_min", "cell_accuracy_max",
    "cell_existence", "chance", "target"
])
cells = df.groupby(["d_model", "n"], sort=False, as_index=False).first()
with figure(1, 1, figsize=(7, 4.4)) as (fig, ax):
    for i, (n, part) in enumerate(cells.groupby("n", sort=True)):
        part = part.sort_values("load")
        color, marker = PALETTE[i % len(PALETTE)], MARKERS[i % len(MARKERS)]
        y = part["cell_accuracy_mean"]
        ax.errorbar(part["load"], y, yerr=[y - part["cell_accuracy_min"],
                                           part["cell_accuracy_max"] - y],
                    color=color, capsize=3, lw=1.2, label=f"n = {n}")
        found = part["cell_existence"] == EXISTS
        ax.scatter(part["load"][found], y[found], marker=marker, color=color, zorder=3)
        ax.scatter(part["load"][~found], y[~found], marker=marker, facecolors="white",
                   edgecolors=color, zorder=3)
        for _, row in part.iterrows():
            ax.annotate(f"d={row['d_model']}", (row["load"], row["cell_accuracy_mean"]),
                        textcoords="offset points", xytext=(4, -10), fontsize=7)
    r = df.iloc[0]
    ax.axhline(r["target"], color="grey", ls="--", lw=1, label=f"target {r['target']:g}")
    ax.axhline(r["chance"], color="black", ls=":", lw=1, label="chance (1 / vocabulary)")
    ax.set_xscale("log", base=2)
    # a tick at each load run (a factor 2 apart on the grid), half a factor of margin each side
    loads = sorted(cells["load"].unique())
    ax.set_xticks(loads, [f"{load:g}" for load in loads])
    ax.minorticks_off()
    ax.set_xlim(loads[0] / 2**0.5, loads[-1] * 2**0.5)
    ax.set_xlabel("relay load n log2(vocabulary) / d_model (bits per unit of width)")
    ax.set_ylabel("held-out copy accuracy per token\n(mean, lowest to highest seed)")
    ax.legend(fontsize=7)
    verdicts = verdict_lines(read_table(snakemake.input.claims), "trained_models/star_bottleneck",
                             width=100)
    ax.set_title("\n".join([f"STAR's relay, depth {r['depth']}, {df['seed_index'].nunique()} seeds "
                            "(filled: at least one seed at the target)", *verdicts]), fontsize=8)
    save(fig, snakemake.output.png, snakemake.output.pdf)
