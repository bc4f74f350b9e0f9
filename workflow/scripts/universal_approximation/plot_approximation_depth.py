"""Figure: L^1 error against the number of layers, Yun et al.'s route and the three-layer route."""

from matplotlib.lines import Line2D

from expressivity.io import read_table
from expressivity.joblog import job_log
from expressivity.plotting import PALETTE, figure, save

job_log(snakemake)
df = read_table(snakemake.input.approximation)
df = df[df["status"] == "computed"]
ds = sorted(set(df["d"]))
ROUTES = {"yun": ("Yun et al.", PALETTE[0]), "kajitsuka_sato": ("Kajitsuka & Sato", PALETTE[3]),
          "yun_positional": ("Yun et al., positional", PALETTE[2])}
TARGETS = {"sin_mean": "o", "softmax_average": "s", "weighted_shift": "^"}

with figure(1, len(ds), figsize=(4.0 * len(ds) + 2.0, 4.0), sharey=True,
            squeeze=False) as (fig, axes):
    for ax, d in zip(axes[0], ds, strict=True):
        part_d = df[df["d"] == d]
        # equal delta: the two routes joined by a grey segment
        for _, pair in part_d.groupby(["target", "inv_delta"]):
            pair = pair.set_index("route")
            if {"yun", "kajitsuka_sato"} <= set(pair.index):
                ax.plot(pair.loc[["kajitsuka_sato", "yun"], "layers_total"],
                        pair.loc[["kajitsuka_sato", "yun"], "L1"], color="0.8", lw=0.6,
                        zorder=1)
        for (target, route), part in part_d.groupby(["target", "route"], sort=False):
            part = part.sort_values("delta", ascending=False)
            colour = ROUTES[route][1]
            ax.errorbar(part["layers_total"], part["L1"], yerr=2 * part["L1_se"], ls="-",
                        lw=0.8, marker=TARGETS[target], ms=3.5, capsize=2, color=colour,
                        mfc="white" if target == "softmax_average" else colour, zorder=2)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("layers (quantization, attention, value mapping)")
        ax.set_title(f"d = {d}, n = {int(part_d['n'].iloc[0])}", fontsize=10)
    axes[0][0].set_ylabel("Monte-Carlo L1 error (±2 s.e.)")
    handles = ([Line2D([], [], color=c, lw=1.5, label=label) for r, (label, c) in ROUTES.items()
                if (df["route"] == r).any()]
               + [Line2D([], [], color="0.3", marker=mk, ls="none",
                         mfc="white" if t == "softmax_average" else "0.3", label=t)
                  for t, mk in TARGETS.items() if (df["target"] == t).any()]
               + [Line2D([], [], color="0.8", lw=0.8, label="same δ, both routes")])
    axes[0][-1].legend(handles=handles, loc="upper left", bbox_to_anchor=(1.02, 1.0),
                       fontsize=7)
    fig.suptitle("Error against depth at equal δ, per route", fontsize=10)
    save(fig, snakemake.output.png, snakemake.output.pdf)
