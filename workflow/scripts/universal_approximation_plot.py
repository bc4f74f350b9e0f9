"""Every figure of the universal-approximation stage, from its tables."""

import numpy as np

from expressivity.io import read_table
from expressivity.plotting import MARKERS, PALETTE, figure, save


def lemma6_softmax(ax, df):
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


def approximation_error(ax, df):
    styles = {"yun": "-", "kajitsuka_sato": "--", "yun_positional": ":"}
    for i, ((target, route), part) in enumerate(df.groupby(["target", "route"], sort=False)):
        for p, marker in (("L1", "o"), ("L2", "s")):
            ax.plot(part["delta"], part[p], ls=styles.get(route, "-"), marker=marker, ms=3,
                    color=PALETTE[i % len(PALETTE)], label=f"{target}, {route}, {p}")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("grid spacing δ")
    ax.set_ylabel("Monte-Carlo L^p error")
    ax.set_title("Constructed Transformers: error falls with δ")
    ax.legend(fontsize=6)


def pattern_connections(ax, df):
    for i, (name, part) in enumerate(df.groupby("pattern", sort=False)):
        ns, c = part["n"].to_numpy(), part["connections_max"].to_numpy()
        slope = np.polyfit(np.log(ns), np.log(c), 1)[0]
        ax.plot(ns, c, marker=MARKERS[i % len(MARKERS)], ms=3, color=PALETTE[i % len(PALETTE)],
                label=f"{name} (slope {slope:.2f})")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("sequence length n")
    ax.set_ylabel("connections per layer (max over the cycle)")
    ax.set_title("Sparse patterns: O(n) connections")
    ax.legend(fontsize=6)


def pattern_depth(ax, df):
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


def polynomial_staircase(ax, df):
    ds = sorted(df["d"].unique())
    for i, d in enumerate(ds):
        part = df[df["d"] == d]
        for L, sub in part.groupby("blocks"):
            ax.plot(sub["degree"] + 0.08 * (i - 1), np.maximum(sub["max_rel_error"], 1e-18),
                    marker=MARKERS[int(L) % len(MARKERS)], ms=4, lw=0.8,
                    color=PALETTE[int(L) % len(PALETTE)],
                    label=f"L = {L} blocks" if i == 0 else None)
    ax.axhline(1e-9, color="black", ls="--", lw=1)
    ax.axhline(1e-2, color="grey", ls=":", lw=1)
    ax.set_yscale("log")
    ax.set_xlabel(f"target degree (d = {', '.join(map(str, ds))} side by side)")
    ax.set_ylabel("max relative error")
    ax.set_title("Fixed attention blocks: exact up to degree L")
    ax.legend(fontsize=7)


def polynomial_regression(ax, df):
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
    ax.set_title("No approximation/sample trade-off when L ≥ degree")
    ax.legend(fontsize=7)


PLOTS = {
    "lemma6_softmax": (lemma6_softmax, "lemma6_softmax"),
    "approximation_error": (approximation_error, "approximation"),
    "pattern_connections": (pattern_connections, "patterns"),
    "pattern_depth": (pattern_depth, "patterns"),
    "polynomial_staircase": (polynomial_staircase, "staircase"),
    "polynomial_regression": (polynomial_regression, "regression"),
}
for name, (plot, table) in PLOTS.items():
    df = read_table(snakemake.input[table])
    with figure() as (fig, ax):
        plot(ax, df)
        save(fig, snakemake.output[name], snakemake.output[f"{name}_pdf"])
