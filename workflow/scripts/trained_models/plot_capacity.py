"""Figure: Kajitsuka & Sato 2024's memorization at CoNLL shape: training accuracy (mean over seeds,
bars from the lowest to the highest seed) against the FFN width q, one panel per (N, a), one line
per arm; filled markers: some seed reaches 99.5 % of the set-consistent ceiling; the exact
token-only ceiling drawn as the baseline, and with segment pairs the exact blind ceiling (no
uniform or hardmax layer exceeds it)."""

import math

from expressivity.claims import verdict_lines
from expressivity.io import read_table
from expressivity.joblog import job_log
from expressivity.plotting import MARKERS, PALETTE, figure, save
from expressivity.training_protocol import EXISTS

log = job_log(snakemake)
df = read_table(snakemake.input.capacity, ["arm", "N", "a", "q", "cell_accuracy_mean",
                                     "cell_accuracy_min", "cell_accuracy_max", "cell_existence",
                                     "token_ceiling", "set_ceiling", "blind_ceiling", "target",
                                     "seed_index"])
cells = df.groupby(["arm", "N", "a", "q"], sort=False, as_index=False).first()
panels = sorted({(N, a) for N, a in zip(cells["N"], cells["a"], strict=True)})
arms = list(dict.fromkeys(cells["arm"]))
cols = min(len(panels), 2)
rows = -(-len(panels) // cols)
with figure(rows, cols, figsize=(5.2 * cols + 2.2, 3.8 * rows), squeeze=False) as (fig, axes):
    for ax, (N, a) in zip(axes.flat, panels, strict=False):
        own = cells[(cells["N"] == N) & (cells["a"] == a)]
        for i, arm in enumerate(arms):
            part = own[own["arm"] == arm].sort_values("q")
            if part.empty:
                continue
            color, marker = PALETTE[i % len(PALETTE)], MARKERS[i % len(MARKERS)]
            y = part["cell_accuracy_mean"]
            # arms at the same width side by side (a dodge of 6 % of a doubling per arm)
            x = part["q"] * 2 ** (0.06 * (i - (len(arms) - 1) / 2))
            ax.errorbar(x, y, yerr=[y - part["cell_accuracy_min"],
                                            part["cell_accuracy_max"] - y],
                        color=color, capsize=3, lw=1.2, label=arm)
            found = part["cell_existence"] == EXISTS
            ax.scatter(x[found], y[found], marker=marker, color=color, zorder=3)
            ax.scatter(x[~found], y[~found], marker=marker, facecolors="white",
                       edgecolors=color, zorder=3)
        r = own.iloc[0]
        ax.axhline(r["target"], color="grey", ls="--", lw=1,
                   label="target (99.5 % of the set-consistent ceiling)")
        ax.axhline(r["token_ceiling"], color="black", ls=":", lw=1,
                   label="token-only ceiling (exact)")
        ceilings = f"ceilings: token-only {r['token_ceiling']:.3f}"
        if not math.isnan(r["blind_ceiling"]):
            ax.axhline(r["blind_ceiling"], color="black", ls="-.", lw=1,
                       label="blind ceiling (exact: no uniform\nor hardmax layer exceeds it)")
            ceilings += f", uniform and hardmax {r['blind_ceiling']:.3f}"
        ax.set_xscale("log", base=2)
        ax.set_xlabel("FFN width q (arms side by side at each width)")
        ax.set_ylabel("training accuracy per token\n(mean, lowest to highest seed)")
        ax.set_title(f"N = {N} sentences, ambiguous share a = {a:g}\n{ceilings}", fontsize=9)
    for ax in list(axes.flat)[len(panels):]:
        ax.set_visible(False)
    # one legend for every panel, beside the first row: no line or marker under it (the ceilings'
    # values differ by panel and stand in each panel's title)
    widest = max(axes[0], key=lambda ax: len(ax.get_legend_handles_labels()[1]))
    axes[0][-1].legend(*widest.get_legend_handles_labels(), fontsize=7, loc="upper left",
                       bbox_to_anchor=(1.02, 1.0))
    verdicts = verdict_lines(read_table(snakemake.input.claims), "trained_models/capacity")
    fig.suptitle("\n".join([f"One-layer memorization on CoNLL-shaped data "
                            f"({df['seed_index'].nunique()} seeds; filled: some seed at the "
                            "target)", *verdicts]), fontsize=10)
    save(fig, snakemake.output.png, snakemake.output.pdf)
