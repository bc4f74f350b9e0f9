"""Figure: final training accuracy (mean over seeds, lowest to highest seed) and epochs to 100 %
over heads and head size, with the blind ceiling of the dataset."""

import numpy as np

from expressivity.io import read_table
from expressivity.joblog import job_log
from expressivity.plotting import MARKERS, PALETTE, figure, save
from expressivity.training_protocol import REACHES

log = job_log(snakemake)
df = read_table(snakemake.input[0], ["heads", "head_size", "cell_accuracy_mean",
                                     "cell_accuracy_min", "cell_accuracy_max", "cell_verdict"])
cells = df.groupby(["heads", "head_size"], as_index=False).first()
budget = int(df["budget"].iloc[0])
with figure(1, 2, figsize=(9.5, 4.0)) as (fig, axes):
    for i, (h, part) in enumerate(cells.groupby("heads")):
        part = part.sort_values("head_size")
        style = dict(color=PALETTE[i % len(PALETTE)], marker=MARKERS[i % len(MARKERS)],
                     label=f"{h} head(s)", capsize=3)
        mean = part["cell_accuracy_mean"]
        axes[0].errorbar(part["head_size"], mean,
                         yerr=[mean - part["cell_accuracy_min"], part["cell_accuracy_max"] - mean],
                         **style)
        steps = part["cell_steps_to_target_mean"]
        reached = part["cell_verdict"] == REACHES
        axes[1].errorbar(part["head_size"][reached], steps[reached],
                         yerr=[steps[reached] - part["cell_steps_to_target_min"][reached],
                               part["cell_steps_to_target_max"][reached] - steps[reached]],
                         **style)
        axes[1].scatter(part["head_size"][~reached], np.full((~reached).sum(), budget),
                        marker="x", color=style["color"], zorder=3)
    axes[0].axhline(df["blind_ceiling"].iloc[0], color="black", ls="--", lw=1,
                    label="blind ceiling (hardmax, uniform)")
    axes[0].axhline(1.0, color="grey", lw=0.8)
    axes[1].axhline(budget, color="grey", ls=":", lw=1, label="budget (x: not every seed reached)")
    axes[0].set_ylabel("final training accuracy")
    axes[1].set_ylabel("epochs to 100 %")
    for ax in axes:
        ax.set_xscale("log", base=2)
        ax.set_xlabel("head size s (rank of each head)")
        ax.legend(fontsize=7)
    r = df.iloc[0]
    fig.suptitle(f"Tied softmax attention, heads and head size: N = {r['N']} ({r['pairs']} segment "
                 f"pairs), q = {r['width']}\nmean over {df['seed_index'].nunique()} seeds, bars "
                 "from the lowest to the highest seed", fontsize=10)
    save(fig, snakemake.output.png, snakemake.output.pdf)
