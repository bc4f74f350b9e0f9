"""Figure: parameters and total bits of our memorizer against N, next to reference orders of growth
and the counting bound."""

import numpy as np
from matplotlib.lines import Line2D
from matplotlib.ticker import NullFormatter

from expressivity.claims import verdict_lines
from expressivity.io import read_table
from expressivity.joblog import job_log
from expressivity.plotting import MARKERS, PALETTE, figure, save

log = job_log(snakemake)
df = read_table(snakemake.input[0], [
    "d", "V", "n", "N", "n_parameters", "bits_at_lam_mem", "bits_at_theory", "label_bits",
    "mem_lam", "slope_parameters", "slope_bits_lam_mem", "slope_bits_theory"])
ns, dims = sorted(set(df["n"])), sorted(set(df["d"]))
colour = {n: PALETTE[i % len(PALETTE)] for i, n in enumerate(ns)}
marker = {d: MARKERS[i % len(MARKERS)] for i, d in enumerate(dims)}
N = np.geomspace(df["N"].min(), df["N"].max(), 50)
d, n = int(df["d"].max()), int(df["n"].max())

with figure(2, 2, figsize=(11, 6.5), gridspec_kw={"height_ratios": [1, 0.22]}) as (fig, axes):
    params, bits = axes[0]
    for (dd, _, nn), g in df.groupby(["d", "V", "n"]):
        g = g.sort_values("N")
        params.plot(g["N"], g["n_parameters"], color=colour[nn], marker=marker[dd], ms=4, lw=0.8)
        bits.plot(g["N"], g["bits_at_lam_mem"], color=colour[nn], marker=marker[dd], ms=4, lw=0.8)
        bits.plot(g["N"], g["bits_at_theory"], color=colour[nn], marker=marker[dd], ms=4, lw=0.8,
                  ls="--", mfc="none")
    params.plot(N, d * n * N + d**2, color="black", ls="-.", lw=1)
    params.plot(N, d + n + np.sqrt(n * N), color="black", ls="--", lw=1)
    params.plot(N, np.sqrt(n * N), color="grey", ls=":", lw=1.2)
    for g_n, g in df.groupby("n"):
        g = g.drop_duplicates("N").sort_values("N")
        bits.plot(g["N"], g["label_bits"], color=colour[g_n], lw=3, alpha=0.4)
    params.set_title("parameters: ours (5d + 2nN) and orders of growth (constants 1)", fontsize=9)
    fig.suptitle("\n".join(verdict_lines(read_table(snakemake.input.claims),
                                         "memorization/parameter_counts")), fontsize=8)
    bits.set_title("total bits = parameters x log2(10) x digits needed", fontsize=9)
    params.set_ylabel("parameters")
    bits.set_ylabel("bits")
    for ax in (params, bits):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("number of sequences N")
        ax.xaxis.set_minor_formatter(NullFormatter())
    entries = [Line2D([], [], color=colour[x], lw=1.5, label=f"n = {x}") for x in ns]
    entries += [Line2D([], [], color="grey", marker=marker[x], ls="none", label=f"d = {x}")
                for x in dims]
    entries += [
        Line2D([], [], color="grey", marker="o", lw=0.8,
               label=f"bits at lam = {df['mem_lam'].iloc[0]:g} (the memorizer's lam)"),
        Line2D([], [], color="grey", marker="o", mfc="none", ls="--", lw=0.8,
               label="bits at lam_theory"),
        Line2D([], [], color="grey", lw=3, alpha=0.4,
               label="counting bound n N log2(classes), any memorizer (colour: n)"),
        Line2D([], [], color="black", ls="-.", lw=1,
               label=f"d n N + d^2: paper's construction, dense matrices (K&S 2025 Table 1; "
                     f"d={d}, n={n})"),
        Line2D([], [], color="black", ls="--", lw=1,
               label=f"Kim et al. 2023: d + n + sqrt(nN) parameters (d={d}, n={n})"),
        Line2D([], [], color="grey", ls=":", lw=1.2,
               label=f"optimal sqrt(nN) parameters (K&S 2025; n={n})"),
    ]
    grid = axes[1, 0].get_gridspec()
    for ax in axes[1]:
        ax.remove()
    key_ax = fig.add_subplot(grid[1, :])
    key_ax.axis("off")
    key_ax.legend(handles=entries, loc="center", ncol=3, fontsize=7)
    save(fig, snakemake.output.png, snakemake.output.pdf)
