"""Figure: excess risk of the polynomial regression against the sample size: frozen blocks (L =
degree and L = degree - 1), the tanh network of equal parameter count and the trained one-head
transformer, on the same draws (mean and standard error over the draws)."""

from expressivity.claims import verdict_lines
from expressivity.io import read_table
from expressivity.joblog import job_log
from expressivity.plotting import MARKERS, PALETTE, figure, save

job_log(snakemake)
df = read_table(snakemake.input.polynomial_regression)
with figure(figsize=(7.2, 4.0)) as (fig, ax):
    blocks = df[df["arm"] == "frozen blocks"]
    for i, (L, part) in enumerate(blocks.groupby("blocks")):
        deg, L = int(part["degree"].iloc[0]), int(L)
        ax.errorbar(part["n_train"], part["excess_mse"], yerr=part["excess_mse_sem"],
                    marker=MARKERS[i], ms=3, color=PALETTE[i], capsize=2,
                    label=f"frozen blocks, L = {L}, degree {deg} ({int(part['parameters'].iloc[0])}"
                          f" fitted parameters, {int(part['repeats'].iloc[0])} draws)")
        if L >= deg:
            ax.plot(part["n_train"], part["variance_prediction"], color=PALETTE[i], ls=":",
                    label="σ² T / N")
    trained = {"mlp": ("D", PALETTE[3], "tanh MLP"),
               "transformer": ("s", PALETTE[4], "one-head transformer (trained)")}
    for arm, (marker, colour, name) in trained.items():
        part = df[df["arm"] == arm].sort_values("n_train")
        if len(part):
            ax.errorbar(part["n_train"], part["excess_mse"], yerr=part["excess_mse_sem"],
                        marker=marker, ms=3, color=colour, capsize=2,
                        label=f"{name}, {int(part['parameters'].iloc[0])} parameters "
                              f"({int(part['repeats'].iloc[0])} draws)")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("training samples N")
    ax.set_ylabel("test MSE − σ² (excess risk)")
    verdicts = verdict_lines(read_table(snakemake.input.claims),
                             "universal_approximation/polynomial_regression")
    title = "Polynomial regression: excess risk of frozen blocks, an MLP and a transformer"
    fig.suptitle("\n".join([title, *verdicts]), fontsize=8.5)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0))
    save(fig, snakemake.output.png, snakemake.output.pdf)
