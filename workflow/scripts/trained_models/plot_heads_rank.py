"""Figure: over heads and head size, the final training accuracy (mean over seeds, lowest to
highest seed), the reliability (fraction of seeds reaching 100 %, 95 % Wilson interval) and the
epochs to 100 % of the seeds that reached it, with the blind ceiling of the dataset. The title
states the verdicts of the claims that name this figure."""

import numpy as np

from expressivity.claims import verdict_lines
from expressivity.io import read_table
from expressivity.joblog import job_log
from expressivity.plotting import MARKERS, PALETTE, figure, save

log = job_log(snakemake)
df = read_table(snakemake.input.heads_rank, [
    "heads", "head_size", "cell_accuracy_mean", "cell_accuracy_min", "cell_accuracy_max",
    "cell_reliability", "cell_reliability_lo", "cell_reliability_hi", "cell_steps_to_target_mean",
    "blind_ceiling", "budget"
])
cells = df.groupby(["heads", "head_size"], as_index=False).first()
budget = int(df["budget"].iloc[0])
middle = (cells["heads"].nunique() - 1) / 2
with figure(1, 3, figsize=(13.5, 4.0)) as (fig, axes):
    for i, (h, part) in enumerate(cells.groupby("heads")):
        part = part.sort_values("head_size")
        x = part["head_size"] * 2 ** (0.06 * (i - middle))  # numbers of heads side by side
        style = dict(color=PALETTE[i % len(PALETTE)], marker=MARKERS[i % len(MARKERS)],
                     label=f"{h} head(s)", capsize=3)
        for ax, y, lo, hi in ((axes[0], "cell_accuracy_mean", "cell_accuracy_min",
                               "cell_accuracy_max"),
                              (axes[1], "cell_reliability", "cell_reliability_lo",
                               "cell_reliability_hi")):
            ax.errorbar(x, part[y], yerr=[part[y] - part[lo], part[hi] - part[y]],
                        **style)
        steps = part["cell_steps_to_target_mean"]
        some = steps.notna()
        axes[2].errorbar(x[some], steps[some],
                         yerr=[steps[some] - part["cell_steps_to_target_min"][some],
                               part["cell_steps_to_target_max"][some] - steps[some]], **style)
        axes[2].scatter(x[~some], np.full((~some).sum(), budget), marker="x",
                        color=style["color"], zorder=3)
    axes[0].axhline(df["blind_ceiling"].iloc[0], color="black", ls="--", lw=1,
                    label="blind ceiling (hardmax, uniform)")
    axes[0].axhline(1.0, color="grey", lw=0.8)
    axes[1].set_ylim(-0.03, 1.03)
    axes[2].axhline(budget, color="grey", ls=":", lw=1, label="budget (x: no seed reached)")
    axes[0].set_ylabel("final training accuracy\n(mean, lowest to highest seed)")
    axes[1].set_ylabel("fraction of seeds reaching 100 %\n(95 % Wilson interval)")
    axes[2].set_ylabel("epochs to 100 %\n(the seeds that reached it)")
    for ax in axes:
        ax.set_xscale("log", base=2)
        ax.set_xlabel("head size s (rank of each head)")
        ax.legend(fontsize=7)
    r = df.iloc[0]
    verdicts = verdict_lines(read_table(snakemake.input.claims), "trained_models/heads_rank",
                             width=130)
    fig.suptitle("\n".join([f"Tied softmax attention, heads and head size: N = {r['N']} "
                            f"({r['pairs']} segment pairs), q = {r['width']}; "
                            f"{df['seed_index'].nunique()} seeds, window {r['window']}, lr decay "
                            f"{r['lr_decay']:g}", *verdicts]), fontsize=10)
    save(fig, snakemake.output.png, snakemake.output.pdf)
