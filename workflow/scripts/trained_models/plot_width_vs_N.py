"""Figure: smallest trained FFN width against N (every width cell tried, by verdict), its log-log
fit with the slope's interval, and the construction's width n N."""

import numpy as np

from expressivity.claims.trained_models import width_slope
from expressivity.io import read_table
from expressivity.joblog import job_log
from expressivity.plotting import PALETTE, figure, save
from expressivity.training_protocol import MIXED, PLATEAUS, REACHES, UNDECIDED

log = job_log(snakemake)
df = read_table(snakemake.input[0], ["N", "width", "cell_verdict", "minimal_width",
                                     "minimal_width_decided", "construction_ffn_width"])
cells = df.groupby(["N", "width"], as_index=False).first()
per_n = df.groupby("N", as_index=False).first()
marks = {REACHES: ("o", PALETTE[2]), PLATEAUS: ("v", PALETTE[3]), MIXED: ("D", PALETTE[4]),
         UNDECIDED: ("x", "grey")}
with figure(figsize=(6.6, 4.4)) as (fig, ax):
    ax.plot(per_n["N"], per_n["construction_ffn_width"], color=PALETTE[0], marker="s",
            label="construction (Zhang et al. FFN): n N hidden units")
    for verdict, (marker, color) in marks.items():
        part = cells[cells["cell_verdict"] == verdict]
        if len(part):
            ax.scatter(part["N"], part["width"], marker=marker, color=color, s=18, zorder=3,
                       label=f"width tried: {verdict}")
    found = per_n[per_n["minimal_width"].notna()]
    ax.plot(found["N"], found["minimal_width"], color=PALETTE[1], lw=1.5,
            label="smallest width reaching 100 % (every seed)")
    fit = width_slope(df)
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
    ax.set_title(f"FFN width needed to memorize: training ({df['seed_index'].nunique()} seeds) "
                 "versus construction", fontsize=10)
    ax.legend(fontsize=7)
    save(fig, snakemake.output.png, snakemake.output.pdf)
