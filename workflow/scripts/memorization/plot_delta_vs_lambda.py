"""Figure: delta against lam from 0 to lam_theory; float64 versus arbitrary precision."""

import numpy as np

from expressivity.io import read_table
from expressivity.joblog import job_log
from expressivity.plotting import MARKERS, PALETTE, figure, save

log = job_log(snakemake)
df = read_table(snakemake.input[0], ["lam", "float64_log10_delta", "certified_log10_delta",
                                     "arb_log10_delta", "lam_theory", "lam_min"])
lam = df["lam"].to_numpy()
cert = df["certified_log10_delta"].to_numpy()
arbv = df["arb_log10_delta"].to_numpy()
flt = df["float64_log10_delta"].to_numpy()
# float64 collapses where it reads 0 (-inf) or is off the certified value by more than a factor 2
bad = ~np.isfinite(flt) | (np.abs(flt - cert) > np.log10(2))
floor = float(np.nanmin(cert[np.isfinite(cert)])) * 1.05 - 1
with figure() as (fig, ax):
    ax.plot(lam, cert, color=PALETTE[0], marker=MARKERS[0], ms=4,
            label="certified (arb, normalised differences)")
    ok = np.isfinite(arbv)
    ax.plot(lam[ok], arbv[ok], ls="none", color=PALETTE[2], marker=MARKERS[2], ms=7, mfc="none",
            label="arb direct, digits = 2 lam r_max^2 / ln 10 + 30")
    good = ~bad
    ax.plot(lam[good], flt[good], ls="none", color=PALETTE[1], marker=MARKERS[1], ms=4,
            label="float64 direct")
    ax.plot(lam[bad], np.full(bad.sum(), floor), ls="none", color=PALETTE[3], marker="x",
            label="float64 collapsed (delta = 0 or wrong)")
    if bad.any():
        first = lam[np.argmax(bad)]
        ax.axvline(first, color=PALETTE[3], ls=":", lw=1,
                   label=f"float64 collapses from lam = {first:.3g}")
    lt, lmin = float(df["lam_theory"].iloc[0]), float(df["lam_min"].iloc[0])
    ax.axvline(lt, color="black", ls="--", lw=1, label=f"lam_theory = {lt:.4g}")
    ax.axvline(lmin, color=PALETTE[4], ls="--", lw=1, label=f"lam_min = {lmin:.3g}")
    if "log10_delta_theory" in df:
        ax.axhline(float(df["log10_delta_theory"].iloc[0]), color="grey", ls="-.", lw=1,
                   label="eq. (8) delta_theory")
    ax.set_xscale("symlog", linthresh=max(float(lam[1]), 1e-12))
    ax.set_xlim(left=0, right=lt * 1.5)
    ax.set_xlabel("lam (symlog; 0 included)")
    ax.set_ylabel("log10 delta_measured")
    row = df.iloc[0]
    ax.set_title(f"rank-1 layer, d={row['d']}, |V|={row['V']}, n={row['n']}, "
                 f"N={row['N']} (all token sets)", fontsize=9)
    ax.legend(fontsize=7, loc="lower left")
    save(fig, snakemake.output.png, snakemake.output.pdf)
