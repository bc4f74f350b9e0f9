"""Figure: smallest trained FFN width against N, next to the construction's width n N."""

from expressivity.io import read_table
from expressivity.joblog import job_log
from expressivity.plotting import PALETTE, figure, save

log = job_log(snakemake)
df = read_table(snakemake.input[0], ["N", "width", "reached", "construction_ffn_width"])
per_n = df.groupby("N").agg(construction=("construction_ffn_width", "first"),
                            tried=("max_width_tried", "first")).reset_index()
found = df[df["reached"].astype(bool)]
with figure() as (fig, ax):
    ax.plot(per_n["N"], per_n["construction"], color=PALETTE[0], marker="s",
            label="construction (Zhang et al. FFN): n N hidden units")
    ax.plot(found["N"], found["width"], color=PALETTE[1], marker="o",
            label="smallest width training fits to 100 %")
    missing = per_n[~per_n["N"].isin(found["N"])]
    if len(missing):
        ax.scatter(missing["N"], missing["tried"], color=PALETTE[3], marker="^", zorder=3,
                   label="not reached up to this width")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("number of sequences N")
    ax.set_ylabel("FFN width (hidden units)")
    ax.set_title("FFN width needed to memorize: training versus construction", fontsize=10)
    ax.legend(fontsize=8)
    save(fig, snakemake.output.png, snakemake.output.pdf)
