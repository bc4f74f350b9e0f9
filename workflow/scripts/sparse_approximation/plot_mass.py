"""Figure: the attention's off-support mass and row total variation at d_min against n, every trial,
under the per-entry criterion and the mass-calibrated one (eps_zero = eps / n)."""

import numpy as np

from expressivity.io import read_table
from expressivity.joblog import job_log
from expressivity.plotting import MARKERS, PALETTE, figure, save

log = job_log(snakemake)
cols = ["n", "k", "off_mass_mean", "off_mass_max", "tv_mean", "tv_max", "expB_off_mass_mean"]
sweep = read_table(snakemake.input.sweep, cols)
mass = read_table(snakemake.input.mass, [*cols, "eps_mass"])
med = read_table(snakemake.input.medians, ["series", "k", "n", "off_mass_mean", "tv_mean"])
eps = float(mass["eps_mass"].iloc[0])
panels = [("off_mass", "off-support attention mass (row mean)"),
          ("tv", "row total variation to rownorm(A) (row mean)")]
with figure(1, 2, figsize=(11, 4.4)) as (fig, axes):
    for ax, (what, label) in zip(axes, panels, strict=True):
        for series, df, fill in (("per-entry", sweep, True), ("mass-calibrated", mass, False)):
            for c, (k, sub) in enumerate(df.groupby("k")):
                colour = PALETTE[c % len(PALETTE)] if fill else PALETTE[3 + c % 3]
                ax.scatter(sub["n"], sub[f"{what}_mean"], s=9, marker=MARKERS[c], alpha=0.5,
                           color=colour if fill else "none", edgecolors=colour,
                           label=f"{series}, k = {k}: trials")
                m = med[(med["series"] == series) & (med["k"] == k)]
                ax.plot(m["n"], m[f"{what}_mean"], "-", color=colour, lw=1)
        if what == "off_mass":
            for c, (k, sub) in enumerate(sweep.groupby("k")):
                target = sub.groupby("n")["expB_off_mass_mean"].median()
                ax.plot(target.index, target.values, "--", color=PALETTE[c % len(PALETTE)],
                        lw=0.8, label=f"k = {k}: the construction's own target rownorm(exp(B))")
        ax.axhline(eps, color="black", lw=0.8, ls=":", label=f"eps = {eps:g} (mass bound)")
        ax.set_xscale("log", base=2)
        ax.set_ylim(0, 1.02)
        ax.set_xlabel("sequence length n")
        ax.set_ylabel(label)
        ax.legend(fontsize=6)
    top = sweep[sweep["n"] == sweep["n"].max()]
    fig.suptitle(f"Per-entry criterion: at n = {int(top['n'].iloc[0])} a row keeps "
                 f"{100 * np.median(top['off_mass_mean']):.1f}% of its attention off the pattern; "
                 f"with eps_zero = eps / n at most {100 * mass['off_mass_max'].max():.1f}%",
                 fontsize=9)
    save(fig, snakemake.output.png, snakemake.output.pdf)
