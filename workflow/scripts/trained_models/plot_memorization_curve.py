"""Figure: training accuracy against epoch for every memorization arm (mean over seeds, band from
the lowest to the highest seed), with the blind and token-only ceilings; left the full attention on
segment pairs, right the causal (masked) arms on prefix segment pairs against the prefix blind
ceiling."""

from expressivity.io import read_table
from expressivity.joblog import job_log
from expressivity.plotting import MARKERS, PALETTE, figure, save

log = job_log(snakemake)
RUNS = ["arm", "lr", "cell_lr", "cell_existence", "cell_reached", "cell_seeds", "cell_accuracy_mean",
        "cell_accuracy_sd", "blind_ceiling", "token_ceiling", "budget", "window", "N", "n", "d",
        "pairs", "width", "seed_index"]
CURVE = ["arm", "lr", "seed_index", "epoch", "accuracy"]
NAMES = {"softmax": "softmax, w learned", "fixed": "softmax, w fixed (construction)",
         "uniform": "uniform attention (lam = 0)", "hardmax": "hardmax (straight-through)",
         "no_attention": "no attention (token-wise FFN)"}


def panel(ax, curve, runs, *, what: str, ceiling: str) -> None:
    """One panel: each arm's curves at its cell's learning rate, the two ceilings, 100 %."""
    r = runs.iloc[0]
    for i, arm in enumerate(NAMES):
        part, cells = curve[curve["arm"] == arm], runs[runs["arm"] == arm]
        if cells.empty:
            continue
        cell = cells.iloc[0]
        part = part[part["lr"] == cell["cell_lr"]]
        # each seed's curve until it stopped, held at its last value afterwards
        wide = part.pivot_table(index="epoch", columns="seed_index", values="accuracy").ffill()
        style = dict(color=PALETTE[i % len(PALETTE)])
        ax.fill_between(wide.index, wide.min(axis=1), wide.max(axis=1), alpha=0.2, lw=0, **style)
        ax.plot(wide.index, wide.mean(axis=1), marker=MARKERS[i % len(MARKERS)],
                markevery=max(1, len(wide) // 8), ms=4, **style,
                label=f"{NAMES[arm]}: {cell['cell_accuracy_mean']:.3f} +- "
                      f"{cell['cell_accuracy_sd']:.3f}, {int(cell['cell_reached'])}/"
                      f"{int(cell['cell_seeds'])} seeds reach 100 %")
    ax.axhline(r["blind_ceiling"], color="black", ls="--", lw=1,
               label=f"{ceiling} {r['blind_ceiling']:.3f}")
    ax.axhline(r["token_ceiling"], color="black", ls=":", lw=1,
               label=f"token-only ceiling {r['token_ceiling']:.3f}")
    ax.axhline(1.0, color="grey", lw=0.8)
    ax.set_xlabel("epoch (full-batch Adam steps; each seed stops at 100 % or on a plateau after "
                  f"its\nlearning-rate decay, window {r['window']})")
    ax.set_ylabel("training accuracy (per token)")
    ax.set_title(f"{what}\nN = {r['N']} ({r['pairs']} pairs), n = {r['n']}, d = {r['d']}, "
                 f"q = {r['width']}; {runs['seed_index'].nunique()} seeds", fontsize=9)
    ax.legend(fontsize=6.5, loc="lower right")


with figure(1, 2, figsize=(13, 5.2), sharey=True) as (fig, (full, masked)):
    panel(full, read_table(snakemake.input.memorization_curve, CURVE),
          read_table(snakemake.input.memorization_runs, RUNS),
          what="Attention on segment pairs",
          ceiling="blind ceiling (any hardmax or uniform layer)")
    panel(masked, read_table(snakemake.input.masked_curve, CURVE),
          read_table(snakemake.input.masked_runs, RUNS),
          what="Causal (masked) attention on prefix segment pairs",
          ceiling="prefix blind ceiling (any causal hardmax or uniform layer)")
    fig.suptitle("One layer, one head, head size 1 (tied W_Q = W_K = W_V), trained", fontsize=10)
    save(fig, snakemake.output.png, snakemake.output.pdf)
