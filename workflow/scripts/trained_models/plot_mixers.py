"""Figure: counting-task accuracy against the number of attention layers kept."""

from expressivity.io import read_table
from expressivity.joblog import job_log
from expressivity.plotting import MARKERS, PALETTE, figure, save

log = job_log(snakemake)
df = read_table(snakemake.input[0], ["alternative", "attention_layers", "accuracy"])
full = df[df["alternative"] == "attention"]
with figure() as (fig, ax):
    for i, (alt, part) in enumerate(df[df["alternative"] != "attention"].groupby("alternative")):
        part = part.sort_values("attention_layers")
        x = list(part["attention_layers"]) + list(full["attention_layers"])
        y = list(part["accuracy"]) + list(full["accuracy"])
        ax.plot(x, y, color=PALETTE[i], marker=MARKERS[i],
                label=f"{alt} layers + attention on top")
    ax.scatter(full["attention_layers"], full["accuracy"], color="black", zorder=3,
               label="all self-attention")
    ax.set_xticks(sorted(df["attention_layers"].unique()))
    ax.set_xlabel(f"self-attention layers kept (of {df['depth'].iloc[0]})")
    ax.set_ylabel("held-out accuracy (count of each token)")
    ax.set_title("Toy version of Yun et al. 2020a, Sec. 5 (qualitative)", fontsize=10)
    ax.legend(fontsize=8)
    save(fig, snakemake.output.png, snakemake.output.pdf)
