"""Figure: output differences at the shared tokens, hardmax versus softmax (log scale)."""

import numpy as np

from expressivity.io import read_table
from expressivity.joblog import job_log
from expressivity.plotting import PALETTE, figure, save
from expressivity.theorem1 import HARDMAX_GAP_BOUND

log = job_log(snakemake)
df = read_table(snakemake.input[0], ["gap_hardmax", "gap_softmax", "weight_scale"])
floor = 1e-20  # an exact zero is drawn at this floor (marked on the axis)
with figure() as (fig, ax):
    gaps = {"hardmax": df["gap_hardmax"], "softmax": df["gap_softmax"]}
    top = max(float(g.max()) for g in gaps.values())
    bins = np.logspace(np.log10(floor), np.log10(max(top, 1.0)) + 0.5, 60)
    for (name, gap), colour in zip(gaps.items(), PALETTE, strict=False):
        zeros = int((gap == 0).sum())
        ax.hist(np.maximum(gap, floor), bins=bins, color=colour, alpha=0.7,
                label=f"{name} ({zeros} of {len(gap)} exactly 0)")
    ax.axvline(HARDMAX_GAP_BOUND, color="black", ls="--", lw=1,
               label=f"rounding bound {HARDMAX_GAP_BOUND:g}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("max output difference at the shared tokens (0 drawn at 1e-20)")
    ax.set_ylabel("number of random one-layer attentions")
    ax.set_title("Theorem 1 counterexample: hardmax cannot tell the sequences apart")
    ax.legend(fontsize=8)
    save(fig, snakemake.output.png, snakemake.output.pdf)
