"""Figure: Yun et al. 2020b's sparsity sweep, one pair of rows per task (copying; recall where it
runs).

Per task, on top: held-out accuracy at the stop (mean over seeds, bars from the lowest to the
highest seed) against the density of the attention (fraction of query-key pairs computed), one
line per pattern and configuration; RANDOM matched to each configuration's density, DENSE as the
reference; filled markers: some seed reaches the target. Below it, one panel per level: each cell's
held-out accuracy against the training step (mean over seeds, band from the lowest to the highest
seed; colours and markers as above) until its first run stopped; two cells are compared where the
shorter of their curves ends (the claims' fixed budget), since early stopping leaves every final
accuracy that reaches the target just above it. At the bottom, where a pattern runs in several
configurations: each configuration's mean accuracy less alternating's at their common step, per
task and level, with two standard errors (the paper's "UNION against alternating,
task-dependent": reported, not judged). The title states the verdicts of the claims that name
this figure."""

import numpy as np

from expressivity.claims import verdict_lines
from expressivity.claims.trained_models.papers import configuration_gaps
from expressivity.io import read_table
from expressivity.joblog import job_log
from expressivity.plotting import MARKERS, PALETTE, figure, log2_axis, save
from expressivity.training_protocol import EXISTS, curve_points

log = job_log(snakemake)
TASK_NAMES = {"copy": "copying", "recall": "associative recall"}
df = read_table(snakemake.input.sparsity, [
    "task", "pattern", "configuration", "level", "density", "cell_accuracy_mean",
    "cell_accuracy_min", "cell_accuracy_max", "cell_existence", "chance", "target", "lr",
    "cell_lr", "seed_index", "accuracy_curve", "every", "budget", "stopped_at", "n", "vocab",
    "depth"
])
cells = df.groupby(["task", "pattern", "configuration", "level"], sort=False,
                   as_index=False).first()
style = {key: (PALETTE[i % len(PALETTE)], MARKERS[i % len(MARKERS)]) for i, key in
         enumerate(dict.fromkeys(zip(cells["pattern"], cells["configuration"], strict=True)))}
tasks = list(dict.fromkeys(cells["task"]))
levels = sorted(cells.loc[~cells["pattern"].isin(["dense"]), "level"].unique())
reported = df[df["lr"] == df["cell_lr"]]
gaps = configuration_gaps(df)


def mean_curve(runs):
    """Steps and the lowest, mean and highest accuracy over ``runs`` until the first stop."""
    points = [curve_points(r.accuracy_curve, r.every, r.budget) for r in runs.itertuples()]
    steps = [s for s in points[0] if s <= runs["stopped_at"].min()]
    values = np.array([[p[s] for s in steps] for p in points])
    return np.array(steps), values.min(axis=0), values.mean(axis=0), values.max(axis=0)


def final_panel(ax, task_cells):
    """Accuracy at the stop against density, one line per pattern and configuration."""
    for (pattern, conf), part in task_cells.groupby(["pattern", "configuration"], sort=False):
        part = part.sort_values("density")
        color, marker = style[pattern, conf]
        y = part["cell_accuracy_mean"]
        ax.errorbar(part["density"], y, yerr=[y - part["cell_accuracy_min"],
                                              part["cell_accuracy_max"] - y],
                    color=color, capsize=3, lw=1.2, label=f"{pattern.upper()} ({conf})")
        found = part["cell_existence"] == EXISTS
        ax.scatter(part["density"][found], y[found], marker=marker, color=color, zorder=3)
        ax.scatter(part["density"][~found], y[~found], marker=marker, facecolors="white",
                   edgecolors=color, zorder=3)
    ax.set_xlabel("density: query-key pairs computed / n^2 (mean over layers and heads)")
    ax.set_xlim(0, 1.05)


def curve_panel(ax, task_runs, level):
    """Each cell's learning curve at ``level`` (DENSE beside every level) until its first stop."""
    for (pattern, conf), runs in task_runs.groupby(["pattern", "configuration"], sort=False):
        runs = runs[runs["level"] == (0 if pattern == "dense" else level)]
        if runs.empty:
            continue
        color, marker = style[pattern, conf]
        steps, lo, mean, hi = mean_curve(runs)
        ax.fill_between(steps, lo, hi, color=color, alpha=0.15, lw=0)
        ax.plot(steps, mean, color=color, marker=marker, ms=3, lw=1.2,
                label=f"{pattern.upper()} ({conf})")
    ax.set_xlabel("training step (to the cell's first stop)")
    ax.set_ylim(0, 1.02)


def gap_panel(ax):
    """Each configuration less alternating per task and level, +-2 standard errors (the series
    set slightly apart along the level axis so that their bars do not hide each other)."""
    series = list(gaps.groupby(["task", "pattern", "configuration"], sort=False))
    for i, ((task, pattern, conf), part) in enumerate(series):
        color, marker = style[pattern, conf]
        apart = 2.0 ** (0.05 * (i - (len(series) - 1) / 2))
        ax.errorbar(part["level"] * apart, part["gap"], yerr=2 * part["se"], color=color, marker=marker,
                    ls="-" if task == tasks[0] else "--", capsize=3, lw=1.2,
                    label=f"{TASK_NAMES[task]}: {pattern.upper()} {conf} - "
                          f"{part['against'].iloc[0]}")
    ax.axhline(0, color="black", lw=1)
    log2_axis(ax, levels, "level w (window or block size)")
    ax.set_ylabel("mean accuracy difference at the\ncommon step (+-2 standard errors)")
    ax.set_title("configurations against alternating, per task: reported, not judged", fontsize=8)
    ax.legend(fontsize=7)


rows = 2 * len(tasks) + (not gaps.empty)
with figure(rows, max(len(levels), 1), figsize=(4.0 * max(len(levels), 2),
                                              8.2 * len(tasks) + 3.6 * (not gaps.empty)),
            squeeze=False) as (fig, axes):
    for row, task in enumerate(tasks):
        for ax in axes[2 * row]:
            ax.remove()
        top = fig.add_subplot(axes[2 * row, 0].get_gridspec()[2 * row, :])
        final_panel(top, cells[cells["task"] == task])
        name = TASK_NAMES[task]
        top.set_ylabel(f"held-out {name} accuracy per token\nat the stop (mean, lowest to "
                       "highest seed)")
        r = df[df["task"] == task].iloc[0]
        top.set_title(f"{name}: n = {r['n']}, {r['vocab']} "
                      f"{'content tokens' if task == 'copy' else 'keys and values'}", fontsize=9)
        for ax, level in zip(axes[2 * row + 1], levels, strict=False):
            curve_panel(ax, reported[reported["task"] == task], level)
            ax.set_title(f"{name}, level w = {level}", fontsize=8)
            ax.set_ylabel(f"held-out {name} accuracy\n(mean, lowest to highest seed)")
        for ax in (top, *axes[2 * row + 1]):
            ax.axhline(r["target"], color="grey", ls="--", lw=1, label=f"target {r['target']:g}")
            ax.axhline(r["chance"], color="black", ls=":", lw=1, label="chance (1 / vocabulary)")
        top.legend(fontsize=7, ncol=2)
    if not gaps.empty:
        for ax in axes[-1]:
            ax.remove()
        gap_panel(fig.add_subplot(axes[-1, 0].get_gridspec()[-1, :]))
    r = df.iloc[0]
    verdicts = verdict_lines(read_table(snakemake.input.claims), "trained_models/sparsity", width=110)
    fig.suptitle("\n".join([f"Accuracy against sparsity, depth {r['depth']}, "
                            f"{df['seed_index'].nunique()} seeds (filled: at least one seed at the "
                            "target); pairs compared where the shorter curve ends", *verdicts]),
                 fontsize=8)
    save(fig, snakemake.output.png, snakemake.output.pdf)
