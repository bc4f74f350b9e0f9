"""Figure: Lemma 6 selective shifts with softmax: error against the inverse temperature."""

import numpy as np
from matplotlib.lines import Line2D

from expressivity.io import read_table
from expressivity.joblog import job_log
from expressivity.plotting import PALETTE, figure, save

job_log(snakemake)
curves = read_table(snakemake.input.lemma6_softmax)
grids = read_table(snakemake.input.lemma6)
grids = grids[grids["margin"].notna()] if "margin" in grids else grids.iloc[:0]
ms, ns = sorted(set(curves["inv_delta"]) | set(grids["inv_delta"])), sorted(set(grids["n"]))
ds = sorted(set(curves["d"]) | set(grids["d"])) or [1]
colour = {m: PALETTE[i % len(PALETTE)] for i, m in enumerate(ms)}
dashes = ["-", "--", ":", "-."]
marks = ["o", "s", "^", "D"]
style = {n: (dashes[i % 4], marks[i % 4]) for i, n in enumerate(ns)}
positive = np.concatenate([curves["error_over_margin"].to_numpy(float),
                           (grids["error_at_derived"] / grids["margin"]).to_numpy(float)])
positive = positive[positive > 0]
top = max(10.0, positive.max() * 10) if positive.size else 10.0
floor = min(1e-3, positive.min() / 10) if positive.size else 1e-3
zero_row = floor / 30     # exact zeros are drawn on this row, labelled 0

with figure(1, len(ds), figsize=(3.2 * len(ds) + 1.8, 4.0), sharex=True, sharey=True,
            squeeze=False) as (fig, axes):
    for ax, d in zip(axes[0], ds, strict=True):
        for (m, n), part in curves[curves["d"] == d].groupby(["inv_delta", "n"]):
            y = part["error_over_margin"].to_numpy(float)
            ls, mk = style[n]
            ax.plot(part["beta"], np.where(y > 0, y, zero_row), ls=ls, marker=mk, ms=3, lw=1,
                    color=colour[m])
        for g in grids[grids["d"] == d].itertuples():
            y = g.error_at_derived / g.margin
            ax.plot(g.beta_derived, y if y > 0 else zero_row, marker="*", ms=9, ls="none",
                    color=colour[g.inv_delta], markeredgecolor="black", markeredgewidth=0.5)
        ax.axhline(1.0, color="black", ls="--", lw=1)
        ax.axhline(zero_row * 4, color="0.6", ls=":", lw=0.6)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_ylim(zero_row / 3, top)
        ticks = [t for t in 10.0 ** np.arange(np.ceil(np.log10(floor)), np.log10(top) + 1, 3)]
        ax.set_yticks([zero_row, *ticks], ["0", *[f"$10^{{{int(np.log10(t))}}}$" for t in ticks]])
        ax.set_title(f"d = {d}", fontsize=10)
        ax.set_xlabel("inverse temperature β (units of δ²)")
    axes[0][0].set_ylabel("max |softmax − hardmax code| / margin")
    handles = ([Line2D([], [], color=colour[m], lw=2, label=f"1/δ = {m}") for m in ms]
               + [Line2D([], [], color="0.3", ls=style[n][0], marker=style[n][1], ms=3,
                         label=f"n = {n}") for n in ns]
               + [Line2D([], [], color="0.3", marker="*", ms=9, ls="none",
                         markeredgecolor="black", label="derived β, every input"),
                  Line2D([], [], color="black", ls="--", lw=1,
                         label="margin: half the smallest code gap")])
    axes[0][-1].legend(handles=handles, loc="upper left", bbox_to_anchor=(1.02, 1.0),
                       fontsize=7)
    fig.suptitle("Lemma 6 with softmax:\ndeviation from the hardmax codes against the temperature",
                 fontsize=10)
    save(fig, snakemake.output.png, snakemake.output.pdf)
