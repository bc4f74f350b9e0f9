"""Figure: decimal digits a direct evaluation needs, at lam_theory and just above the last crossing
of the asymptotic order, per dataset."""

import numpy as np

from expressivity.io import read_table
from expressivity.joblog import job_log
from expressivity.plotting import MARKERS, PALETTE, figure, save
from expressivity.rank1.layer import FLOAT64_DIGITS

log = job_log(snakemake)
th = read_table(snakemake.input.theory, ["V", "digits_theory", "digits_needed", "digits_star"])
se = read_table(snakemake.input.search, ["V", "digits_theory", "digits_star", "lam_ratio"])
with figure(figsize=(6.5, 4.5)) as (fig, ax):
    rng = np.random.default_rng(0)  # horizontal jitter only

    def jit(x):
        return x * (1 + 0.06 * (rng.random(len(x)) - 0.5))

    ax.plot(jit(th["V"]), th["digits_theory"], ls="none", marker=MARKERS[0], color=PALETTE[0],
            label="regime (i): bound at lam_theory, 2 lam r_max^2 / ln 10 + 30")
    ax.plot(jit(th["V"]), th["digits_needed"], ls="none", marker=MARKERS[1], color=PALETTE[1],
            label="regime (i): measured at lam_theory")
    ax.plot(jit(se["V"]), se["digits_theory"], ls="none", marker=MARKERS[0], color=PALETTE[0],
            mfc="none", label="regime (ii): bound at lam_theory (not computed)")
    both = np.concatenate([th["digits_star"], se["digits_star"]])
    Vs = np.concatenate([th["V"], se["V"]])
    ax.plot(jit(Vs), np.maximum(both, 1), ls="none", marker=MARKERS[2], color=PALETTE[2],
            label="measured at lam_star, just above the last crossing (a sufficient lam)")
    ax.axhline(FLOAT64_DIGITS, color="black", ls="--", lw=1, label="float64 (15.95 digits)")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("vocabulary size |V|")
    ax.set_ylabel("decimal digits to resolve delta")
    ratio = se["lam_ratio"][np.isfinite(se["lam_ratio"])]
    if len(ratio):
        ax.set_title(f"lam_theory / last crossing in regime (ii): {ratio.min():.3g} .. "
                     f"{ratio.max():.3g}", fontsize=9)
    ax.legend(fontsize=7)
    save(fig, snakemake.output.png, snakemake.output.pdf)
