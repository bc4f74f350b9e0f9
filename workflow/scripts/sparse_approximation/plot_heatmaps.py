"""Figure: A, row-normalised exp(B) and the fixed module's attention (numeric Figure 2)."""

from expressivity.io import read_table
from expressivity.joblog import job_log
from expressivity.plotting import figure, save

log = job_log(snakemake)
df = read_table(snakemake.input.example, ["i", "j", "A", "expB_rownorm", "attention", "d", "k"])
n = int(df["i"].max()) + 1
d, k = int(df["d"].iloc[0]), int(df["k"].iloc[0])
panels = [("A", "target A"), ("expB_rownorm", "rownorm exp(B)"),
          ("attention", f"attention, d = {d}")]
with figure(1, 3, figsize=(10, 3.6)) as (fig, axes):
    for ax, (col, title) in zip(axes, panels, strict=True):
        image = ax.imshow(df[col].to_numpy().reshape(n, n), cmap="viridis", interpolation="nearest")
        ax.set_title(title)
        ax.set_xlabel("key j")
        ax.set_ylabel("query i")
        ax.grid(False)
        fig.colorbar(image, ax=ax, fraction=0.046, pad=0.04)
    fig.suptitle(f"n = {n}, k = {k}: same W_Q, W_K for every target, only X changes",
                 fontsize=10)
    save(fig, snakemake.output.png, snakemake.output.pdf)
