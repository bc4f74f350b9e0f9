"""Figure: a corner of the row-normalised target, of the fixed module's attention at d_min < n and
their difference, on one colour scale, with one row on a log scale (numeric Figure 2)."""

import numpy as np
from matplotlib.colors import TwoSlopeNorm

from expressivity.io import read_table
from expressivity.joblog import job_log
from expressivity.plotting import PALETTE, figure, save

log = job_log(snakemake)
df = read_table(snakemake.input.example, ["i", "j", "kind", "n", "k", "d", "A_rownorm",
                                          "expB_rownorm", "attention", "row_off_mass", "ok"])
w = int(df["i"].max()) + 1
n, d, k, kind = int(df["n"].iloc[0]), int(df["d"].iloc[0]), int(df["k"].iloc[0]), df["kind"].iloc[0]
A = df["A_rownorm"].to_numpy().reshape(w, w)
M = df["attention"].to_numpy().reshape(w, w)
vmax = float(max(A.max(), M.max()))
diff = M - A
lim = float(np.abs(diff).max())
with figure(1, 4, figsize=(15, 3.9)) as (fig, axes):
    for ax, image, title in ((axes[0], A, "target rownorm(A)"),
                             (axes[1], M, f"attention of the fixed module, d = {d}")):
        shown = ax.imshow(image, cmap="viridis", vmin=0, vmax=vmax, interpolation="nearest")
        ax.set_title(title, fontsize=9)
        fig.colorbar(shown, ax=ax, fraction=0.046, pad=0.04, label="weight (same scale)")
    shown = axes[2].imshow(diff, cmap="RdBu_r", norm=TwoSlopeNorm(0, -lim, lim),
                           interpolation="nearest")
    axes[2].set_title("attention - target", fontsize=9)
    fig.colorbar(shown, ax=axes[2], fraction=0.046, pad=0.04)
    for ax in axes[:3]:
        ax.set_xlabel(f"key j (0..{w - 1} of {n})")
        ax.set_ylabel("query i")
        ax.grid(False)
    row = df[df["i"] == 0]
    ax = axes[3]
    on = row["A_rownorm"] > 0
    ax.semilogy(row["j"], row["attention"], "-", color=PALETTE[0], lw=1, label="attention M_0j")
    ax.semilogy(row["j"][on], row["A_rownorm"][on], "o", color=PALETTE[3], ms=5,
                label="target rownorm(A)_0j (zero elsewhere)")
    ax.semilogy(row["j"], row["expB_rownorm"], "--", color="black", lw=0.8,
                label="rownorm(exp(B))_0j")
    ax.set_xlabel(f"key j (0..{w - 1} of {n})")
    ax.set_ylabel("weight (log scale)")
    ax.set_title("query 0 on a log scale", fontsize=9)
    ax.legend(fontsize=6)
    mass = df.groupby("i")["row_off_mass"].first()
    fig.suptitle(f"{kind} target, n = {n}, k = {k}, d = {d} (d / n = {d / n:.2f}): these rows "
                 f"hold {100 * mass.min():.1f}-{100 * mass.max():.1f}% of their attention off "
                 f"the pattern (queries and keys 0..{w - 1} shown)", fontsize=9)
    save(fig, snakemake.output.png, snakemake.output.pdf)
