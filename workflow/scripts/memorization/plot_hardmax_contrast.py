"""Figure: uniform averaging and hardmax (exact) against softmax (certified) on pairs with equal
power sums and shared extremes, per draw, grouped by member (family, k) and dimension d."""

import numpy as np

from expressivity.io import read_table
from expressivity.joblog import job_log
from expressivity.plotting import MARKERS, PALETTE, figure, save

log = job_log(snakemake)
df = read_table(snakemake.input[0], [
    "family", "k", "d", "draw", "lam", "uniform_log10_delta", "hardmax_log10_delta",
    "softmax_lam_log10_delta", "softmax_theory_log10_delta", "log10_delta_theory", "accuracy"])
groups = list(df[["d", "family", "k"]].drop_duplicates().itertuples(index=False))
slot = {g: i for i, g in enumerate(groups)}
x = np.array([slot[(d, f, k)] for d, f, k in zip(df["d"], df["family"], df["k"], strict=True)])
x = x + 0.6 * (df["draw"].to_numpy() / max(1, df["draw"].max()) - 0.5)
names = [f"{'Thm 1' if f == 'theorem1' else f'k={k}'}\nd={d}" for d, f, k in groups]

with figure(1, 2, figsize=(11, 4.8)) as (fig, (left, right)):
    soft = df["softmax_lam_log10_delta"].to_numpy(float)
    floor = float(np.nanmin(soft)) - 0.15 * float(np.ptp(soft) + 1) - 1
    left.plot(x, soft, ls="none", marker=MARKERS[0], ms=4, color=PALETTE[0],
              label=f"softmax at lam = {df['lam'].iloc[0]:g}: certified log10 delta")
    for arm, marker, colour, shift in (("uniform", "D", PALETTE[4], -0.12),
                                       ("hardmax", "s", PALETTE[3], 0.12)):
        value = df[f"{arm}_log10_delta"].to_numpy(float)
        zero = ~np.isfinite(value)
        left.plot(x[zero] + shift, np.full(zero.sum(), floor), ls="none", marker=marker, ms=4,
                  mfc="none", color=colour,
                  label=f"{arm}{' (lam = 0)' if arm == 'uniform' else ''}: delta = 0 exactly in "
                        f"{zero.sum()} of {len(df)}")
        if (~zero).any():
            left.plot(x[~zero] + shift, value[~zero], ls="none", marker=marker, ms=4,
                      color=colour, label=f"{arm}: delta > 0 (dataset not adversarial)")
    left.axhline(floor, color="grey", lw=0.8)
    left.annotate("delta = 0\n(exact)", (1.0, floor), xycoords=("axes fraction", "data"),
                  xytext=(4, 0), textcoords="offset points", va="center", fontsize=7)
    left.set_ylabel("log10 delta")
    left.set_title("the three arms on the same rank-1 layer", fontsize=9)
    left.legend(fontsize=7, loc="upper right")
    left.set_ylim(top=max(float(np.nanmax(soft)), floor) + 0.45 * float(np.ptp(soft) + 1))

    right.plot(x, -df["softmax_theory_log10_delta"], ls="none", marker=MARKERS[0], ms=4,
               color=PALETTE[0], label="softmax at lam_theory: certified -log10 delta")
    right.plot(x, -df["log10_delta_theory"], ls="none", marker=MARKERS[1], ms=4, mfc="none",
               color=PALETTE[1], label="eq. (8): -log10 delta_theory (the bound)")
    right.set_yscale("log")
    right.set_ylabel("-log10 delta (decimal digits of the separation)")
    right.set_title("softmax at lam_theory against eq. (8)'s bound", fontsize=9)
    right.legend(fontsize=7, loc="upper left")
    for ax in (left, right):
        ax.set_xticks(range(len(groups)), names, fontsize=7)
        ax.set_xlim(-0.6, len(groups) - 0.4)
        ax.set_xlabel("member (Theorem 1 pair; Prouhet sets of degree k), dimension d;\n"
                      "one point per draw", fontsize=8)
    save(fig, snakemake.output.png, snakemake.output.pdf)
