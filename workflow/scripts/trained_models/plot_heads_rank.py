"""Figure: final training accuracy and epochs to 100 % over heads and head size."""

import numpy as np

from expressivity.io import read_table
from expressivity.joblog import job_log
from expressivity.plotting import MARKERS, PALETTE, figure, save

log = job_log(snakemake)
df = read_table(snakemake.input[0], ["heads", "head_size", "accuracy", "epochs_to_perfect"])
budget = int(df["epochs_budget"].iloc[0])
with figure(1, 2, figsize=(9, 3.8)) as (fig, axes):
    for i, (h, part) in enumerate(df.groupby("heads")):
        part = part.sort_values("head_size")
        style = dict(color=PALETTE[i], marker=MARKERS[i], label=f"{h} head(s)")
        axes[0].plot(part["head_size"], part["accuracy"], **style)
        epochs = part["epochs_to_perfect"].fillna(np.inf)
        axes[1].plot(part["head_size"], np.minimum(epochs, budget), **style)
    axes[0].set_ylabel("final training accuracy")
    axes[1].set_ylabel(f"epochs to 100 % (capped at the budget {budget})")
    for ax in axes:
        ax.set_xscale("log", base=2)
        ax.set_xlabel("head size s (rank of each head)")
        ax.legend(fontsize=8)
    fig.suptitle("Tied attention: heads and head size", fontsize=10)
    save(fig, snakemake.output.png, snakemake.output.pdf)
