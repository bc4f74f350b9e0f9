"""Figure: layers until every token reaches every token (Assumption 1.3) against n."""

from expressivity.io import read_table
from expressivity.joblog import job_log
from expressivity.plotting import MARKERS, PALETTE, figure, save

job_log(snakemake)
df = read_table(snakemake.input.patterns)
with figure() as (fig, ax):
    for i, (name, part) in enumerate(df.groupby("pattern", sort=False)):
        ok = part[part["s"] > 0]
        if ok.empty:
            continue
        ax.plot(ok["n"], ok["s"], marker=MARKERS[i % len(MARKERS)], ms=3,
                color=PALETTE[i % len(PALETTE)], label=name)
    failed = sorted(set(df.loc[df["s"] < 0, "pattern"]))
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("sequence length n")
    ax.set_ylabel("s: layers until every token reaches every token")
    ax.set_title("Assumption 1.3" + (f" (never: {', '.join(failed)})" if failed else ""),
                 fontsize=9)
    ax.legend(fontsize=6)
    save(fig, snakemake.output.png, snakemake.output.pdf)
