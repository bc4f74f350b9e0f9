"""Figure: d_min / n against n, next to d = n (exact representation with fixed inputs), with the
crossover n*, the exact-rule reference d_ref / n with its own n*, and the JL bound (*) over n."""

from expressivity.io import read_table
from expressivity.joblog import job_log
from expressivity.plotting import MARKERS, PALETTE, figure, save

log = job_log(snakemake)
df = read_table(snakemake.input.sweep, ["n", "k", "d_min_over_n", "d_jl"])
med = read_table(snakemake.input.medians, ["series", "k", "n", "d_min_over_n", "d_min_over_n_lo",
                                           "d_min_over_n_hi", "d_ref"])
med = med[med["series"] == "per-entry"]
cross = read_table(snakemake.input.crossover, ["k", "n_star", "n_star_lo", "n_star_hi",
                                               "n_star_ref"])
ks = sorted(df["k"].unique())
bottom = min(0.03, 0.5 * float(df["d_min_over_n"].min()))  # room below the data for the n* labels

with figure(figsize=(7.0, 5.2)) as (fig, ax):
    for c, (k, colour) in enumerate(zip(ks, PALETTE, strict=False)):
        sub, m = df[df["k"] == k], med[med["k"] == k]
        ax.scatter(sub["n"], sub["d_min_over_n"], s=8, color=colour, alpha=0.35, marker=MARKERS[c])
        ax.errorbar(m["n"], m["d_min_over_n"], yerr=[m["d_min_over_n"] - m["d_min_over_n_lo"],
                                                     m["d_min_over_n_hi"] - m["d_min_over_n"]],
                    fmt="-" + MARKERS[c], ms=4, color=colour, capsize=2,
                    label=f"k = {k}: median d_min / n")
        ax.plot(m["n"], m["d_ref"] / m["n"], ":", color=colour, lw=1.2,
                label=f"k = {k}: exact-rule reference d_ref / n")
        jl = sub.groupby("n")["d_jl"].first()
        ax.plot(jl.index, jl.values / jl.index, "--", color=colour, lw=0.8,
                label=f"k = {k}: JL bound (*) / n")
        star = cross[cross["k"] == k].iloc[0]
        if star["n_star"] == star["n_star"]:
            ax.axvline(star["n_star"], color=colour, lw=0.8, ls=":")
            ax.axvspan(star["n_star_lo"], star["n_star_hi"], color=colour, alpha=0.08, lw=0)
            ax.text(star["n_star"], 1.3 * bottom, f" n* = {star['n_star']:.0f} (reference "
                    f"{star['n_star_ref']:.0f})", color=colour, fontsize=7, rotation=90,
                    va="bottom", ha="right")
    ax.axhline(1.0, color="black", ls="-", lw=1,
               label="d = n: exact representation with fixed X (Bhojanapalli et al. 2020)")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("sequence length n")
    ax.set_ylabel("d / n")
    stars = ", ".join(f"k = {int(r['k'])}: {r['n_star']:.0f}" for _, r in cross.iterrows())
    below = df[df["d_jl"] < df["n"]]
    jl_text = ("JL bound above n at every n swept" if below.empty else
               f"JL bound below n from n = {int(below['n'].min())}")
    ax.set_title(f"Median d_min / n against n; d_min = n at n* ({stars});\n{jl_text}", fontsize=9)
    ax.set_ylim(bottom=bottom)
    ax.legend(fontsize=6, ncol=2, loc="upper right")
    save(fig, snakemake.output.png, snakemake.output.pdf)
