"""Figure: fixed attention blocks: polynomial error against degree, with the two claims'
thresholds drawn and their verdicts (from the claims table) in the title."""

import numpy as np

from expressivity.claims import verdict_lines
from expressivity.claims.universal_approximation import CLAIMS
from expressivity.io import read_table
from expressivity.joblog import job_log
from expressivity.plotting import MARKERS, PALETTE, figure, save

job_log(snakemake)
df = read_table(snakemake.input.polynomial_staircase)
verdicts = verdict_lines(read_table(snakemake.input.claims), "universal_approximation/polynomial_staircase")
threshold = {c.id.split(".")[1]: c.threshold for c in CLAIMS}
errors = df["max_rel_error"].to_numpy(float)
floor = errors[errors > 0].min() if (errors > 0).any() else 1e-16
zero_row = min(floor, 1e-9) / 100     # an error of exactly 0 is drawn on this row, labelled 0
with figure(figsize=(7.2, 4.0)) as (fig, ax):
    ds = sorted(df["d"].unique())
    for i, d in enumerate(ds):
        part = df[df["d"] == d]
        for L, sub in part.groupby("blocks"):
            err = sub["max_rel_error"].to_numpy(float)
            ax.plot(sub["degree"] + 0.08 * (i - 1), np.where(err > 0, err, zero_row),
                    marker=MARKERS[int(L) % len(MARKERS)], ms=4, lw=0.8,
                    color=PALETTE[int(L) % len(PALETTE)],
                    label=f"L = {L} blocks" if i == 0 else None)
    ax.axhline(threshold["polynomial_exact"], color="black", ls="--", lw=1,
               label="polynomial_exact: at most this when L ≥ degree")
    ax.axhline(threshold["polynomial_cutoff"], color="grey", ls=":", lw=1,
               label="polynomial_cutoff: at least this when L < degree")
    ax.set_yscale("log")
    if (errors == 0).any():
        ax.axhline(zero_row * 4, color="0.6", ls=":", lw=0.6)
        ticks = 10.0 ** np.arange(np.ceil(np.log10(zero_row)) + 2, 1, 3)
        ax.set_yticks([zero_row, *ticks],
                      ["0", *(f"$10^{{{np.log10(t):.0f}}}$" for t in ticks)])
    ax.set_xlabel(f"target degree (d = {', '.join(map(str, ds))} side by side)")
    ax.set_ylabel("max relative error")
    fig.suptitle("\n".join(["Fixed attention blocks: polynomial error against degree", *verdicts]),
                 fontsize=8.5)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0))
    save(fig, snakemake.output.png, snakemake.output.pdf)
