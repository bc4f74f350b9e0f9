"""Figure: Yun et al. 2020a, Sec. 5 at our scale: held-out accuracy (mean over seeds, bars from
the lowest to the highest seed) against the number k of attention layers kept on top of bilinear
projections or convolutions, on multi-query associative recall (left); on counting, convolutions
alone by kernel width (right); majority-class baselines drawn; a cell with seeds stopped at
their budget (still rising: the claims that read it are censored) says how many; the title states
the verdicts of the claims drawn here."""

import pandas as pd
from matplotlib.ticker import MaxNLocator

from expressivity.claims import verdict_lines
from expressivity.io import read_table
from expressivity.joblog import job_log
from expressivity.plotting import MARKERS, PALETTE, figure, save
from expressivity.training_protocol import EXISTS

log = job_log(snakemake)
df = read_table(snakemake.input.hybrid, ["task", "alternative", "kernel", "attention_layers", "depth",
                                     "cell_accuracy_mean", "cell_accuracy_min",
                                     "cell_accuracy_max", "cell_existence", "majority", "target",
                                     "n", "vocab", "outcome", "lr", "cell_lr", "seed_index"])
CELL = ["task", "alternative", "kernel", "attention_layers"]
cells = df.groupby(CELL, sort=False, as_index=False).first()
reported = df[df["lr"] == df["cell_lr"]]
cells = cells.merge(reported.groupby(CELL, as_index=False).agg(
    at_budget=("outcome", lambda o: int((o == "budget").sum())), seeds=("outcome", "size")),
    on=CELL)


def mark_budget(ax, x, y, part):
    """Say beside each point how many of its cell's seeds stopped at their budget."""
    for xi, yi, r in zip(x, y, part.itertuples(), strict=True):
        if r.at_budget:
            ax.annotate(f"{r.at_budget} of {r.seeds} seeds at the\nbudget: censored", (xi, yi),
                        xytext=(10, -8), textcoords="offset points", va="top", fontsize=7)

with figure(1, 2, figsize=(10.5, 5.2)) as (fig, (rec_ax, cnt_ax)):
    recall = cells[cells["task"] == "recall"]
    full = recall[recall["alternative"] == "attention"]
    for i, ((alt, kernel), part) in enumerate(recall[recall["alternative"] != "attention"]
                                              .groupby(["alternative", "kernel"], sort=False)):
        part = part.sort_values("attention_layers")
        part = pd.concat([part, full]) if len(full) else part
        color, marker = PALETTE[i % len(PALETTE)], MARKERS[i % len(MARKERS)]
        y = part["cell_accuracy_mean"]
        label = alt if alt != "conv" else f"conv, kernel {kernel}"
        rec_ax.errorbar(part["attention_layers"], y, yerr=[y - part["cell_accuracy_min"],
                                                          part["cell_accuracy_max"] - y],
                        color=color, capsize=3, lw=1.2, marker=marker, label=label)
        mark_budget(rec_ax, part["attention_layers"], y, part)
    for ax, part in ((rec_ax, recall), (cnt_ax, cells[cells["task"] == "count"])):
        if len(part):
            r = part.iloc[0]
            ax.axhline(r["target"], color="grey", ls="--", lw=1, label=f"target {r['target']:g}")
            ax.axhline(r["majority"], color="black", ls=":", lw=1, label="majority class")
    count = cells[cells["task"] == "count"].sort_values("kernel")
    if len(count):
        y = count["cell_accuracy_mean"]
        colors = [PALETTE[0] if e == EXISTS else "white" for e in count["cell_existence"]]
        cnt_ax.bar([f"kernel {k}" for k in count["kernel"]], y, color=colors, width=0.5,
                   edgecolor=PALETTE[0], yerr=[y - count["cell_accuracy_min"],
                                               count["cell_accuracy_max"] - y], capsize=4)
        mark_budget(cnt_ax, range(len(count)), y, count)
        # a free slot right of the bars holds the legend
        cnt_ax.set_xlim(-0.6, len(count) + 0.4)
    rec_ax.set_xlabel("attention layers kept on top (k)")
    rec_ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    rec_ax.set_ylabel("held-out accuracy (mean, lowest to highest seed)")
    sizes = {task: f" at n = {part['n'].iloc[0]}" for task, part in cells.groupby("task")}
    keys = f", {recall['vocab'].iloc[0]} keys" if len(recall) else ""
    rec_ax.set_title(f"multi-query associative recall{sizes.get('recall', '')}{keys} (content "
                     "routing)", fontsize=9)
    cnt_ax.set_title(f"counting{sizes.get('count', '')}: convolutions alone (filled: some seed "
                     "at the target)", fontsize=9)
    cnt_ax.set_ylim(0, 1.05)
    if recall.empty:
        rec_ax.text(0.5, 0.5, "recall not run in this config\n(config/paper.yaml runs it)",
                    ha="center", va="center", transform=rec_ax.transAxes, fontsize=9)
    for ax, where in ((rec_ax, "best"), (cnt_ax, "center right")):
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=7, loc=where)
    verdicts = verdict_lines(read_table(snakemake.input.claims), "trained_models/hybrid")
    fig.suptitle("\n".join([f"Hybrids of depth {cells['depth'].iloc[0]}: attention on top of "
                            f"alternatives, {df['seed_index'].nunique()} seeds", *verdicts]),
                 fontsize=9)
    save(fig, snakemake.output.png, snakemake.output.pdf)
