"""Figure: Yun et al. 2020b's sparsity sweep on the copying task.

Top: held-out accuracy at the stop (mean over seeds, bars from the lowest to the highest seed)
against the density of the attention (fraction of query-key pairs computed), one line per pattern
and configuration; RANDOM matched to each configuration's density, DENSE as the reference; filled
markers: some seed reaches the target. Below, one panel per level: each cell's held-out accuracy
against the training step (mean over seeds, band from the lowest to the highest seed; colours and
markers as above) until its first run stopped; two cells are compared where the shorter of their
curves ends (the claims' fixed budget), since early stopping leaves every final accuracy that
reaches the target just above it. The title states the verdicts of the claims that name this
figure."""

import numpy as np

from expressivity.claims import verdict_lines
from expressivity.io import read_table
from expressivity.joblog import job_log
from expressivity.plotting import MARKERS, PALETTE, figure, save
from expressivity.training_protocol import EXISTS, curve_points

log = job_log(snakemake)
df = read_table(snakemake.input.sparsity, [
    "pattern", "configuration", "level", "density", "cell_accuracy_mean", "cell_accuracy_min",
    "cell_accuracy_max", "cell_existence", "chance", "target", "lr", "cell_lr", "seed_index",
    "accuracy_curve", "every", "budget", "stopped_at", "n", "depth"
])
cells = df.groupby(["pattern", "configuration", "level"], sort=False, as_index=False).first()
series = list(cells.groupby(["pattern", "configuration"], sort=False))
style = {key: (PALETTE[i % len(PALETTE)], MARKERS[i % len(MARKERS)])
         for i, (key, _) in enumerate(series)}
levels = sorted(cells.loc[~cells["pattern"].isin(["dense"]), "level"].unique())
reported = df[df["lr"] == df["cell_lr"]]


def mean_curve(runs):
    """Steps and the lowest, mean and highest accuracy over ``runs`` until the first stop."""
    points = [curve_points(r.accuracy_curve, r.every, r.budget) for r in runs.itertuples()]
    steps = [s for s in points[0] if s <= runs["stopped_at"].min()]
    values = np.array([[p[s] for s in steps] for p in points])
    return np.array(steps), values.min(axis=0), values.mean(axis=0), values.max(axis=0)


with figure(2, max(len(levels), 1), figsize=(4.0 * max(len(levels), 2), 8.2),
            squeeze=False) as (fig, axes):
    for ax in axes[0]:
        ax.remove()
    top = fig.add_subplot(axes[0, 0].get_gridspec()[0, :])
    for (pattern, conf), part in series:
        part = part.sort_values("density")
        color, marker = style[pattern, conf]
        y = part["cell_accuracy_mean"]
        top.errorbar(part["density"], y, yerr=[y - part["cell_accuracy_min"],
                                               part["cell_accuracy_max"] - y],
                     color=color, capsize=3, lw=1.2, label=f"{pattern.upper()} ({conf})")
        found = part["cell_existence"] == EXISTS
        top.scatter(part["density"][found], y[found], marker=marker, color=color, zorder=3)
        top.scatter(part["density"][~found], y[~found], marker=marker, facecolors="white",
                    edgecolors=color, zorder=3)
    r = df.iloc[0]
    for ax in (top, *axes[1]):
        ax.axhline(r["target"], color="grey", ls="--", lw=1, label=f"target {r['target']:g}")
        ax.axhline(r["chance"], color="black", ls=":", lw=1, label="chance (1 / vocabulary)")
    top.set_xlabel("density: query-key pairs computed / n^2 (mean over layers)")
    top.set_ylabel("held-out copy accuracy per token\nat the stop (mean, lowest to highest seed)")
    top.set_xlim(0, 1.05)
    top.legend(fontsize=7, ncol=2)
    for ax, level in zip(axes[1], levels, strict=False):
        for (pattern, conf), _ in series:
            runs = reported[(reported["pattern"] == pattern) & (reported["configuration"] == conf)
                            & (reported["level"] == (0 if pattern == "dense" else level))]
            if runs.empty:
                continue
            color, marker = style[pattern, conf]
            steps, lo, mean, hi = mean_curve(runs)
            ax.fill_between(steps, lo, hi, color=color, alpha=0.15, lw=0)
            ax.plot(steps, mean, color=color, marker=marker, ms=3, lw=1.2,
                    label=f"{pattern.upper()} ({conf})")
        ax.set_title(f"level w = {level}", fontsize=8)
        ax.set_xlabel("training step (to the cell's first stop)")
        ax.set_ylabel("held-out copy accuracy\n(mean, lowest to highest seed)")
        ax.set_ylim(0, 1.02)
    verdicts = verdict_lines(read_table(snakemake.input.claims), "trained_models/sparsity", width=110)
    fig.suptitle("\n".join([f"Copying against sparsity, n = {r['n']}, depth {r['depth']}, "
                            f"{df['seed_index'].nunique()} seeds (filled: at least one seed at the "
                            "target); pairs compared where the shorter curve ends", *verdicts]),
                 fontsize=8)
    save(fig, snakemake.output.png, snakemake.output.pdf)
