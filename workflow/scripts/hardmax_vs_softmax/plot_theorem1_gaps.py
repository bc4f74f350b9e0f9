"""Figure: output differences at the shared tokens against the weight scale, hardmax versus
softmax (a); why softmax gaps fall below float64 resolution: they follow the interior weight (b)."""

import numpy as np

from expressivity.io import read_table
from expressivity.joblog import job_log
from expressivity.plotting import PALETTE, figure, save

log = job_log(snakemake)
df = read_table(snakemake.input[0], ["weight_scale", "gap_hardmax", "bound_hardmax",
                                     "gap_softmax", "bound_softmax", "log10_gap_softmax",
                                     "softmax_certificate", "log10_interior_weight"])
scales = sorted(df["weight_scale"].unique())
jitter = np.random.default_rng(0).uniform(-0.15, 0.15, len(df))  # fixed: same figure every run
x = df["weight_scale"].map({s: i for i, s in enumerate(scales)}).to_numpy() + jitter
positive = np.concatenate([df.loc[df[c] > 0, c].to_numpy() for c in ("gap_hardmax", "gap_softmax")])
bottom = 10.0 ** (np.floor(np.log10(positive.min())) - 2) if positive.size else 1e-20
zero_row = bottom * 10  # exact zeros are drawn on this row, labelled 0

with figure(1, 2, figsize=(11, 4.4)) as (fig, (ax, bx)):
    for name, colour, marker, dx in (("hardmax", "0.45", "x", -0.2), ("softmax", PALETTE[0], "o", 0.2)):
        gap = df[f"gap_{name}"].to_numpy()
        y = np.where(gap > 0, gap, zero_row)
        ax.scatter(x + dx, y, s=7, marker=marker, color=colour, alpha=0.5, lw=0.8,
                   label=f"{name} ({int((gap == 0).sum())} of {len(gap)} exactly 0)")
    for i, s in enumerate(scales):
        part = df[df["weight_scale"] == s]
        bound = float(part["bound_softmax"].median())
        ax.plot([i + 0.02, i + 0.38], [bound, bound], color="black", lw=1.2)
        above = int((part["gap_softmax"] > part["bound_softmax"]).sum())
        ax.annotate(f"{above}/{len(part)}", (i + 0.2, 30), ha="center", fontsize=7,
                    color=PALETTE[0])  # above the data (gaps are at most about 10)
    ax.plot([], [], color="black", lw=1.2, label="softmax float64 rounding bound (median)")
    ax.axhline(zero_row * 3, color="0.6", lw=0.6, ls=":")
    ax.set_yscale("log")
    ax.set_ylim(bottom, 1e9)  # room above the data for the counts and the legend
    ticks = [t for t in 10.0 ** np.arange(np.log10(zero_row) + 2, 2, 2)]
    ax.set_yticks([zero_row, *ticks], ["0", *[f"$10^{{{int(np.log10(t))}}}$" for t in ticks]])
    ax.set_xticks(range(len(scales)), [f"{s:g}" for s in scales])
    ax.set_xlabel("weight scale (standard deviation of every weight)")
    ax.set_ylabel("max output difference at tokens 1 and 5")
    ax.set_title("(a) gaps; numbers: softmax draws above the bound", fontsize=9)
    ax.legend(fontsize=7, loc="upper left", ncol=2)

    live = df[df["weight_scale"] > 0]
    exact64 = live["softmax_certificate"] == "float64"
    zero64 = live["gap_softmax"] == 0
    groups = ((exact64, PALETTE[0], "o", "resolved in float64"),
              (~exact64 & ~zero64, PALETTE[1], "s", "below float64 resolution, certified in arb"),
              (~exact64 & zero64, PALETTE[3], "D", "exactly 0 in float64, certified in arb"))
    for mask, colour, marker, label in groups:
        part = live[mask]
        bx.scatter(part["log10_interior_weight"], part["log10_gap_softmax"], s=9, marker=marker,
                   color=colour, alpha=0.6, label=f"{label} ({len(part)})")
    lo = float(min(live["log10_interior_weight"].min(), live["log10_gap_softmax"].min())) - 1
    bx.plot([lo, 1], [lo, 1], color="0.5", ls="--", lw=0.8, label="gap = interior weight")
    bx.set_xlabel("log10 largest softmax weight on an interior token")
    bx.set_ylabel("log10 softmax gap (certified)")
    bx.set_title("(b) the gap follows the interior weight (nonzero weights)", fontsize=9)
    bx.legend(fontsize=7, loc="upper left")
    fig.suptitle("Theorem 1 pair (1,2,4,5)e vs (1,2.5,3.5,5)e: output gaps of hardmax and softmax",
                 fontsize=10)
    save(fig, snakemake.output.png, snakemake.output.pdf)
