"""Figure: layers until every token reaches every token (Assumption 1.3) and the connections
they cost, against n."""

import numpy as np

from expressivity.io import read_table
from expressivity.joblog import job_log
from expressivity.plotting import MARKERS, PALETTE, figure, save
from expressivity.sparse_patterns import PATTERNS

job_log(snakemake)
df = read_table(snakemake.input.patterns)
STYLE = {name: ((*PALETTE, "0.5")[i], MARKERS[i % len(MARKERS)])
         for i, name in enumerate(PATTERNS)}
names = list(dict.fromkeys(df["pattern"]))
# patterns with equal values would hide one another: each gets its own small offset in n
offset = {name: 1.07 ** (i - (len(names) - 1) / 2) for i, name in enumerate(names)}
reached = df[df["s"] > 0]
with figure(1, 2, figsize=(11, 4.4)) as (fig, (left, right)):
    for ax, column in ((left, "s"), (right, "connections_reach")):
        top = reached[column].max() if len(reached) else 1
        never_row = top * 8     # patterns that never reach every token are drawn on this row
        for name in names:
            part = df[df["pattern"] == name]
            ok, never = part[part["s"] > 0], part[part["s"] < 0]
            colour, marker = STYLE[name]
            ax.plot(ok["n"] * offset[name], ok[column], marker=marker, ms=4, lw=1,
                    color=colour, label=name if ax is left else None)
            ax.plot(never["n"] * offset[name], np.full(len(never), never_row), marker=marker,
                    ms=5, ls="none", color=colour, mfc="white")
        ax.axhline(top * 3, color="0.6", ls=":", lw=0.6)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("sequence length n (patterns offset slightly)")
        bottom = reached[column].min() / 2 if len(reached) else 0.5
        ticks = 10.0 ** np.arange(np.ceil(np.log10(bottom)), np.floor(np.log10(top)) + 1)
        ax.set_yticks([*ticks, never_row], [*(f"$10^{{{np.log10(t):.0f}}}$" for t in ticks),
                                            "never"])
        ax.set_ylim(bottom, never_row * 2)
    ns = np.array(sorted(set(df["n"])), dtype=float)
    for k, ls in ((1, "-"), (2, "--")):
        right.plot(ns, 4.0 * ns**k, color="0.7", ls=ls, lw=0.8, label=f"∝ n^{k}")
    left.set_ylabel("s: layers until every token reaches every token")
    right.set_ylabel("connections summed over those s layers")
    left.set_title("(a) Assumption 1.3: depth s", fontsize=10)
    right.set_title("(b) connections x layers", fontsize=10)
    handles, labels = left.get_legend_handles_labels()
    more, more_labels = right.get_legend_handles_labels()
    right.legend(handles + more, labels + more_labels, fontsize=7, loc="upper left",
                 bbox_to_anchor=(1.02, 1.0))
    save(fig, snakemake.output.png, snakemake.output.pdf)
