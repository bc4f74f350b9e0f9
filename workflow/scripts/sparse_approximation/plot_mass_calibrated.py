"""Figure: d_min with the off-support mass bounded (eps_zero = eps / n) against the per-entry
criterion on the same targets and projections: d_min against ln n, the paired ratio with the ratio
of the exact-rule references, and d_min over the mass-calibrated exact-rule reference."""

import numpy as np

from expressivity.io import read_table
from expressivity.joblog import job_log
from expressivity.plotting import MARKERS, PALETTE, figure, save

log = job_log(snakemake)
cols = ["n", "k", "trial", "d_min"]
sweep = read_table(snakemake.input.sweep, cols)
mass = read_table(snakemake.input.mass, [*cols, "eps_mass"])
med = read_table(snakemake.input.medians, ["series", "k", "n", "d_min", "d_min_lo", "d_min_hi",
                                           "d_ref", "d_min_over_ref", "d_min_over_ref_lo",
                                           "d_min_over_ref_hi"])
flat = read_table(snakemake.input.flatness, ["series", "k", "quantity", "by", "fit_on",
                                             "rel_slope", "rel_slope_lo", "rel_slope_hi",
                                             "rel_slope_se", "margin"])
eps = float(mass["eps_mass"].iloc[0])
paired = mass.merge(sweep, on=["n", "k", "trial"], suffixes=("", "_per_entry"))
paired["ratio"] = paired["d_min"] / paired["d_min_per_entry"]
refs = med.pivot_table(index=["k", "n"], columns="series", values="d_ref")
ref_ratio = (refs["mass-calibrated"] / refs["per-entry"]).dropna()


def bars(ax, m, col, colour, marker, label, ls="-"):
    ax.errorbar(np.log(m["n"]), m[col], yerr=[m[col] - m[f"{col}_lo"], m[f"{col}_hi"] - m[col]],
                fmt=ls + marker, ms=4, color=colour, capsize=2, label=label)


with figure(1, 3, figsize=(13, 4.2)) as (fig, axes):
    a, b, c = axes
    for i, k in enumerate(sorted(mass["k"].unique())):
        for series, colour, ls in (("per-entry", PALETTE[0], "--"),
                                   ("mass-calibrated", PALETTE[3], "-")):
            m = med[(med["series"] == series) & (med["k"] == k) & med["n"].isin(mass["n"])]
            bars(a, m, "d_min", colour, MARKERS[i], f"{series}, k = {k}: median d_min", ls)
        m = med[(med["series"] == "mass-calibrated") & (med["k"] == k)]
        bars(c, m, "d_min_over_ref", PALETTE[3], MARKERS[i],
             f"k = {k}: median d_min / d_ref (bootstrap interval)")
        p = paired[paired["k"] == k]
        b.scatter(np.log(p["n"]), p["ratio"], s=8, color=PALETTE[3], alpha=0.4, marker=MARKERS[i],
                  label=f"k = {k}: trials (same target and G)")
        pm = p.groupby("n")["ratio"].median()
        b.plot(np.log(pm.index), pm, "-" + MARKERS[i], color=PALETTE[3], ms=4,
               label=f"k = {k}: median")
        rr = ref_ratio.loc[k] if k in ref_ratio.index.get_level_values(0) else None
        if rr is not None:
            b.plot(np.log(rr.index), rr, ":", color="black", lw=1.2,
                   label=f"k = {k}: ratio of the exact-rule references (no fitted constant)")
        s = flat[(flat["series"] == "mass-calibrated") & (flat["k"] == k)
                 & (flat["quantity"] == "d_min") & (flat["fit_on"] == "all")]
        for by, ax in (("per-entry", b), ("exact rule", c)):
            row = s[s["by"] == by]
            if not row.empty:
                r = row.iloc[0]
                extra = (f" (margin +-{100 * r['margin']:.1f}%)" if by == "exact rule" else "")
                ax.text(0.02, 0.97 - 0.07 * i, f"k = {k}: slope {100 * r['rel_slope']:+.1f}% per "
                        f"unit ln n [{100 * r['rel_slope_lo']:+.1f}, {100 * r['rel_slope_hi']:+.1f}]"
                        + extra, transform=ax.transAxes, fontsize=7, va="top")
    a.set_ylabel("median d_min")
    b.set_ylabel("d_min(mass-calibrated) / d_min(per-entry)")
    c.set_ylabel("d_min / d_ref (mass-calibrated)")
    c.axhline(1.0, color="0.3", lw=0.8, ls=":")
    c.set_ylim(bottom=0)
    for ax, where in zip(axes, ("upper left", "lower right", "lower right"), strict=True):
        ax.set_xlabel("ln n")
        ax.legend(fontsize=6, loc=where)
    top = paired[paired["n"] == paired["n"].max()]
    low = paired[paired["n"] == paired["n"].min()]
    fig.suptitle(f"Bounding the off-support mass by eps = {eps:g} (eps_zero = eps / n) multiplies "
                 f"d_min by {low['ratio'].median():.1f} at n = {int(low['n'].iloc[0])} and "
                 f"{top['ratio'].median():.1f} at n = {int(top['n'].iloc[0])}", fontsize=9)
    save(fig, snakemake.output.png, snakemake.output.pdf)
