"""Figure: excess risk of the polynomial regression against the sample size."""

from expressivity.claims import verdict_lines
from expressivity.io import read_table
from expressivity.joblog import job_log
from expressivity.plotting import MARKERS, PALETTE, figure, save

job_log(snakemake)
df = read_table(snakemake.input.polynomial_regression)
with figure(figsize=(7.2, 4.0)) as (fig, ax):
    for i, (L, part) in enumerate(df.groupby("blocks")):
        deg = int(part["degree"].iloc[0])
        ax.errorbar(part["n_train"], part["excess_mse"], yerr=part["excess_mse_sem"],
                    marker=MARKERS[i], ms=3, color=PALETTE[i], capsize=2,
                    label=f"L = {L} blocks, degree {deg}")
        if L >= deg:
            ax.plot(part["n_train"], part["variance_prediction"], color=PALETTE[i], ls=":",
                    label="σ² T / N")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("training samples N")
    ax.set_ylabel("test MSE − σ² (excess risk)")
    verdicts = verdict_lines(read_table(snakemake.input.claims),
                             "universal_approximation/polynomial_regression")
    fig.suptitle("\n".join(["Fixed attention blocks: excess risk of polynomial regression", *verdicts]),
                 fontsize=8.5)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0))
    save(fig, snakemake.output.png, snakemake.output.pdf)
