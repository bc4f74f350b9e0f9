"""Figure: smallest FFN width at which training fits 100 % with some seed, against N (every width
cell tried, by existence, with its reliability), its log-log fit with the slope's interval, and the
construction's width n N. The title states the verdicts of the claims that name this figure."""

import numpy as np

from expressivity.claims import verdict_lines
from expressivity.claims.trained_models.width import WIDTH_GROWTH_MIN_N, width_slope
from expressivity.io import read_table
from expressivity.joblog import job_log
from expressivity.plotting import PALETTE, figure, save
from expressivity.training_protocol import EXISTS, NONE_EXISTS, UNDECIDED

log = job_log(snakemake)
df = read_table(snakemake.input.width_vs_N, [
    "N", "width", "cell_existence", "cell_reached", "cell_seeds", "minimal_width",
    "minimal_width_decided", "construction_ffn_width"
])
cells = df.groupby(["N", "width"], as_index=False).first()
per_n = df.groupby("N", as_index=False).first()
marks = {EXISTS: ("o", PALETTE[2], "some seed fits 100 %"),
         NONE_EXISTS: ("v", PALETTE[3], "every seed plateaus below 100 % after its decay"),
         UNDECIDED: ("x", "grey", "not evaluated (a seed at its budget)")}
with figure(figsize=(6.6, 4.4)) as (fig, ax):
    ax.plot(per_n["N"], per_n["construction_ffn_width"], color=PALETTE[0], marker="s",
            label="construction (Zhang et al. FFN): n N hidden units")
    for existence, (marker, color, meaning) in marks.items():
        part = cells[cells["cell_existence"] == existence]
        if len(part):
            ax.scatter(part["N"], part["width"], marker=marker, color=color, s=18, zorder=3,
                       label=f"width tried: {meaning}")
    for c in cells[cells["cell_existence"] == EXISTS].itertuples():
        ax.annotate(f"{c.cell_reached}/{c.cell_seeds}", (c.N, c.width), fontsize=6,
                    xytext=(4, -2), textcoords="offset points")
    found = per_n[per_n["minimal_width"].notna()]
    ax.plot(found["N"], found["minimal_width"], color=PALETTE[1], lw=1.5,
            label="smallest width found to fit 100 % (some seed; k/n: seeds that do)")
    fit = width_slope(df, WIDTH_GROWTH_MIN_N)
    if fit is not None:
        lo, hi = fit.slope_interval()
        x = np.geomspace(found["N"].min(), found["N"].max(), 50)
        ax.plot(x, np.exp(fit.predict(np.log(x))), color=PALETTE[1], ls="--", lw=1,
                label=f"fit: slope {fit.slope:.2f} (95 % interval {lo:.2f} to {hi:.2f})")
    ax.set_xscale("log")
    ax.set_yscale("log", base=2)
    ns = sorted(per_n["N"])
    ax.set_xticks(ns, [str(n) for n in ns])
    ax.minorticks_off()
    ax.set_xlabel("number of sequences N")
    ax.set_ylabel("FFN width (hidden units)")
    verdicts = verdict_lines(read_table(snakemake.input.claims), "trained_models/width_vs_N",
                             width=100)
    ax.set_title("\n".join([f"FFN width needed to memorize: training ({df['seed_index'].nunique()} "
                            "seeds, existence) versus construction", *verdicts]), fontsize=8)
    ax.legend(fontsize=7)
    save(fig, snakemake.output.png, snakemake.output.pdf)
