"""Figure: the smallest d of inputs optimised under the random construction's norm bound, against
the construction's d_min on the same targets, with the lower bounds the norm bound implies and the
d = 2 circle inputs that need no bound; last panel, the circle's scale (its largest logit) against n."""

import math

import numpy as np
from matplotlib.ticker import NullFormatter

from expressivity.claims import verdict_lines
from expressivity.io import read_table
from expressivity.joblog import job_log
from expressivity.plotting import MARKERS, PALETTE, figure, log2_axis, save

log = job_log(snakemake)
df = read_table(snakemake.input.optimised_inputs,
                ["n", "k", "trial", "eps_zero", "d_random", "d_opt", "opt_found", "d_lower_alon",
                 "d_lower_packing", "logit_bound", "circle_ok", "circle_scale", "random_over_opt"])
df = df[np.isfinite(df["d_random"].astype(float))]
ks = sorted(df["k"].unique())
ns = sorted(df["n"].unique())
gamma = -math.log(float(df["eps_zero"].iloc[0]))
found = df[df["opt_found"].astype(bool)]


def band(ax, sub, col, colour, marker, label, ls="-"):
    """Median over trials with the range (min to max) as bars, and the trials as dots."""
    g = sub.groupby("n")[col]
    med, lo, hi = g.median(), g.min(), g.max()
    ax.scatter(sub["n"], sub[col], s=9, color=colour, alpha=0.35, marker=marker, lw=0)
    ax.errorbar(med.index, med, yerr=[med - lo, hi - med], fmt=ls + marker, ms=4, color=colour,
                capsize=2, label=label)


with figure(1, len(ks) + 1, figsize=(4.6 * (len(ks) + 1), 5.6)) as (fig, axes):
    for c, k in enumerate(ks):
        ax = axes[c]
        sub, opt = df[df["k"] == k], found[found["k"] == k]
        band(ax, sub, "d_random", PALETTE[0], MARKERS[0],
             "random construction: d_min (median, range)")
        band(ax, opt, "d_opt", PALETTE[3], MARKERS[1],
             "optimised inputs, same norm bound: smallest d")
        lower = sub.groupby("n")[["d_lower_alon", "d_lower_packing"]].median()
        ax.plot(lower.index, lower["d_lower_alon"], "--", color="black", lw=1.2,
                label="lower bound: perturbed identity (Alon's argument)")
        ax.plot(lower.index, lower["d_lower_packing"], ":", color=PALETTE[2], lw=1.6,
                label="lower bound: packing")
        circle = sub[sub["circle_ok"].astype(str) == "True"]
        if not circle.empty:
            ax.plot(sorted(circle["n"].unique()), [2] * circle["n"].nunique(), "*", ms=9,
                    color=PALETTE[4], label="no norm bound: circle inputs, d = 2")
        log2_axis(ax, ns)
        ax.set_yscale("log")
        ax.yaxis.set_minor_formatter(NullFormatter())
        ax.set_ylim(0.8, 3 * float(sub["d_random"].max()))
        ax.set_ylabel("hidden size d")
        ratio = opt.groupby("n")["random_over_opt"].median()
        ax.set_title(f"k = {k}: optimised d from {opt['d_opt'].min():.0f} to "
                     f"{opt['d_opt'].max():.0f};\nthe random d_min is {ratio.min():.0f} to "
                     f"{ratio.max():.0f} times larger (medians per n)", fontsize=8.5)
        ax.legend(fontsize=6.5, loc="upper center", bbox_to_anchor=(0.5, -0.15))
    ax = axes[-1]
    perm = df[df["k"] == 1]
    if not perm.empty:
        s = perm.groupby("n")["circle_scale"].median()
        grid = np.geomspace(min(ns), max(ns), 50)
        ax.plot(s.index, s, MARKERS[0], color=PALETTE[4], ms=5,
                label="circle inputs at d = 2: scale s (largest logit)")
        ax.plot(grid, gamma * grid**2 / (2 * math.pi**2), "-", color="black", lw=0.9,
                label="gamma n² / (2 π²), gamma = log(1/eps_zero)")
        lam = perm.groupby("n")["logit_bound"].median()
        ax.plot(lam.index, lam, "-" + MARKERS[1], color=PALETTE[0], ms=4,
                label="random construction: logit bound r_q r_k")
        ax.set_yscale("log")
        ax.set_title(f"Largest logit of circle inputs (d = 2) without a norm bound:\n"
                     f"s = {s.iloc[-1]:.0f} at n = {int(s.index[-1])} against "
                     f"{lam.iloc[-1]:.2g} under the bound", fontsize=8.5)
        ax.legend(fontsize=6.5, loc="upper center", bbox_to_anchor=(0.5, -0.15))
    else:
        ax.text(0.5, 0.5, "no permutation target (k = 1):\nno circle inputs", ha="center",
                va="center", transform=ax.transAxes)
    log2_axis(ax, ns)
    ax.set_ylabel("largest logit |S_ij|")
    verdicts = verdict_lines(read_table(snakemake.input.claims), "sparse_approximation/optimised_inputs",
                             ("optimised_d_grows", "unbounded_circle_d2"))
    fig.suptitle("\n".join([f"Under the random construction's own norm bound: optimised d = "
                            f"{found['d_opt'].min():.0f} to {found['d_opt'].max():.0f} (n = {min(ns)} "
                            f"to {max(ns)}), the construction's d_min {df['d_random'].min():.0f} to "
                            f"{df['d_random'].max():.0f}", *verdicts]), fontsize=8.5)
    save(fig, snakemake.output.png, snakemake.output.pdf)
