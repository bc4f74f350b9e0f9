"""Figure: parameter counts of our memorizer against N, next to reference orders of growth."""

import numpy as np

from expressivity.io import read_table
from expressivity.joblog import job_log
from expressivity.plotting import MARKERS, PALETTE, figure, save

log = job_log(snakemake)
df = read_table(snakemake.input[0], ["d", "V", "n", "N", "n_parameters", "kim2023_order",
                                     "optimal_order", "series_slope"])
with figure(figsize=(6.5, 4.5)) as (fig, ax):
    for i, ((d, n), g) in enumerate(df.groupby(["d", "n"])):
        g = g.sort_values("N")
        ax.plot(g["N"], g["n_parameters"], color=PALETTE[i % len(PALETTE)],
                marker=MARKERS[i % len(MARKERS)], ms=4, lw=1,
                label=f"ours (4d + d + 2nN), d={d}, n={n}; slope "
                      f"{g['series_slope'].min():.3f}-{g['series_slope'].max():.3f}")
    N = np.logspace(np.log10(df["N"].min()), np.log10(df["N"].max()), 50)  # noqa: N816
    d, n = int(df["d"].max()), int(df["n"].max())
    ax.plot(N, d + n + np.sqrt(n * N), color="black", ls="--",
            label=f"Kim et al. 2023 order d + n + sqrt(nN) (constants 1; d={d}, n={n})")
    ax.plot(N, np.sqrt(n * N), color="grey", ls=":",
            label=f"optimal order sqrt(nN) (Kajitsuka & Sato 2025; constant 1, n={n})")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("number of sequences N")
    ax.set_ylabel("parameters")
    ax.set_title("One-layer rank-1 memorizer: parameters linear in N (reference curves: orders "
                 "of growth only)", fontsize=8)
    ax.legend(fontsize=6)
    save(fig, snakemake.output.png, snakemake.output.pdf)
