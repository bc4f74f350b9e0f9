"""Figure: Lemma 6 selective shifts with softmax: error against the inverse temperature."""

import numpy as np

from expressivity.io import read_table
from expressivity.joblog import job_log
from expressivity.plotting import MARKERS, PALETTE, figure, save

job_log(snakemake)
df = read_table(snakemake.input.lemma6_softmax)
with figure() as (fig, ax):
    for i, ((m, d, n), part) in enumerate(df.groupby(["inv_delta", "d", "n"])):
        err = np.maximum(part["rel_error_subset"].to_numpy(), 1e-18)
        ax.plot(part["beta"], err, marker=MARKERS[i % len(MARKERS)], ms=3, lw=1,
                color=PALETTE[i % len(PALETTE)], label=f"1/δ={m}, d={d}, n={n}")
    ax.axhline(snakemake.params.tol, color="black", ls="--", lw=1, label="tolerance")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("softmax inverse temperature β (scores in units of δ²; 0 plotted as 1e-18)")
    ax.set_ylabel("max relative error vs integer reference")
    ax.set_title("Lemma 6 selective shifts: softmax → hardmax")
    ax.legend(fontsize=5, ncol=3)
    save(fig, snakemake.output.png, snakemake.output.pdf)
