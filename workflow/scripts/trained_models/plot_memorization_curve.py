"""Figure: training accuracy against epoch for the memorization variants."""

from expressivity.io import read_table
from expressivity.joblog import job_log
from expressivity.plotting import MARKERS, PALETTE, figure, save

log = job_log(snakemake)
curve = read_table(snakemake.input.memorization_curve, ["variant", "epoch", "accuracy"])
summary = read_table(snakemake.input.memorization_summary, ["variant", "accuracy", "accuracy_hardmax"])
names = {"learned": "tied rank-1, w learned", "fixed": "tied rank-1, w fixed (construction)",
         "no_attention": "no attention (token-wise FFN)"}
with figure() as (fig, ax):
    for i, (variant, part) in enumerate(curve.groupby("variant", sort=False)):
        row = summary[summary["variant"] == variant].iloc[0]
        extra = "" if variant == "no_attention" else f", hardmax eval {row['accuracy_hardmax']:.3f}"
        ax.plot(part["epoch"], part["accuracy"], color=PALETTE[i], marker=MARKERS[i],
                markevery=max(1, len(part) // 8), ms=4,
                label=f"{names.get(variant, variant)}: {row['accuracy']:.3f}{extra}")
    ceiling = float(summary["token_ceiling"].iloc[0])
    ax.axhline(ceiling, color="black", ls=":", lw=1, label=f"token-only ceiling {ceiling:.3f}")
    ax.axhline(1.0, color="grey", ls="--", lw=0.8)
    r = summary.iloc[0]
    ax.set_xlabel("epoch (full-batch Adam steps)")
    ax.set_ylabel("training accuracy (per token)")
    ax.set_title(f"One layer, one head, head size 1: N = {r['N']}, n = {r['n']}, d = {r['d']}, "
                 f"q = {r['width']}", fontsize=9)
    ax.legend(fontsize=7, loc="lower right")
    save(fig, snakemake.output.png, snakemake.output.pdf)
