"""Universal-approximation claims on Fang et al. 2022: L fixed attention blocks give every
polynomial of degree <= L with zero error (our block construction, checked in float64), and the
ablation of its adaptations (softmax, LayerNorm) against the read-out's float64 floor."""

from __future__ import annotations

from expressivity.claims import Claim, Measurement, on_items
from expressivity.claims.universal_approximation.common import FANG, FANG_PROV
from expressivity.fit import loglog_fit


def _stair(t, exact):
    df = t["polynomial_staircase"]
    part = df[(df["blocks"] >= df["degree"]) if exact else (df["blocks"] < df["degree"])]
    if (m := on_items(len(part), "cell with blocks " + (">= degree" if exact else "< degree"))):
        return m
    val = part["max_rel_error"].max() if exact else part["max_rel_error"].min()
    return Measurement(float(val), "float64",
                       f"{len(part)} (d, blocks, degree) cells; worst condition number "
                       f"{part['condition'].max():.2g}")


def _regression(t, exact):
    df = t["polynomial_regression"]
    if (m := on_items(len(df), "regression run")):
        return m
    deg = int(df["degree"].iloc[0])
    part = df[df["blocks"] == (deg if exact else deg - 1)].sort_values("n_train")
    if not exact:
        part = part.iloc[len(part) // 2:]
    if (m := on_items(int(part["n_train"].nunique() >= 2), "two training sizes to fit a slope")):
        return m
    s = loglog_fit(part["n_train"], part["excess_mse"]).slope
    return Measurement(abs(s + 1) if exact else s, "float64",
                       f"slope {s:.3f} over N = {part['n_train'].min()}..{part['n_train'].max()}; "
                       f"excess at the largest N {part['excess_mse'].iloc[-1]:.3g}")


def _ablation(t, variants):
    """How far (decades) the variants' best cell with blocks >= degree lies above the band in
    which rounding put the softmax-free blocks' errors on the same cells, both relative to each
    cell's measured float64 floor of the read-out (``polynomial.readout_floor``)."""
    df = t["polynomial_ablation"]
    exact = df[df["blocks"] >= df["degree"]]
    gap = exact["log10_error"] - exact["log10_floor"]
    arm, free = gap[exact["variant"].isin(variants)], gap[exact["variant"] == "softmax_free"]
    if (m := on_items(len(arm), f"{' or '.join(variants)} cell with blocks >= degree")):
        return m
    if (m := on_items(len(free), "softmax-free cell with blocks >= degree (the rounding band)")):
        return m
    cells = exact.loc[arm.index]
    best = cells.loc[arm.idxmin()]
    return Measurement(float(arm.min() - free.max()), "float64",
                       f"{len(arm)} cells; best {best['variant']} cell (d = {best['d']}, "
                       f"L = {best['blocks']}, degree {best['degree']}) at 10^{arm.min():.1f} x "
                       f"the floor; softmax-free band up to 10^{free.max():.1f} x the floor; "
                       f"floors 10^{exact['log10_floor'].min():.1f}..10^"
                       f"{exact['log10_floor'].max():.1f}; feature rank "
                       f"{int(cells['feature_rank'].min())}..{int(cells['feature_rank'].max())} "
                       f"of T = {int(cells['tokens'].min())}..{int(cells['tokens'].max())}")


_ABLATION_WHY = ("0 decades above the band in which float64 rounding put the softmax-free blocks' "
                 "errors on the same cells (each error over its cell's floor, the rounding of the "
                 "read-out measured in the same run by refitting a target the features represent "
                 "exactly): a variant at or inside that band would be exact to rounding")

CLAIMS = [
    Claim(
        id="universal_approximation.polynomial_exact",
        kind="check", basis="convention",
        control="linear algebra of our features",
        paper=FANG, where="main theorem (abstract)",
        statement="L fixed, untrained single-head attention blocks with a linear read-out give "
                  "every polynomial of degree <= L with zero error",
        provenance=FANG_PROV,
        metric="max relative error over cells with blocks >= degree", op="<=", threshold=1e-9,
        why="zero in exact arithmetic; float64 least squares with condition numbers up to ~1e8 "
            "loses at most ~1e-8 x 1e-16 x size, far below 1e-9",
        figure="polynomial_staircase", tables=("polynomial_staircase",),
        evaluate=lambda t: _stair(t, True),
    ),
    Claim(
        id="universal_approximation.polynomial_cutoff",
        kind="check", basis="convention",
        control="linear algebra of our features",
        paper=FANG, where="main theorem (number of blocks = degree)",
        statement="with fewer blocks than the degree the error is at least 1e-2",
        provenance=FANG_PROV,
        metric="min relative error over cells with blocks < degree", op=">=", threshold=1e-2,
        why="the features span only degree <= L; the top-degree Chebyshev part (|c| >= 1) is at "
            "sup-distance >= |c_k| from that space in one variable",
        figure="polynomial_staircase", tables=("polynomial_staircase",),
        evaluate=lambda t: _stair(t, False),
    ),
    Claim(
        id="universal_approximation.polynomial_no_tradeoff",
        kind="check", basis="convention",
        control="least-squares variance sigma^2 T / N of our features",
        paper=FANG, where="ICLR 2023 version, abstract (MSE analysis)",
        statement="with blocks >= degree the excess test risk falls like 1/N (no approximation "
                  "floor)",
        provenance=FANG_PROV,
        metric="|log-log slope + 1|", op="<=", threshold=0.2,
        why="least squares with T features and no bias has excess risk sigma^2 T / (N - T - 1), "
            "slope -1; 0.2 is the issue's tolerance for Monte-Carlo noise",
        figure="polynomial_regression", tables=("polynomial_regression",),
        evaluate=lambda t: _regression(t, True),
    ),
    Claim(
        id="universal_approximation.polynomial_floor",
        kind="check", basis="convention",
        control="least-squares variance of our features",
        paper=FANG, where="ICLR 2023 version, abstract (trade-off avoided only when exact)",
        statement="with blocks = degree - 1 the excess risk stalls at a floor",
        provenance=FANG_PROV,
        metric="log-log slope over the upper half of N", op=">=", threshold=-0.5,
        why="bias^2 + sigma^2 T/N tends to the constant bias^2 (slope 0) while an exact model "
            "keeps slope -1; -0.5 separates the two",
        figure="polynomial_regression", tables=("polynomial_regression",),
        evaluate=lambda t: _regression(t, False),
    ),
    Claim(
        id="universal_approximation.polynomial_softmax_no_staircase",
        kind="check", basis="measured spread",
        control="identity: softmax rows sum to 1, so the constant value slot z = 1 stays "
                "constant (feature rank 1) at every score scale",
        paper=FANG, where="main theorem, 'suitable adaptations' (abstract)",
        statement="the same blocks with a row softmax, at scale 1 or at a learned score scale, "
                  "have no staircase: their error with L >= degree blocks stays above the "
                  "softmax-free blocks' float64 floor",
        provenance=FANG_PROV,
        metric="decades between the best softmax cell with L >= degree and the softmax-free "
               "rounding band (errors over the measured read-out floor)", op=">", threshold=0.0,
        why=_ABLATION_WHY,
        figure="polynomial_ablation", tables=("polynomial_ablation",),
        evaluate=lambda t: _ablation(t, ("softmax", "softmax_scaled")),
    ),
    Claim(
        id="universal_approximation.polynomial_layernorm_no_staircase",
        kind="finding", basis="measured spread",
        control="softmax-free blocks with a post-block LayerNorm (Vaswani et al.'s encoder "
                "block): the alternative that the adaptation 'no normalisation' is unnecessary, "
                "their features being full-rank",
        paper=FANG, where="main theorem, 'suitable adaptations' (abstract)",
        statement="softmax-free blocks followed by a LayerNorm have no staircase: their error "
                  "with L >= degree blocks stays above the softmax-free blocks' float64 floor",
        provenance=FANG_PROV,
        metric="decades between the best LayerNorm cell with L >= degree and the softmax-free "
               "rounding band (errors over the measured read-out floor)", op=">", threshold=0.0,
        why=_ABLATION_WHY,
        figure="polynomial_ablation", tables=("polynomial_ablation",),
        evaluate=lambda t: _ablation(t, ("layernorm",)),
    ),
]
