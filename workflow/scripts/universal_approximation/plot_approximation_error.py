"""Figure: Monte-Carlo L^p error of the constructed transformers against the grid spacing."""

import numpy as np
from matplotlib.lines import Line2D

from expressivity.approximation_rate import derived_slope, in_asymptotic_range, two_term_error
from expressivity.io import read_table
from expressivity.joblog import job_log
from expressivity.plotting import PALETTE, figure, save

job_log(snakemake)
df = read_table(snakemake.input.approximation)
df = df[df["status"] == "computed"]
series = sorted(set(zip(df["d"], df["n"], strict=True)))
ROUTES = {"yun": ("Yun et al. (δ^-d + 1 attention layers + value layers)", PALETTE[0]),
          "kajitsuka_sato": ("Kajitsuka & Sato (3 layers)", PALETTE[3]),
          "yun_positional": ("Yun et al. with positional encoding", PALETTE[2]),
          "yun_sparse_star": ("the same under STAR attention (Yun et al. 2020b)", PALETTE[4]),
          "yun_sparse_strided": ("the same under STRIDED attention", PALETTE[5])}
TARGETS = {"sin_mean": "o", "softmax_average": "s", "weighted_shift": "^"}

with figure(len(series), 2, figsize=(9.5, 3.3 * len(series) + 0.4),
            squeeze=False) as (fig, axes):
    for row, (d, n) in zip(axes, series, strict=True):
        part_d = df[(df["d"] == d) & (df["n"] == n)]
        for ax, p in zip(row, (1, 2), strict=True):
            near = [x for x in sorted(set(part_d["delta"])) if in_asymptotic_range(x, n, d)]
            if near:
                ax.axvspan(min(near) / 1.1, max(near) * 1.1, color="0.93", zorder=0)
            for (target, route), part in part_d.groupby(["target", "route"], sort=False):
                part = part.sort_values("delta")
                colour = ROUTES[route][1]
                ax.errorbar(part["delta"], part[f"L{p}"], yerr=2 * part[f"L{p}_se"],
                            marker=TARGETS[target], ms=3.5, lw=1, capsize=2, color=colour,
                            mfc="white" if target == "softmax_average" else colour)
                # the derived rate, through the finest point
                s = derived_slope(route, d, p)
                x0, y0 = part["delta"].iloc[0], part[f"L{p}"].iloc[0]
                xs = np.array([x0, part["delta"].iloc[-1]])
                ax.plot(xs, y0 * (xs / x0) ** s, ls=":", lw=1.2, color=colour)
                if route == "yun":  # the two-term model from the target's own terms
                    ax.plot(part["delta"], two_term_error(
                        part["delta"], part[f"distinct_piecewise_L{p}"],
                        part[f"repeated_target_L{p}"], n, d, p), lw=6, alpha=0.25,
                        color=colour, solid_capstyle="round", zorder=1)
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.set_xlabel("grid spacing δ")
            ax.set_ylabel(f"Monte-Carlo L{p} error")
            ax.set_title(f"d = {d}, n = {n}, L{p}", fontsize=8)
            ax.text(0.02, 0.98, f"dotted, derived: {derived_slope('yun', d, p):g} (blue), 1 (others)",
                    transform=ax.transAxes, ha="left", va="top", fontsize=7)
    handles = ([Line2D([], [], color=c, lw=1.5, label=label) for r, (label, c) in ROUTES.items()
                if (df["route"] == r).any()]
               + [Line2D([], [], color="0.3", marker=mk, ls="none",
                         mfc="white" if t == "softmax_average" else "0.3", label=t)
                  for t, mk in TARGETS.items() if (df["target"] == t).any()]
               + [Line2D([], [], color="0.3", ls=":", label="derived slope, through the finest δ"),
                  Line2D([], [], color=ROUTES["yun"][1], lw=6, alpha=0.25,
                         label="two-term model (Yun et al.), from the target alone"),
                  Line2D([], [], color="0.85", lw=6, label="asymptotic range (fit)")])
    axes[0][-1].legend(handles=handles, loc="upper left", bbox_to_anchor=(1.02, 1.0),
                       fontsize=7)
    fig.suptitle("Constructed Transformers: error against δ (bars: ±2 Monte-Carlo s.e.)",
                 fontsize=10)
    save(fig, snakemake.output.png, snakemake.output.pdf)
