"""Figure: Fang et al.'s adaptations ablated: the staircase (max relative error against degree, one
line per number of blocks L, d side by side) of each block variant in its own panel, with the
float64 floor of each target's read-out measured in the same run (bars in the colour of L) and the
claims' verdicts."""

import numpy as np
from matplotlib.lines import Line2D

from expressivity.claims import verdict_lines
from expressivity.io import read_table
from expressivity.joblog import job_log
from expressivity.plotting import MARKERS, PALETTE, figure, save

job_log(snakemake)
df = read_table(snakemake.input.polynomial_ablation)
verdicts = verdict_lines(read_table(snakemake.input.claims),
                         "universal_approximation/polynomial_ablation")
TITLES = {"softmax_free": "softmax-free (Fang et al.'s adaptation)",
          "softmax": "same weights, row softmax",
          "softmax_scaled": "row softmax, learned score scale",
          "layernorm": "softmax-free, LayerNorm after each block"}
variants = [v for v in TITLES if v in set(df["variant"])]
ds = sorted(df["d"].unique())
width = 0.5 / max(len(ds), 1)
low = 10.0 ** np.floor(min(df["log10_floor"].min(), df["log10_error"].min()) - 0.5)
high = 10.0 ** np.ceil(df["log10_error"].max() + 0.5)
cols = 2 if len(variants) > 1 else 1
rows = -(-len(variants) // cols)
with figure(rows, cols, figsize=(9.6, 3.2 * rows + 1.2), sharey=True, squeeze=False) as (fig, axes):
    for ax, variant in zip(axes.flat, variants, strict=False):
        part = df[df["variant"] == variant]
        for i, d in enumerate(ds):
            shift = (i - (len(ds) - 1) / 2) * width
            for L, sub in part[part["d"] == d].groupby("blocks"):
                sub = sub.sort_values("degree")
                ax.plot(sub["degree"] + shift, np.maximum(sub["max_rel_error"], low),
                        marker=MARKERS[i % len(MARKERS)], ms=3.5, lw=0.8,
                        color=PALETTE[int(L) % len(PALETTE)],
                        label=f"L = {L} blocks" if i == 0 and variant == variants[0] else None)
            for L, sub in part[part["d"] == d].groupby("blocks"):
                ax.scatter(sub["degree"] + shift, sub["floor"], marker="_", s=40, lw=1.2,
                           color=PALETTE[int(L) % len(PALETTE)], zorder=3)
        ax.set_yscale("log")
        ax.set_ylim(low, high)
        ax.set_title(TITLES[variant], fontsize=9)
        ax.set_xticks(sorted(df["degree"].unique()))
        ax.set_xlabel("target degree (d side by side)")
    for ax in axes[:, 0]:
        ax.set_ylabel("max relative error")
    for ax in axes.flat[len(variants):]:
        ax.set_visible(False)
    fig.suptitle("\n".join(["Fang et al.'s blocks ablated: error against degree, per block variant",
                            *verdicts]), fontsize=8.5)
    handles, labels = axes.flat[0].get_legend_handles_labels()
    handles += [Line2D([], [], color="black", marker=MARKERS[i % len(MARKERS)], ms=3.5, lw=0)
                for i in range(len(ds))]
    labels += [f"d = {d}" for d in ds]
    handles.append(Line2D([], [], color="0.3", marker="_", ms=8, mew=1.2, lw=0))
    labels.append("float64 floor of the read-out\n(measured; colour of L)")
    axes[0, -1].legend(handles, labels, fontsize=7.5, loc="upper left", bbox_to_anchor=(1.02, 1.0))
    save(fig, snakemake.output.png, snakemake.output.pdf)
