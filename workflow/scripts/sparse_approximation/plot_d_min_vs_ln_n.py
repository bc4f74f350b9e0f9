"""Figure: d_min against ln n on linear axes (medians with bootstrap intervals, trials), the three
growth models fitted to the lower half and extrapolated, and d_min over the exact-rule reference
with its fitted slope and the equivalence margin."""

import numpy as np

from expressivity.growth_models import FORMULA, MODELS, predict
from expressivity.io import read_table
from expressivity.joblog import job_log
from expressivity.plotting import PALETTE, figure, save

log = job_log(snakemake)
SERIES = "per-entry"
sweep = read_table(snakemake.input.sweep, ["n", "k", "d_min"])
med = read_table(snakemake.input.medians, ["series", "k", "n", "d_min", "d_min_lo", "d_min_hi",
                                           "d_ref", "d_min_over_ref", "d_min_over_ref_lo",
                                           "d_min_over_ref_hi"])
comp = read_table(snakemake.input.model_comparison, ["series", "k", "quantity", "fit_on", "model",
                                                    "intercept", "slope", "fit_n_max",
                                                    "rms_error"])
oos = read_table(snakemake.input.out_of_sample, ["series", "k", "quantity", "fit_on", "model",
                                                 "n", "prediction", "rel_error_lo",
                                                 "rel_error_hi", "median"])
flat = read_table(snakemake.input.flatness, ["series", "k", "quantity", "by", "fit_on",
                                             "mean_ratio", "rel_intercept", "rel_slope",
                                             "rel_slope_se", "margin"])
med, comp = med[med["series"] == SERIES], comp[comp["series"] == SERIES]
oos, flat = oos[oos["series"] == SERIES], flat[flat["series"] == SERIES]
ks = sorted(sweep["k"].unique())
STYLES = {"log": ("-", PALETTE[0]), "power": ("--", PALETTE[3]), "log_power": (":", PALETTE[2])}

with figure(2, len(ks), figsize=(4.2 * len(ks), 7.0), squeeze=False) as (fig, axes):
    worst = {m: 0.0 for m in MODELS}
    for c, k in enumerate(ks):
        top, bottom = axes[0, c], axes[1, c]
        trials = sweep[sweep["k"] == k]
        m = med[med["k"] == k]
        x = np.log(m["n"].to_numpy(dtype=float))
        top.scatter(np.log(trials["n"]), trials["d_min"], s=6, color="0.6", alpha=0.6,
                    label="trials")
        top.errorbar(x, m["d_min"], yerr=[m["d_min"] - m["d_min_lo"], m["d_min_hi"] - m["d_min"]],
                     fmt="o", ms=4, color="black", capsize=2, label="median (bootstrap interval)")
        fits = comp[(comp["k"] == k) & (comp["quantity"] == "d_min") & (comp["fit_on"] == "median")]
        grid = np.geomspace(m["n"].min(), m["n"].max(), 200)
        for _, f in fits.iterrows():
            ls, colour = STYLES[f["model"]]
            worst[f["model"]] = max(worst[f["model"]], f["rms_error"])
            top.plot(np.log(grid), predict(f["model"], f["intercept"], f["slope"], grid), ls,
                     color=colour, lw=1.2,
                     label=f"{FORMULA[f['model']]} (RMS error of the predictions: "
                           f"{100 * f['rms_error']:.0f}%)")
        if not fits.empty:
            top.axvline(np.log(fits["fit_n_max"].iloc[0]), color="0.3", lw=0.6, ls="-.")
            top.text(np.log(fits["fit_n_max"].iloc[0]), top.get_ylim()[0], "fitted | predicted ",
                     fontsize=7, va="bottom", ha="center")
        pred = oos[(oos["k"] == k) & (oos["quantity"] == "d_min") & (oos["fit_on"] == "median")
                   & (oos["model"] == "log")]
        if not pred.empty:
            lo = pred["median"] * (1 + pred["rel_error_lo"])
            hi = pred["median"] * (1 + pred["rel_error_hi"])
            top.errorbar(np.log(pred["n"]) + 0.08, pred["prediction"],
                         yerr=[pred["prediction"] - lo, hi - pred["prediction"]], fmt="none",
                         ecolor=PALETTE[0], capsize=2, lw=1,
                         label="log prediction: bootstrap interval")
        top.set_title(f"k = {k}", fontsize=10)
        top.set_xlabel("ln n")
        top.set_ylabel("smallest working d (d_min)")
        top.legend(fontsize=6, loc="upper left")
        ref = m.set_index("n")["d_ref"]
        bottom.scatter(np.log(trials["n"]), trials["d_min"] / trials["n"].map(ref), s=6,
                       color="0.6", alpha=0.6, label="trials")
        bottom.errorbar(x, m["d_min_over_ref"],
                        yerr=[m["d_min_over_ref"] - m["d_min_over_ref_lo"],
                              m["d_min_over_ref_hi"] - m["d_min_over_ref"]],
                        fmt="o", ms=4, color="black", capsize=2, label="median (bootstrap interval)")
        bottom.axhline(1.0, color="0.3", lw=0.8, ls=":", label="the reference (no fitted constant)")
        s = flat[(flat["k"] == k) & (flat["quantity"] == "d_min") & (flat["by"] == "exact rule")
                 & (flat["fit_on"] == "all")]
        if not s.empty:
            s = s.iloc[0]
            centre = x.mean()
            line = s["mean_ratio"] * (s["rel_intercept"] + s["rel_slope"] * x)
            bottom.plot(x, line, "-", color=PALETTE[0], lw=1,
                        label=f"line fitted to all trials: slope {100 * s['rel_slope']:+.1f}% "
                              f"+- {100 * s['rel_slope_se']:.1f}% per unit ln n")
            for sign in (-1, 1):  # the equivalence margin: drifts a flat ratio must stay within
                mid = s["mean_ratio"] * (s["rel_intercept"] + s["rel_slope"] * centre)
                bottom.plot(x, mid * (1 + sign * s["margin"] * (x - centre)), "--",
                            color=PALETTE[3], lw=0.8,
                            label=f"margin +-{100 * s['margin']:.1f}% per unit ln n"
                            if sign > 0 else None)
        top_ratio = max(1.2, 1.15 * m["d_min_over_ref_hi"].max())
        bottom.set_ylim(0, top_ratio)
        bottom.set_xlabel("ln n")
        bottom.set_ylabel("d_min / d_ref (exact-rule reference)")
        bottom.legend(fontsize=6, loc="lower right")
    fig.suptitle(f"Fitted on the lower half of n, a + b ln n predicts the upper half with RMS "
                 f"error up to {100 * worst['log']:.0f}%;\nc n^p up to {100 * worst['power']:.0f}%,"
                 f" c (ln n)^q up to {100 * worst['log_power']:.0f}%", fontsize=9)
    save(fig, snakemake.output.png, snakemake.output.pdf)
