"""Figure: L^1 error against the number of layers (top) and against the total bits of the
parameters (bottom), Yun et al.'s route and the three-layer route, one column per series (d, n)."""

from matplotlib.lines import Line2D

from expressivity.io import read_table
from expressivity.joblog import job_log
from expressivity.plotting import PALETTE, figure, save

job_log(snakemake)
df = read_table(snakemake.input.approximation)
df = df[df["status"] == "computed"]
series = sorted(set(zip(df["d"], df["n"], strict=True)))
#: The x axes: layers, and parameters times the bits each needs (the three-layer route's bits
#: are those of its smallest context gap; Yun et al.'s those of its largest integer).
AXES = {"layers_total": "layers (quantization, attention, value mapping)",
        "bits": "bits (parameters x bits per parameter)"}
ROUTES = {"yun": ("Yun et al.", PALETTE[0]), "kajitsuka_sato": ("Kajitsuka & Sato", PALETTE[3]),
          "yun_positional": ("Yun et al., positional", PALETTE[2]),
          "yun_sparse_star": ("Yun et al., positional, STAR", PALETTE[4]),
          "yun_sparse_strided": ("Yun et al., positional, STRIDED", PALETTE[5])}
TARGETS = {"sin_mean": "o", "softmax_average": "s", "weighted_shift": "^"}

with figure(2, len(series), figsize=(4.0 * len(series) + 2.0, 7.6), sharey=True,
            squeeze=False) as (fig, axes):
    for row, (x, label) in zip(axes, AXES.items(), strict=True):
        for ax, (d, n) in zip(row, series, strict=True):
            part_d = df[(df["d"] == d) & (df["n"] == n)].dropna(subset=[x])
            # equal delta: the two routes joined by a grey segment
            for _, pair in part_d.groupby(["target", "inv_delta"]):
                pair = pair.set_index("route")
                if {"yun", "kajitsuka_sato"} <= set(pair.index):
                    ax.plot(pair.loc[["kajitsuka_sato", "yun"], x],
                            pair.loc[["kajitsuka_sato", "yun"], "L1"], color="0.8", lw=0.6,
                            zorder=1)
            for (target, route), part in part_d.groupby(["target", "route"], sort=False):
                part = part.sort_values("delta", ascending=False)
                colour = ROUTES[route][1]
                ax.errorbar(part[x], part["L1"], yerr=2 * part["L1_se"], ls="-",
                            lw=0.8, marker=TARGETS[target], ms=3.5, capsize=2, color=colour,
                            mfc="white" if target == "softmax_average" else colour, zorder=2)
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlabel(label)
            ax.set_title(f"d = {d}, n = {n}", fontsize=10)
        row[0].set_ylabel("Monte-Carlo L1 error (±2 s.e.)")
    handles = ([Line2D([], [], color=c, lw=1.5, label=label) for r, (label, c) in ROUTES.items()
                if (df["route"] == r).any()]
               + [Line2D([], [], color="0.3", marker=mk, ls="none",
                         mfc="white" if t == "softmax_average" else "0.3", label=t)
                  for t, mk in TARGETS.items() if (df["target"] == t).any()]
               + [Line2D([], [], color="0.8", lw=0.8, label="same δ, both routes")])
    axes[0][-1].legend(handles=handles, loc="upper left", bbox_to_anchor=(1.02, 1.0),
                       fontsize=7)
    fig.suptitle("Depth and precision for equal δ: three layers against thousands, bought with "
                 "the bits of the smallest context gap", fontsize=10)
    save(fig, snakemake.output.png, snakemake.output.pdf)
