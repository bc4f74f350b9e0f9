"""Figure: the dimension-norm frontier. One panel per k: the smallest d optimised inputs reach
under each logit budget Lam / gamma against n, with the lower bound each budget implies; then d
against the budget at fixed target (each problem over its target's geometric mean), with the
packing bound's slope and the two alternatives; last, the budget the unbounded constructions
(circle, moment curve) need against n, above the frontier's budgets."""

import math

import numpy as np
from matplotlib.ticker import FixedLocator, NullLocator

from expressivity.claims import verdict_lines
from expressivity.claims.sparse_approximation.frontier import BAND, elasticity
from expressivity.io import read_table
from expressivity.joblog import job_log
from expressivity.plotting import MARKERS, PALETTE, figure, log2_axis, save

log = job_log(snakemake)
df = read_table(snakemake.input.frontier,
                ["n", "k", "trial", "criterion", "budget", "d_opt", "opt_found", "d_lower",
                 "d_max"])
un = read_table(snakemake.input.frontier_unbounded,
                ["n", "k", "criterion", "construction", "d", "budget_needed", "ok"])
found = df[df["opt_found"].astype(str) == "True"]
ks, ns = sorted(df["k"].unique()), sorted(df["n"].unique())
budgets = sorted(df["budget"].unique())
colour = {b: PALETTE[i % len(PALETTE)] for i, b in enumerate(budgets)}
#: The criteria in the order they are drawn: per-entry solid and filled, mass dotted and hollow.
CRITERIA = [c for c in ("per-entry", "mass") if c in set(df["criterion"])]


with figure(1, len(ks) + 2, figsize=(4.4 * (len(ks) + 2), 5.4)) as (fig, axes):
    for c, k in enumerate(ks):
        ax = axes[c]
        for b in budgets:
            for m, criterion in enumerate(CRITERIA):
                sub = found[(found["k"] == k) & (found["budget"] == b)
                            & (found["criterion"] == criterion)]
                if sub.empty:
                    continue
                med = sub.groupby("n")["d_opt"].median()
                ax.plot(med.index, med, "-" if m == 0 else ":", marker=MARKERS[m], ms=4.5,
                        color=colour[b], mfc="none" if criterion == "mass" else None,
                        label=f"Lam/gamma = {b:g}" if m == 0 else None)
            lower = df[(df["k"] == k) & (df["budget"] == b)].groupby("n")["d_lower"].median()
            ax.plot(lower.index, lower, "--", color=colour[b], lw=0.8, alpha=0.7)
        lost = df[(df["k"] == k) & (df["opt_found"].astype(str) != "True")]
        if not lost.empty:
            ax.plot(lost["n"], lost["d_max"], "^", color="black", ms=6,
                    label="not reached up to d_max (censored)")
        log2_axis(ax, ns)
        ax.set_yscale("log")
        ticks = [v for v in (2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256)
                 if v <= 1.2 * df.loc[df["k"] == k, "d_max"].max()]
        ax.yaxis.set_major_locator(FixedLocator(ticks))
        ax.yaxis.set_minor_locator(NullLocator())
        ax.set_yticklabels([str(v) for v in ticks])
        ax.set_ylabel("smallest d reached (optimised inputs)")
        ax.set_title(f"k = {k}: solid filled = per-entry, dotted hollow = mass criterion;\n"
                     "dashed: the lower bound the budget implies", fontsize=8.5)
        ax.legend(fontsize=6.5, loc="upper left", ncol=2)
    # d against the budget at fixed target: the elasticity the claim tests
    ax = axes[len(ks)]
    x_all = np.log1p(2 * np.array(budgets))
    titles = []
    for m, criterion in enumerate(CRITERIA):
        sub = found[found["criterion"] == criterion]
        cells = (sub["k"].astype(str) + "/" + sub["n"].astype(str) + "/"
                 + sub["trial"].astype(str)).to_numpy()
        y = np.log(sub["d_opt"].to_numpy(float))
        x = np.log(np.log1p(2 * sub["budget"].to_numpy(float)))
        _, idx = np.unique(cells, return_inverse=True)
        rel_y = y - (np.bincount(idx, weights=y) / np.bincount(idx))[idx]
        rel_x = x - (np.bincount(idx, weights=x) / np.bincount(idx))[idx]
        ax.scatter(np.exp(x), np.exp(rel_y), s=14, marker=MARKERS[m], alpha=0.6,
                   facecolors="none" if criterion == "mass" else PALETTE[m], edgecolors=PALETTE[m],
                   label=f"{criterion}: one problem over its target's mean")
        if sub["budget"].nunique() >= 2:
            slope, se, dof = elasticity(cells, x, y)
            titles.append(f"{criterion} {float(slope):.2f} ± {2 * float(se):.2f}")
    grid = np.geomspace(x_all.min(), x_all.max(), 50)
    centre = math.exp(np.log(x_all).mean())
    for law, style, text in ((lambda g: (g / centre) ** -1.0, "-", "packing bound: elasticity -1"),
                             (lambda g: np.ones_like(g), ":", "d independent of the budget"),
                             (lambda g: ((np.expm1(g) / 2) / (np.expm1(centre) / 2)) ** -1.0,
                              "--", "linear trade d ~ gamma / Lam")):
        ax.plot(grid, law(grid), style, color="black", lw=1, label=text)
    ax.fill_between(grid, (grid / centre) ** BAND[0], (grid / centre) ** BAND[1], color="grey",
                    alpha=0.12, lw=0, label=f"elasticity band {BAND}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.xaxis.set_major_locator(FixedLocator(x_all))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xticklabels([f"{v:.2g}" for v in x_all], fontsize=7)
    ax.yaxis.set_major_locator(FixedLocator([0.25, 0.5, 1, 2, 4]))
    ax.yaxis.set_minor_locator(NullLocator())
    ax.set_yticklabels(["1/4", "1/2", "1", "2", "4"])
    ax.set_xlabel("ln(1 + 2 Lam / gamma)   (budgets " + ", ".join(f"{b:g}" for b in budgets) + ")")
    ax.set_ylabel("d / geometric mean of its target's d")
    ax.set_title("d against the budget at fixed target;\nelasticity (± 2 se): "
                 + "; ".join(titles), fontsize=8.5)
    ax.legend(fontsize=6.5, loc="lower left")
    # the unbounded constructions' budget against n
    ax = axes[-1]
    for m, ((name, _), sub) in enumerate(un.groupby(["construction", "k"])):
        for criterion, part in sub.groupby("criterion"):
            part = part.groupby("n")["budget_needed"].median()
            ax.plot(part.index, part, "-" if criterion == "per-entry" else ":",
                    marker=MARKERS[m], ms=4.5, color=PALETTE[(m + 3) % len(PALETTE)],
                    mfc="none" if criterion == "mass" else None,
                    label=f"{name}, d = {int(sub['d'].iloc[0])} ({criterion})")
    ax.axhspan(min(budgets), max(budgets), color="grey", alpha=0.15, lw=0,
               label="the frontier's budgets")
    ax.set_yscale("log")
    log2_axis(ax, sorted(un["n"].unique()))
    ax.set_ylabel("budget Lam / gamma the construction needs")
    ax.set_title("Without a bound on the logits (d = 2 and 2k):\nthe budget of each construction",
                 fontsize=8.5)
    ax.legend(fontsize=6.5, loc="upper left")
    verdicts = verdict_lines(read_table(snakemake.input.claims), "sparse_approximation/frontier")
    fig.suptitle("\n".join([f"The dimension-norm frontier (n = {min(ns)} to {max(ns)}): the "
                            "smallest d under a logit budget Lam", *verdicts]), fontsize=9)
    save(fig, snakemake.output.png, snakemake.output.pdf)
