"""Figure: delta against lam on a random and an adversarial dataset; uniform averaging (lam = 0),
softmax (certified, arb direct, float64) and hardmax; full range and a zoom on small lam."""

import numpy as np

from expressivity.io import read_table
from expressivity.joblog import job_log
from expressivity.plotting import MARKERS, PALETTE, figure, save

log = job_log(snakemake)
df = read_table(snakemake.input[0], [
    "dataset", "arm", "grid", "lam", "certified_log10_delta", "float64_log10_delta",
    "arb_log10_delta", "exact_log10_delta", "asymptote_log10_delta", "lam_theory",
    "lam_last_crossing", "log10_delta_theory", "d", "V", "n", "N", "k"])
TITLES = {"random": "random tokens, every token set", "adversarial": "equal power sums"}


def zero_row(ax, floor):
    """The row where delta = 0 exactly is drawn (log10 delta = -inf)."""
    ax.axhline(floor, color="grey", lw=0.8)
    ax.annotate("delta = 0\n(exact)", (1.0, floor), xycoords=("axes fraction", "data"),
                xytext=(4, 0), textcoords="offset points", va="center", fontsize=7)


def panel(ax, sub, *, zoom: bool, handles: dict):
    soft = sub[sub["arm"] == "softmax"].sort_values("lam")
    if zoom:
        soft = soft[soft["lam"] <= soft.loc[soft["grid"] == "zoom", "lam"].max()]
    lam = soft["lam"].to_numpy()
    cert = soft["certified_log10_delta"].to_numpy(float)
    flt = soft["float64_log10_delta"].to_numpy(float)
    arb = soft["arb_log10_delta"].to_numpy(float)
    limits = {arm: float(sub.loc[sub["arm"] == arm, "exact_log10_delta"].iloc[0])
              for arm in ("uniform", "hardmax")}
    finite = [*cert[np.isfinite(cert)], *(v for v in limits.values() if np.isfinite(v))]
    span = max(finite) - min(finite)
    floor = min(finite) - 0.12 * span - 1
    # float64 collapses where it reads delta = 0 or is off the certified value by a factor 2
    bad = ~np.isfinite(flt) | (np.abs(flt - cert) > np.log10(2))
    handles["certified"] = ax.plot(lam, cert, color=PALETTE[0], marker=MARKERS[0], ms=3.5,
                                   lw=1)[0]
    ok = np.isfinite(arb)
    if ok.any():
        handles["arb"] = ax.plot(lam[ok], arb[ok], ls="none", color=PALETTE[2], marker=MARKERS[2],
                                 ms=7, mfc="none")[0]
    handles["float64"] = ax.plot(lam[~bad], flt[~bad], ls="none", color=PALETTE[1],
                                 marker=MARKERS[1], ms=3)[0]
    if bad.any():
        handles["collapsed"] = ax.plot(lam[bad], np.full(bad.sum(), floor), ls="none",
                                       color=PALETTE[1], marker="x")[0]
    lt = float(sub["lam_theory"].iloc[0])
    # full range: log lam, with uniform averaging (lam = 0) drawn a decade and a half left of the
    # grid and hardmax (lam -> inf) as far right of lam_theory, each labelled on the axis
    lo, hi = (0.0, 1.02 * lam.max()) if zoom else (lam.min() / 30, lt * 30)
    for arm, x, marker, colour in (("uniform", lo, "D", PALETTE[4]),
                                   ("hardmax", hi, "s", PALETTE[3])):
        value = limits[arm]
        if zoom and arm == "hardmax":
            continue
        handles[arm] = ax.plot([x], [value if np.isfinite(value) else floor], ls="none",
                               marker=marker, ms=7, color=colour, clip_on=False)[0]
    asym = soft["asymptote_log10_delta"].to_numpy(float)
    near = np.isfinite(asym) & (lam <= 1)
    if near.any():
        handles["asymptote"] = ax.plot(lam[near], asym[near], color="black", ls=":", lw=1.2)[0]
    last = float(sub["lam_last_crossing"].iloc[0])
    if not zoom or last <= lam.max():
        handles["last"] = ax.axvline(last, color=PALETTE[5], ls="--", lw=1)
    if not zoom:
        handles["theory"] = ax.axvline(lt, color="black", ls="--", lw=1)
        ax.set_xscale("log")
        ax.set_xlim(lo / 2, hi * 2)
        first, end = int(np.ceil(np.log10(lam.min()))), int(np.floor(np.log10(lt)))
        step = max(1, int(np.ceil((end - first + 1) / 5)))
        decades = list(range(first, end + 1, step))
        ax.set_xticks([lo, *(10.0**e for e in decades), hi],
                      ["0", *(f"$10^{{{e}}}$" for e in decades), "inf"])
        ax.minorticks_off()
        ax.set_xlabel("lam (log; 0: uniform averaging, inf: hardmax)")
    else:
        ax.set_xlim(left=-0.02 * lam.max(), right=hi)
        ax.set_xlabel("lam (linear zoom)")
        ymin = min(floor, np.nanmin(cert))
        ax.set_ylim(ymin - 0.05 * (max(finite) - ymin), max(finite) + 0.05 * (max(finite) - ymin))
    zero_row(ax, floor)
    ax.set_ylabel("log10 delta")


with figure(3, 2, figsize=(11, 9.5), gridspec_kw={"height_ratios": [1, 1, 0.3]}) as (fig, axes):
    handles: dict = {}
    for row, name in enumerate(("random", "adversarial")):
        sub = df[df["dataset"] == name]
        first = sub.iloc[0]
        what = (f"d={first['d']}, |V|={first['V']}, n={first['n']}, N={first['N']}"
                + (f", k={first['k']}" if name == "adversarial" else ""))
        for col, zoom in enumerate((False, True)):
            panel(axes[row, col], sub, zoom=zoom, handles=handles)
            title = f"{TITLES[name]} ({what})"
            if zoom:
                title += ": zoom"
            else:
                title += (f"\neq. (8): log10 delta_theory = "
                          f"{float(first['log10_delta_theory']):.4g}")
            axes[row, col].set_title(title, fontsize=9)
    labels = {
        "certified": "softmax, certified (arb, normalised differences)",
        "arb": "softmax, arb direct at 2 lam r_max^2 / ln 10 + 30 digits",
        "float64": "softmax, float64 direct",
        "collapsed": "float64 collapsed (delta = 0 or off by > 2x)",
        "uniform": "uniform averaging, lam = 0 (exact)",
        "hardmax": "hardmax, lam -> inf (exact)",
        "asymptote": "small-lam theory K lam^k (equal power sums of degree 1..k)",
        "last": "last crossing of the asymptotic order (a sufficient lam)",
        "theory": "lam_theory",
    }
    grid = axes[2, 0].get_gridspec()
    for ax in axes[2]:
        ax.remove()
    key_ax = fig.add_subplot(grid[2, :])
    key_ax.axis("off")
    keys = [k for k in labels if k in handles]
    key_ax.legend([handles[k] for k in keys], [labels[k] for k in keys], loc="center", ncol=2,
                  fontsize=8)
    save(fig, snakemake.output.png, snakemake.output.pdf)
