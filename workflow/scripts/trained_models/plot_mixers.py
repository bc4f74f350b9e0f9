"""Figure: counting-task accuracy against the number of attention layers kept (mean over seeds, bars
from the lowest to the highest seed), with the majority-class baseline."""

from expressivity.io import read_table
from expressivity.joblog import job_log
from expressivity.plotting import MARKERS, PALETTE, figure, save

log = job_log(snakemake)
df = read_table(snakemake.input[0], ["alternative", "attention_layers", "cell_accuracy_mean",
                                     "cell_accuracy_min", "cell_accuracy_max", "majority"])
cells = df.groupby(["alternative", "attention_layers"], as_index=False).first()
full = cells[cells["alternative"] == "attention"]


def bars(part):
    mean = part["cell_accuracy_mean"]
    return [mean - part["cell_accuracy_min"], part["cell_accuracy_max"] - mean]


with figure(figsize=(6.6, 4.4)) as (fig, ax):
    for i, (alt, part) in enumerate(cells[cells["alternative"] != "attention"]
                                    .groupby("alternative")):
        part = part.sort_values("attention_layers")
        ax.errorbar(part["attention_layers"], part["cell_accuracy_mean"], yerr=bars(part),
                    color=PALETTE[i], marker=MARKERS[i], capsize=3,
                    label=f"{alt} layers + attention on top"
                          + (f" (kernel {int(part['kernel'].iloc[0])})" if alt == "conv" else ""))
    ax.errorbar(full["attention_layers"], full["cell_accuracy_mean"], yerr=bars(full),
                color="black", marker="*", ms=9, capsize=3, ls="none", label="all self-attention")
    r = df.iloc[0]
    ax.axhline(r["majority"], color="black", ls=":", lw=1,
               label=f"majority class {r['majority']:.3f}")
    ax.axhline(r["target"], color="grey", ls="--", lw=1, label=f"target {r['target']:g}")
    ax.set_xticks(sorted(df["attention_layers"].unique()))
    ax.set_xlabel(f"self-attention layers kept (of {r['depth']})")
    ax.set_ylabel("held-out accuracy (count of each token)")
    ax.set_title(f"Toy version of Yun et al. 2020a, Sec. 5: {df['seed_index'].nunique()} seeds, "
                 f"at most {r['budget']} steps", fontsize=10)
    ax.legend(fontsize=7)
    save(fig, snakemake.output.png, snakemake.output.pdf)
