"""Universal-approximation claims on Fang et al. 2022: L fixed attention blocks give every
polynomial of degree <= L with zero error (our block construction, checked in float64), and the
ablation of its adaptations (softmax, LayerNorm) against the read-out's float64 floor."""

from __future__ import annotations

import numpy as np

from expressivity.claims import Claim, Measurement, Power, not_evaluated, on_items
from expressivity.claims.universal_approximation.common import FANG, FANG_PROV
from expressivity.fit import loglog_fit
from expressivity.slope_tests import lines
from expressivity.training_protocol import EXISTS, NONE_EXISTS


def _stair(t, exact):
    df = t["polynomial_staircase"]
    part = df[(df["blocks"] >= df["degree"]) if exact else (df["blocks"] < df["degree"])]
    if (m := on_items(len(part), "cell with blocks " + (">= degree" if exact else "< degree"))):
        return m
    val = part["max_rel_error"].max() if exact else part["max_rel_error"].min()
    return Measurement(float(val), "float64",
                       f"{len(part)} (d, blocks, degree) cells; worst condition number "
                       f"{part['condition'].max():.2g}")


def _arm(df, arm):
    """The rows of one arm of the regression table, by sample size: ``"exact"`` (frozen blocks,
    L = degree), ``"short"`` (L = degree - 1), ``"mlp"`` or ``"transformer"``."""
    deg = int(df["degree"].iloc[0])
    if arm in ("mlp", "transformer"):
        part = df[df["arm"] == arm]
    else:
        part = df[(df["arm"] == "frozen blocks") & (df["blocks"] == (deg if arm == "exact" else deg - 1))]
    return part.sort_values("n_train")


def _regression(t, arm):
    """The exact arm's log-log slope deviation, or the slope over the upper half of N of the
    others (a floor flattens it)."""
    df = t["polynomial_regression"]
    if (m := on_items(len(df), "regression run")):
        return m
    part = _arm(df, arm)
    if arm != "exact":
        part = part.iloc[len(part) // 2:]
    if (m := on_items(int(part["n_train"].nunique() >= 2), "two training sizes to fit a slope")):
        return m
    s = loglog_fit(part["n_train"], part["excess_mse"]).slope
    note = (f"slope {s:.3f} over N = {part['n_train'].min()}..{part['n_train'].max()}; "
            f"excess at the largest N {part['excess_mse'].iloc[-1]:.3g}")
    if arm == "mlp":
        note += (f"; {int(part['parameters'].iloc[0])} parameters; best fit converged in "
                 f"{int(part['converged'].sum())} of {int(part['repeats'].sum())} draws")
    return Measurement(abs(s + 1) if arm == "exact" else s, "float64", note)


#: The margin around slope -1 of the 1/N finding: half way to the nearest alternative rate N^-1/2.
SLOPE_MARGIN = 0.25
#: One-sided level of each of the two tests of the equivalence (a 90 % interval).
SLOPE_ALPHA = 0.05
SLOPE_REPLICATES = 1000


def _slope_bound(log_n, log_excess):
    """``|slope + 1| + t_{0.95, k-2} se`` of the least-squares lines ``log_excess[..., i] ~ a + b
    log_n[i]``: below the margin exactly when the 90 % interval lies inside (-1 - m, -1 + m)."""
    from scipy import stats  # on use, as in expressivity.slope_tests

    _, slope, se = lines(log_n, log_excess)
    return np.abs(slope + 1) + stats.t.ppf(1 - SLOPE_ALPHA, len(log_n) - 2) * se


def _no_tradeoff(t):
    df = t["polynomial_regression"]
    if (m := on_items(len(df), "regression run")):
        return m
    part = _arm(df, "exact")
    if (m := on_items(int(part["n_train"].nunique() >= 3), "three training sizes for a slope "
                                                           "interval")):
        return m
    log_n, log_ex = np.log(part["n_train"].to_numpy(float)), np.log(part["excess_mse"].to_numpy())
    _, slope, se = lines(log_n, log_ex)
    return Measurement(float(_slope_bound(log_n, log_ex)), "float64",
                       f"slope {float(slope):.3f} +- {float(se):.3f} (se) over N = "
                       f"{part['n_train'].min()}..{part['n_train'].max()}, {len(part)} sizes x "
                       f"{int(part['repeats'].min())} draws; excess at the largest N "
                       f"{part['excess_mse'].iloc[-1]:.3g} (sigma^2 T / N = "
                       f"{part['variance_prediction'].iloc[-1]:.3g})")


def _no_tradeoff_power(t, rng):
    """The exact arm's design (its sample sizes, each size's measured spread of log excess)
    under two alternatives through its excess at the middle size: a floor there (``sigma^2 T / N
    + b``, b the curve's value at the middle size) and the rate N^-1/2."""
    df = t["polynomial_regression"]
    part = _arm(df, "exact") if len(df) else df
    if len(part) < 3:
        return []
    n = part["n_train"].to_numpy(float)
    spread = part["log_excess_se"].to_numpy(float)
    mid = len(n) // 2
    variance = part["variance_prediction"].to_numpy(float)
    curves = {"a floor at the middle size's excess": variance + variance[mid],
              "the rate N^-1/2": variance[mid] * np.sqrt(n[mid] / n)}
    out = []
    for name, curve in curves.items():
        noisy = np.log(curve) + spread * rng.normal(size=(SLOPE_REPLICATES, len(n)))
        rejected = int((_slope_bound(np.log(n), noisy) >= SLOPE_MARGIN).sum())
        out.append(Power(name, SLOPE_REPLICATES, rejected,
                         f"{len(n)} sizes, each with its measured se of log excess"))
    return out


def _floor_bound(part, log_excess):
    """The lower end of the one-sided 95 % interval of the slope of ``log_excess[..., i]`` (one
    value per size of ``part``) against log N, the sizes weighted by their runs ``r_i``, its
    standard error from the spread measured over the runs: the pooled variance of one run's log
    excess, ``s^2 = sum_i r_i (r_i - 1) se_i^2 / sum_i (r_i - 1)`` (``se_i``: ``log_excess_se``),
    and Student's t with ``sum_i (r_i - 1)`` degrees of freedom. Above ``-1 + SLOPE_MARGIN``
    exactly when the interval excludes the 1/N rate and its equivalence margin."""
    from scipy import stats  # on use, as in expressivity.slope_tests

    x = np.log(part["n_train"].to_numpy(float))
    r = part["repeats"].to_numpy(float)
    dof = float((r - 1).sum())
    s2 = float((r * (r - 1) * part["log_excess_se"].to_numpy(float) ** 2).sum() / dof)
    xc = x - (r * x).sum() / r.sum()
    sxx = float((r * xc**2).sum())
    slope = (np.asarray(log_excess) * r * xc).sum(-1) / sxx
    return slope - stats.t.ppf(1 - SLOPE_ALPHA, dof) * np.sqrt(s2 / sxx), slope, np.sqrt(s2 / sxx)


def _upper_half(df, arm):
    part = _arm(df, arm) if len(df) else df
    return part.iloc[len(part) // 2:]


def _transformer_floor(t):
    """The transformer's slope bound (``_floor_bound``) over the upper half of N; not evaluated
    (``paper config``) when a run stopped at its step budget (a longer run could lower the
    floor), with fewer than three sizes there (no interval) ``no items``."""
    df = t["polynomial_regression"]
    if (m := on_items(len(df), "regression run")):
        return m
    part = _upper_half(df, "transformer")
    if (m := on_items(len(part), "transformer run")):
        return m
    if (m := on_items(int(part["n_train"].nunique() >= 3),
                      "three training sizes in the upper half for a slope interval")):
        return m
    bound, slope, se = _floor_bound(part, np.log(part["excess_mse"].to_numpy()))
    exact = _arm(df, "exact")
    exact = exact[exact["n_train"].isin(part["n_train"])]
    outcomes = " ".join(part["transformer_outcomes"]).split()
    note = (f"transformer ({int(part['parameters'].iloc[0])} parameters) slope {float(slope):.3f}"
            f" +- {float(se):.3f} (se) over N = {part['n_train'].min()}..{part['n_train'].max()}, "
            f"{int(part['repeats'].min())} runs a size ({outcomes.count('reached')} reached the "
            f"noise level, {outcomes.count('plateau')} plateaued after their decay, "
            f"{outcomes.count('budget')} at the budget); excess at the largest N "
            f"{part['excess_mse'].iloc[-1]:.3g} against the frozen blocks' "
            f"{exact['excess_mse'].iloc[-1]:.3g} ({int(exact['parameters'].iloc[0])} read-out "
            f"weights), whose slope there is "
            f"{loglog_fit(exact['n_train'], exact['excess_mse']).slope:.3f}")
    if "budget" in outcomes:
        return not_evaluated("paper config", note + "; a run at its step budget decides nothing "
                             "(config/paper.yaml trains longer)")
    return Measurement(float(bound), "float64", note)


def _transformer_floor_power(t, rng):
    """The transformer arm's design (its upper-half sizes, each size's measured spread of log
    excess) under the alternative that it falls like the frozen blocks, as 1/N from its excess at
    the smallest of these sizes."""
    part = _upper_half(t["polynomial_regression"], "transformer")
    if len(part) < 3:
        return []
    n = part["n_train"].to_numpy(float)
    curve = part["excess_mse"].iloc[0] * n[0] / n
    noisy = np.log(curve) + part["log_excess_se"].to_numpy(float) * rng.normal(
        size=(SLOPE_REPLICATES, len(n)))
    rejected = int((_floor_bound(part, noisy)[0] <= -1 + SLOPE_MARGIN).sum())
    return [Power("the rate 1/N (as the frozen blocks)", SLOPE_REPLICATES, rejected,
                  f"{len(n)} sizes, each with its measured se of log excess")]


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


#: The cells of the trained-blocks table each claim reads: degree <= L (the fixed construction's),
#: L < degree <= 3^L (beyond it, inside the trained blocks' degree bound), degree > 3^L, and the
#: targets that are not affine (2 <= degree <= 3^L, the softmax control's).
TRAINED_CELLS = {
    "exact": lambda c: c["degree"] <= c["blocks"],
    "beyond": lambda c: (c["degree"] > c["blocks"]) & (c["degree"] <= c["degree_bound"]),
    "bound": lambda c: c["degree"] > c["degree_bound"],
    "nonaffine": lambda c: (c["degree"] >= 2) & (c["degree"] <= c["degree_bound"]),
}


#: The control of every training claim (the trained-models protocol, ``training_protocol``).
PROTOCOL = ("another seed and a longer run: every cell runs several seeds, no run is called a "
            "plateau before its learning rate decayed and it stalled over a second window, and a "
            "cell with a run at its budget decides nothing")


def _trained(t, variant: str, which: str, every: bool):
    """Over the trained cells ``which`` of ``variant``: with ``every`` the fraction of cells where
    some seed reached the target (existence in every cell), else the number of such cells (none
    may). Not evaluated (``paper config``) when a cell is left open by a run at its budget and the
    others do not decide it already."""
    df = t["polynomial_trained"]
    part = df[df["variant"] == variant]
    c = part.groupby(["blocks", "degree"], as_index=False).first() if len(part) else part
    c = c[TRAINED_CELLS[which](c)] if len(c) else c
    if (m := on_items(len(c), f"{variant} cell ({which})")):
        return m
    values = c["cell_existence"].map({EXISTS: 1.0, NONE_EXISTS: 0.0})
    note = "; ".join(f"L = {r.blocks}, degree {r.degree}: {r.cell_existence}, {r.cell_reached}/"
                     f"{r.cell_seeds} seeds (95 % {r.cell_reliability_lo:.2f}-"
                     f"{r.cell_reliability_hi:.2f})" for r in c.itertuples())
    note += f"; band {c['band'].iloc[0]:.2f} decades over the floor"
    decided = values.notna().all() or (not every and (values == 1).any()) or (
        every and (values == 0).any())
    if not decided:
        return not_evaluated("paper config", note + "; a cell with no seed at the target has a run "
                             "at its budget (config/paper.yaml runs longer)")
    return Measurement(float((values == 1).mean() if every else (values == 1).sum()), "float64",
                       note)


_TRAINED_WHY = ("the target is the error within the rounding band of each run's own float64 "
                "read-out floor (the band measured in the same run: the fixed construction's "
                "largest error over its floor on the same cells); ")

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
        kind="finding", basis="measured spread",
        control="a bias floor (sigma^2 T / N + b) and the rate N^-1/2, simulated with the same "
                "sample sizes and measured spread",
        alternatives=("a floor at the middle size's excess", "the rate N^-1/2"),
        power=_no_tradeoff_power,
        paper=FANG, where="ICLR 2023 version, abstract (MSE analysis)",
        statement="with blocks = degree (frozen, least-squares read-out) the excess test risk "
                  "falls like 1/N over the whole range of N: no approximation floor",
        provenance=FANG_PROV,
        metric="|slope + 1| + t(0.95) se of log excess against log N (the 90 % interval's "
               "distance from -1)", op="<", threshold=SLOPE_MARGIN,
        why="equivalence test (two one-sided tests at 5 %) that the slope lies within 0.25 of "
            "-1: least squares with T features and no bias has excess sigma^2 T / (N - T - 1), "
            "slope -1 up to (T + 1) / (N - T - 1) < 0.1 at the smallest N; 0.25 is half way to "
            "the nearest alternative rate, N^-1/2",
        figure="polynomial_regression", tables=("polynomial_regression",),
        evaluate=_no_tradeoff,
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
        evaluate=lambda t: _regression(t, "short"),
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
    Claim(
        id="universal_approximation.polynomial_mlp_floor",
        kind="check", basis="convention",
        control="capacity: a tanh network with at most T parameters on the same draws",
        paper=FANG, where="ICLR 2023 version, abstract (the trade-off of standard models)",
        statement="a tanh network with as many parameters as the frozen blocks' read-out "
                  "(fitted by Levenberg-Marquardt, best of several starts) stalls at a floor",
        provenance=FANG_PROV + "; the baseline network is ours [O]",
        metric="log-log slope over the upper half of N", op=">=", threshold=-0.5,
        why="bias^2 + variance tends to the network's approximation error (slope 0) while an "
            "exact model keeps slope -1; -0.5 separates the two, as for polynomial_floor",
        figure="polynomial_regression", tables=("polynomial_regression",),
        evaluate=lambda t: _regression(t, "mlp"),
    ),
    Claim(
        id="universal_approximation.polynomial_transformer_floor",
        kind="finding", basis="measured spread", quantifier="mean",
        control="a standard one-head transformer (softmax attention, LayerNorm, ReLU MLP, "
                "linear read-out) on the frozen blocks' tokens, trained with Adam on the same "
                "draws; " + PROTOCOL,
        alternatives=("the rate 1/N (as the frozen blocks)",),
        power=_transformer_floor_power,
        paper=FANG, where="ICLR 2023 version, abstract (the trade-off of standard models)",
        statement="a trained standard one-head transformer shows an excess-risk floor where the "
                  "frozen blocks' falls like 1/N (polynomial_no_tradeoff): its excess over the "
                  "upper half of N falls more slowly than 1/N",
        provenance=FANG_PROV + "; the transformer and its protocol are ours [O]",
        metric="slope - t(0.95) se of log mean excess against log N over the upper half of N "
               "(the lower end of a one-sided 95 % interval; se from the spread over the runs)",
        op=">", threshold=-1 + SLOPE_MARGIN,
        why="the interval excludes slope -1 and its equivalence margin 0.25 (polynomial_"
            "no_tradeoff's, half way to N^-1/2); the slope's standard error from the pooled "
            "spread of log excess over the runs of each size in the same table; a transformer "
            "that also fell like 1/N would fail it",
        figure="polynomial_regression", tables=("polynomial_regression",),
        evaluate=_transformer_floor,
    ),
    Claim(
        id="universal_approximation.polynomial_trained_exact",
        kind="finding", basis="measured spread", quantifier="existence",
        control="softmax-free blocks trained from random weights (Adam) instead of fixed; "
                + PROTOCOL,
        paper=FANG, where="main theorem (abstract): weights exist; here found by training",
        statement="L softmax-free blocks trained from random weights reach the float64 floor of "
                  "the least-squares read-out on a polynomial of every degree <= L (some seed)",
        provenance=FANG_PROV + "; the trained blocks and their protocol are ours [O]",
        metric="fraction of (L, degree <= L) cells where some seed reached the target",
        op=">=", threshold=1.0,
        why=_TRAINED_WHY + "1: every cell has its existence",
        figure="polynomial_trained", tables=("polynomial_trained",),
        evaluate=lambda t: _trained(t, "softmax_free", "exact", True),
    ),
    Claim(
        id="universal_approximation.polynomial_trained_beyond_staircase",
        kind="finding", basis="measured spread", quantifier="existence",
        control="the fixed construction's staircase (L blocks stop at degree L; "
                "polynomial_cutoff); " + PROTOCOL,
        paper=FANG, where="main theorem (number of blocks = degree), read as a bound",
        statement="trained softmax-free blocks go beyond the staircase: L of them reach the floor "
                  "on a polynomial of degree L + 1..3^L (some seed), since a trained block "
                  "multiplies three linear forms of the state",
        provenance=FANG_PROV + "; the degree bound 3^L and the trained blocks are ours [O]",
        metric="number of (L, L < degree <= 3^L) cells where some seed reached the target",
        op=">", threshold=0.0,
        why=_TRAINED_WHY + "one cell is an instance against 'L blocks give degree L at most'",
        figure="polynomial_trained", tables=("polynomial_trained",),
        evaluate=lambda t: _trained(t, "softmax_free", "beyond", False),
    ),
    Claim(
        id="universal_approximation.polynomial_trained_degree_bound",
        kind="check", basis="mathematics", quantifier="cannot",
        control="capacity: L trained softmax-free blocks give features of degree <= 3^L",
        paper=FANG, where="main theorem (number of blocks = degree), read as a bound",
        statement="no seed of L trained softmax-free blocks reaches the floor on a polynomial of "
                  "degree 3^L + 1",
        provenance=FANG_PROV + "; the degree bound 3^L is ours [O]",
        metric="number of (L, degree > 3^L) cells where some seed reached the target",
        op="<=", threshold=0.0,
        why=_TRAINED_WHY + "the top-degree Chebyshev part (|c| >= 1) is at sup-distance about "
            "|c| from degree <= 3^L, far above any floor",
        figure="polynomial_trained", tables=("polynomial_trained",),
        evaluate=lambda t: _trained(t, "softmax_free", "bound", False),
    ),
    Claim(
        id="universal_approximation.polynomial_trained_softmax",
        kind="finding", basis="measured spread", quantifier="cannot",
        control="softmax-free blocks trained the same way from the same weights on the same "
                "cells; " + PROTOCOL,
        paper=FANG, where="main theorem, 'suitable adaptations' (abstract)",
        statement="blocks with a row softmax, trained the same way, reach the floor on no "
                  "polynomial of degree 2..3^L (no seed): the adaptation is needed by trained "
                  "blocks too",
        provenance=FANG_PROV + "; the trained blocks are ours [O]",
        metric="number of (L, 2 <= degree <= 3^L) cells where some softmax seed reached the "
               "target", op="<=", threshold=0.0,
        why=_TRAINED_WHY + "no capacity argument backs it (softmax features approach "
            "polynomials as the scores shrink, with read-out weights and floor growing): a cell "
            "where a seed reaches the floor contradicts it",
        figure="polynomial_trained", tables=("polynomial_trained",),
        evaluate=lambda t: _trained(t, "softmax", "nonaffine", False),
    ),
]
