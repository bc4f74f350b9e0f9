"""Figure: Fang et al.'s blocks trained from random weights: each run's final max relative error
against the target degree (one panel per number of blocks L; softmax-free and softmax side by
side, one marker per seed, filled where the run reached its target), each run's float64 read-out
floor with the rounding band above it, the fixed construction's degree L and the trained blocks'
degree bound 3^L, and the claims' verdicts."""

import numpy as np
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from expressivity.claims import verdict_lines
from expressivity.io import read_table
from expressivity.joblog import job_log
from expressivity.plotting import PALETTE, figure, save

job_log(snakemake)
df = read_table(snakemake.input.polynomial_trained)
verdicts = verdict_lines(read_table(snakemake.input.claims),
                         "universal_approximation/polynomial_trained", width=95)
COLOURS = {"softmax_free": PALETTE[0], "softmax": PALETTE[3]}
LABELS = {"softmax_free": "softmax-free", "softmax": "row softmax"}
variants = [v for v in COLOURS if v in set(df["variant"])]
Ls = sorted(df["blocks"].unique())
finite = df["log10_error"].replace(np.inf, np.nan)
low = 10.0 ** np.floor(min(df["log10_floor"].min(), finite.min()) - 0.5)
high = 10.0 ** np.ceil(max(finite.max(), 0.0) + 0.5)
band = float(df["band"].iloc[0])
with figure(1, len(Ls), figsize=(max(4.2 * len(Ls) + 2.6, 9.6), 5.6), sharey=True,
            squeeze=False) as (
        fig, axes):
    for ax, L in zip(axes[0], Ls, strict=True):
        part = df[df["blocks"] == L]
        degrees = sorted(part["degree"].unique())
        pos = {k: i for i, k in enumerate(degrees)}
        for j, variant in enumerate(variants):
            runs = part[part["variant"] == variant]
            seeds = max(int(runs["seed"].max()) + 1, 1) if len(runs) else 1
            for r in runs.itertuples():
                x = pos[r.degree] + (j - (len(variants) - 1) / 2) * 0.34 + (
                    r.seed / max(seeds - 1, 1) - 0.5) * 0.22
                reached = r.outcome == "reached"
                ax.scatter(x, np.clip(r.max_rel_error, low, high), s=18, zorder=3,
                           color=COLOURS[variant], facecolors=COLOURS[variant] if reached
                           else "none", lw=0.9)
                ax.plot([x - 0.04, x + 0.04, x + 0.04, x - 0.04, x - 0.04],
                        [r.floor, r.floor, r.floor * 10**band, r.floor * 10**band, r.floor],
                        color=COLOURS[variant], lw=0.9)
        ax.axvline(pos[max(k for k in degrees if k <= L)] + 0.5, color="0.4", ls="--", lw=0.8)
        bound = [k for k in degrees if k <= 3**L]
        ax.axvline(pos[max(bound)] + 0.5, color="0.4", ls=":", lw=0.9)
        ax.set_xticks(range(len(degrees)), [str(k) for k in degrees])
        ax.set_yscale("log")
        ax.set_ylim(low, high)
        ax.set_title(f"L = {L} trained block{'s' if L > 1 else ''}", fontsize=9)
        ax.set_xlabel("target degree")
    axes[0, 0].set_ylabel("max relative test error (final)")
    fig.suptitle("\n".join(["Fang et al.'s blocks trained from random weights (Adam), "
                            "error per seed against degree", *verdicts]), fontsize=8.5)
    handles = [Line2D([], [], color=COLOURS[v], marker="o", lw=0, label=LABELS[v])
               for v in variants]
    handles += [Line2D([], [], color="0.3", marker="o", lw=0, label="run at its target"),
                Line2D([], [], color="0.3", marker="o", mfc="none", lw=0,
                       label="run stopped elsewhere"),
                Patch(facecolor="none", edgecolor="0.3", label=f"read-out floor to the band\n"
                                                               f"({band:.2f} decades, measured)"),
                Line2D([], [], color="0.4", ls="--", lw=0.8, label="degree L (fixed blocks)"),
                Line2D([], [], color="0.4", ls=":", lw=0.9, label="degree 3^L (trained bound)")]
    axes[0, -1].legend(handles=handles, fontsize=7.5, loc="upper left", bbox_to_anchor=(1.02, 1.0))
    save(fig, snakemake.output.png, snakemake.output.pdf)
