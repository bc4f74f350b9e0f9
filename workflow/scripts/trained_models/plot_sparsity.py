"""Figure: Yun et al. 2020b's sparsity sweep on the copying task: held-out accuracy (mean over
seeds, bars from the lowest to the highest seed) against the density of the attention (fraction of
query-key pairs computed), one line per pattern and configuration; RANDOM matched to each level,
DENSE as the reference; filled markers: some seed reaches the target. The title states the verdicts
of the claims that name this figure."""

from expressivity.claims import verdict_lines
from expressivity.io import read_table
from expressivity.joblog import job_log
from expressivity.plotting import MARKERS, PALETTE, figure, save
from expressivity.training_protocol import EXISTS

log = job_log(snakemake)
df = read_table(snakemake.input.sparsity, [
    "pattern", "configuration", "level", "density", "cell_accuracy_mean", "cell_accuracy_min",
    "cell_accuracy_max", "cell_existence", "chance", "target"
])
cells = df.groupby(["pattern", "configuration", "level"], sort=False, as_index=False).first()
with figure(1, 1, figsize=(7.5, 4.6)) as (fig, ax):
    for i, ((pattern, conf), part) in enumerate(cells.groupby(["pattern", "configuration"],
                                                              sort=False)):
        part = part.sort_values("density")
        color, marker = PALETTE[i % len(PALETTE)], MARKERS[i % len(MARKERS)]
        y = part["cell_accuracy_mean"]
        ax.errorbar(part["density"], y, yerr=[y - part["cell_accuracy_min"],
                                              part["cell_accuracy_max"] - y],
                    color=color, capsize=3, lw=1.2, label=f"{pattern.upper()} ({conf})")
        found = part["cell_existence"] == EXISTS
        ax.scatter(part["density"][found], y[found], marker=marker, color=color, zorder=3)
        ax.scatter(part["density"][~found], y[~found], marker=marker, facecolors="white",
                   edgecolors=color, zorder=3)
    r = df.iloc[0]
    ax.axhline(r["target"], color="grey", ls="--", lw=1, label=f"target {r['target']:g}")
    ax.axhline(r["chance"], color="black", ls=":", lw=1, label="chance (1 / vocabulary)")
    ax.set_xlabel("density: query-key pairs computed / n^2 (mean over layers)")
    ax.set_ylabel("held-out copy accuracy per token\n(mean, lowest to highest seed)")
    ax.set_xlim(0, 1.05)
    ax.legend(fontsize=7, ncol=2)
    verdicts = verdict_lines(read_table(snakemake.input.claims), "trained_models/sparsity", width=100)
    ax.set_title("\n".join([f"Copying against sparsity, n = {r['n']}, depth {r['depth']}, "
                            f"{df['seed_index'].nunique()} seeds (filled: at least one seed at the "
                            "target)", *verdicts]), fontsize=8)
    save(fig, snakemake.output.png, snakemake.output.pdf)
