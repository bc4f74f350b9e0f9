"""Figure: the smallest working inverse temperature against n next to the two sufficient bounds
(a), and their tightness ratios (b); medians with the range over trials."""

import numpy as np

from expressivity.io import read_table
from expressivity.joblog import job_log
from expressivity.plotting import MARKERS, PALETTE, figure, save

log = job_log(snakemake)
df = read_table(snakemake.input[0], ["n", "trial", "beta_sufficient", "beta_sharp",
                                     "beta_empirical"])
inst = df.groupby(["n", "trial"]).first().reset_index()
series = (("beta_empirical", "smallest working β (measured)", PALETTE[2], 1.0),
          ("beta_sharp", "sharp bound: Σ_j e^(-β g_ij) D_ij < s_i/2", PALETTE[0], 1.08),
          ("beta_sufficient", "sufficient bound: 2(n-1) e^(-β g_i) < s_i/2", PALETTE[3], 1.16))
with figure(1, 2, figsize=(10, 4.2)) as (fig, (ax, bx)):
    for (column, label, colour, offset), marker in zip(series, MARKERS, strict=False):
        g = inst.groupby("n")[column]
        med, lo, hi = g.median(), g.min(), g.max()
        ax.errorbar(med.index * offset, med, yerr=[med - lo, hi - med], color=colour,
                    marker=marker, ms=4, capsize=3, label=label)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("number of unit vectors n (d = ceil(log2 n)²)")
    ax.set_ylabel("inverse temperature β")
    ax.set_title("(a) β reaching 100%: median, range over trials", fontsize=9)
    top = float(inst[[c for c, *_ in series]].to_numpy().max())
    ax.set_ylim(top=top * 10**2.5)  # room above the data for the legend
    ax.legend(fontsize=7, loc="upper left")
    for (column, _, colour, offset), marker in zip(series[1:], MARKERS[1:], strict=False):
        ratio = inst[column] / inst["beta_empirical"]
        bx.scatter(inst["n"] * offset, ratio, s=12, color=colour, marker=marker, alpha=0.6)
        med = ratio.groupby(inst["n"]).median()
        bx.plot(med.index * offset, med, color=colour, marker=marker,
                label=f"{column.removeprefix('beta_')} / measured (median)")
    bx.axhline(1, color="black", ls="--", lw=1, label="tight (ratio 1)")
    bx.set_xscale("log", base=2)
    bx.set_yscale("log")
    bx.set_ylim(0.5, 10 ** np.ceil(np.log10(max(2.0, float((inst["beta_sufficient"]
                                                          / inst["beta_empirical"]).max())))))
    bx.set_xlabel("number of unit vectors n")
    bx.set_ylabel("bound / smallest working β")
    bx.set_title("(b) tightness of the bounds (points: trials)", fontsize=9)
    bx.legend(fontsize=7, loc="upper left")
    save(fig, snakemake.output.png, snakemake.output.pdf)
