"""Figure: local log-log slopes of the median d_min between consecutive n, with bootstrap intervals,
against the references 1 / ln n, the log model's b / (a + b ln n) and the exact-rule reference's
slope."""

import numpy as np

from expressivity.io import read_table
from expressivity.joblog import job_log
from expressivity.plotting import MARKERS, PALETTE, figure, save

log = job_log(snakemake)
df = read_table(snakemake.input.local_slopes, ["series", "k", "quantity", "n_mid", "slope",
                                               "slope_lo", "slope_hi", "inverse_ln_n",
                                               "log_model_slope", "reference_slope"])
df = df[(df["series"] == "per-entry") & (df["quantity"] == "d_min")]
with figure(figsize=(6.8, 5.6)) as (fig, ax):
    for c, (k, sub) in enumerate(df.groupby("k")):
        colour = PALETTE[c % len(PALETTE)]
        shift = 1 + 0.04 * (c - 1)  # side by side at each n
        ax.errorbar(sub["n_mid"] * shift, sub["slope"],
                    yerr=[sub["slope"] - sub["slope_lo"], sub["slope_hi"] - sub["slope"]],
                    fmt=MARKERS[c], ms=4, color=colour, capsize=2,
                    label=f"k = {k}: median d_min (bootstrap interval)")
        ax.plot(sub["n_mid"], sub["log_model_slope"], "-", color=colour, lw=1,
                label=f"k = {k}: a + b ln n fitted to every n, b / (a + b ln n)")
        ax.plot(sub["n_mid"], sub["reference_slope"], ":", color=colour, lw=1.2,
                label=f"k = {k}: exact-rule reference")
    ref = df.drop_duplicates("n_mid").sort_values("n_mid")
    ax.plot(ref["n_mid"], ref["inverse_ln_n"], "--", color="black", lw=1, label="1 / ln n")
    ax.axhline(0, color="0.5", lw=0.6)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("sequence length n (between consecutive swept n)")
    ax.set_ylabel("local slope d ln d_min / d ln n")
    first = df.groupby("k")["slope"].first()
    last = df.groupby("k")["slope"].last()
    ax.set_title("Local log-log slope of d_min: " + ", ".join(
        f"k = {k}: {first[k]:.2f} to {last[k]:.2f}" for k in first.index), fontsize=9)
    ax.legend(fontsize=6, ncol=2, loc="upper center", bbox_to_anchor=(0.5, -0.16))
    ax.set_ylim(bottom=min(-0.05, float(np.nanmin(df["slope_lo"])) - 0.02))
    save(fig, snakemake.output.png, snakemake.output.pdf)
