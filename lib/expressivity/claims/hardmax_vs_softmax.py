"""Claims of the hardmax-versus-softmax stage (Kajitsuka & Sato 2024; BigBird Prop. 1)."""

from __future__ import annotations

import numpy as np

from expressivity.claims import Claim, Measurement
from expressivity.theorem1 import HARDMAX_GAP_BOUND

KS = "Kajitsuka & Sato 2024"
BB = "Zaheer et al. 2020 (BigBird)"


def _count(mask, what: str, precision: str = "float64") -> Measurement:
    return Measurement(float(np.sum(mask)), precision, f"{int(np.sum(mask))} of {len(mask)} {what}")


def _precision(df) -> str:
    used = sorted(set(df["precision"]))
    return "+".join(used)


def _violations(df, columns: list[str], what: str) -> Measurement:
    """Vectors with a negative margin; not evaluated (nan) when a margin is undecided."""
    margins = df[columns]
    undecided = int(margins.isna().any(axis=1).sum())
    if undecided:
        return Measurement(float("nan"), _precision(df),
                           f"{undecided} of {len(df)} vectors undecided at the highest precision")
    return _count((margins < 0).any(axis=1), what, _precision(df))


def _bounds(t):
    return _violations(t["boltzmann_checks"], ["upper_margin", "lower_margin"],
                       "vectors violate a bound")


def _limit(t):
    return _violations(t["boltzmann_checks"], ["limit_margin"],
                       "vectors violate monotonicity or the log(n)/beta band")


def _append(t):
    df = t["boltzmann_checks"]
    return _count(~df["append_ok"].astype(bool), "vectors move the wrong way", _precision(df))


def _rank1(t):
    df = t["boltzmann_checks"]
    return _count(df["rank1_abs_error"] > df["rank1_tolerance"], "vectors exceed the rounding bound")


def _hardmax_gap(t):
    df = t["theorem1_search"]
    return Measurement(float(df["gap_hardmax"].max()), "float64",
                       f"max over {len(df)} random one-layer hardmax attentions")


def _hardmax_exact(t):
    checked = t["theorem1_search"]["hardmax_equal_exact"].dropna().astype(bool)
    if checked.empty:
        return Measurement(float("nan"), "exact rational", "no draw was checked exactly")
    return _count(~checked, "exactly checked draws differ", "exact rational")


def _softmax_gap(t):
    df = t["theorem1_search"]
    live = df[df["weight_scale"] > 0]
    return Measurement(float(live["gap_softmax"].median()), "float64",
                       f"median over {len(live)} draws with nonzero weights; "
                       f"max {live['gap_softmax'].max():.3g}")


def _memorizer(t):
    df = t["theorem1_memorizer"]
    wrong = int((df["predicted"] != df["label"]).sum())
    return Measurement(float((df["output"] - df["label"]).abs().max()), "float64",
                       f"{wrong} of {len(df)} labels wrong; {int(df['n_parameters'].iloc[0])} "
                       "parameters")


def _bigbird_hardmax(t):
    df = t["bigbird"]
    hard = df[df["sigma"] == "hardmax"]
    return Measurement(float(hard["accuracy"].min()), "float64",
                       f"{len(hard)} instances, n up to {int(hard['n'].max())}")


def _bigbird_softmax(t):
    df = t["bigbird"]
    soft = df[(df["sigma"] == "softmax") & df["at_or_above_sufficient"].astype(bool)]
    if soft.empty:
        return Measurement(float("nan"), "float64", "no beta at or above the sufficient value")
    return Measurement(float(soft["accuracy"].min()), "float64",
                       f"{len(soft)} (instance, beta) pairs with beta >= beta_sufficient")


BOLTZ_PROV = (f"operator and its link to attention: {KS} [V]; properties: derived and checked "
              "by us [D]")

CLAIMS = [
    Claim(
        id="hardmax_vs_softmax.boltzmann_bounds",
        kind="check", basis="mathematics",
        control="identity: an inequality of the Boltzmann operator, true for every vector",
        paper=KS, where="Sec. 3 (Boltzmann operator)",
        statement="max(a) - log n <= boltz(a) <= max(a) for every vector a of length n",
        provenance=BOLTZ_PROV,
        metric="vectors violating a bound", op="==", threshold=0,
        why="an inequality holds for all a: one violation refutes it; margins float64 cannot "
            "resolve are decided in mpmath",
        figure="boltzmann_limit", tables=("boltzmann_checks",), evaluate=_bounds,
    ),
    Claim(
        id="hardmax_vs_softmax.boltzmann_hardmax_limit",
        kind="check", basis="mathematics",
        control="identity: monotone limit of boltz(beta a)/beta",
        paper=KS, where="Sec. 3 (softmax versus hardmax)",
        statement="boltz(beta a)/beta is non-decreasing in beta and within log(n)/beta of max(a), "
                  "so it tends to max(a): softmax attention tends to hardmax",
        provenance=BOLTZ_PROV,
        metric="vectors violating monotonicity or the band", op="==", threshold=0,
        why="the derivative in beta is a variance (>= 0) and the band follows from the bounds: "
            "both hold for every vector",
        figure="boltzmann_limit", tables=("boltzmann_checks",), evaluate=_limit,
    ),
    Claim(
        id="hardmax_vs_softmax.boltzmann_append",
        kind="check", basis="mathematics",
        control="identity: boltz(a + [t]) is a convex combination",
        paper=KS, where="Sec. 3 (monotonicity lemma, recalled [R])",
        statement="appending t to a lowers boltz exactly when t < boltz(a)",
        provenance=BOLTZ_PROV,
        metric="vectors where boltz moves against sign(t - boltz(a))", op="==", threshold=0,
        why="boltz(a + [t]) is a convex combination of boltz(a) and t, so the sign is exact",
        figure="boltzmann_limit", tables=("boltzmann_checks",), evaluate=_append,
    ),
    Claim(
        id="hardmax_vs_softmax.rank1_attention_is_boltzmann",
        kind="check", basis="mathematics",
        control="identity between two computations of one quantity",
        paper=KS, where="Sec. 3 (connection softmax - Boltzmann)",
        statement="with W_K = w^T, W_Q = lam w^T, W_V = w^T the attention value of query k is "
                  "boltz(lam z_k z)/(lam z_k), z = Xw",
        provenance=BOLTZ_PROV,
        metric="vectors whose two computations differ beyond float64 rounding", op="==",
        threshold=0,
        why="an identity: the two sides may differ only by rounding, bounded by 16 n eps (max|a| + "
            "log n + 1)",
        figure="boltzmann_limit", tables=("boltzmann_checks",), evaluate=_rank1,
    ),
    Claim(
        id="hardmax_vs_softmax.theorem1_hardmax_blind",
        kind="check", basis="mathematics",
        control="float64 twin of theorem1_hardmax_exact, within a rounding bound",
        paper=KS, where="Theorem 1",
        statement="one-layer hardmax attention (any heads, head size, weights) gives identical "
                  "outputs at the shared tokens of (1,2,4,5)e and (1,2.5,3.5,5)e, so a one-layer "
                  "hardmax Transformer cannot memorize their labels",
        provenance=f"statement: {KS} Thm 1 [V]; counterexample dataset and argument: ours [D]",
        metric="max output difference at the shared tokens", op="<=", threshold=HARDMAX_GAP_BOUND,
        why="the outputs are mathematically equal (max, min and mean coincide); 1e-12 bounds "
            "float64 rounding of outputs of size <= 1e3",
        figure="theorem1_gaps", tables=("theorem1_search",), evaluate=_hardmax_gap,
    ),
    Claim(
        id="hardmax_vs_softmax.theorem1_hardmax_exact",
        kind="finding", basis="mathematics",
        control="rules out a hardmax layer that separates the pair; control arm: softmax on the same "
                "draws does (theorem1_softmax_sees)",
        paper=KS, where="Theorem 1",
        statement="the same outputs are equal exactly in rational arithmetic (no rounding at all)",
        provenance=f"statement: {KS} Thm 1 [V]; counterexample dataset and argument: ours [D]",
        metric="exactly checked draws whose outputs differ", op="==", threshold=0,
        why="exact equality is the theorem's content; rational arithmetic has no rounding",
        figure="theorem1_gaps", tables=("theorem1_search",), evaluate=_hardmax_exact,
    ),
    Claim(
        id="hardmax_vs_softmax.theorem1_softmax_sees",
        kind="finding", basis="convention",
        control="rules out softmax being as blind as hardmax on the pair; control arm: hardmax on the"
                " same draws (gap exactly 0)",
        paper=KS, where="Theorem 1 versus Theorem 2",
        statement="softmax attention on the same draws separates the shared tokens",
        provenance=f"{KS} [V] (softmax is a contextual mapping); measurement ours [D]",
        metric="median softmax output difference (nonzero weights)", op=">=",
        threshold=1e6 * HARDMAX_GAP_BOUND,
        why="a million times the hardmax rounding bound 1e-12: the difference is structural, "
            "not rounding",
        figure="theorem1_gaps", tables=("theorem1_search",), evaluate=_softmax_gap,
    ),
    Claim(
        id="hardmax_vs_softmax.theorem1_softmax_memorizes",
        kind="check", basis="mathematics",
        control="our explicit construction evaluated",
        paper=KS, where="Theorem 2 / Corollary 1 on the Theorem 1 dataset",
        statement="one explicit one-layer, single-head, rank-1 softmax Transformer with a "
                  "Zhang et al. ReLU FFN reproduces all eight labels",
        provenance=f"{KS} Cor. 1 [R]; FFN: Zhang et al. 2017 Thm 1 [V]; explicit weights: ours [D]",
        metric="max |output - label|", op="<=", threshold=1e-9,
        why="the interpolant is exact in exact arithmetic; 1e-9 bounds float64 rounding for "
            "feature gaps >= 1e-5",
        figure="theorem1_gaps", tables=("theorem1_memorizer",), evaluate=_memorizer,
    ),
    Claim(
        id="hardmax_vs_softmax.bigbird_hardmax_exact",
        kind="check", basis="mathematics",
        control="the construction evaluated (exact by construction)",
        paper=BB, where="Prop. 1 (Sec. 3.4, App. C)",
        statement="one dense hardmax attention layer (Q = -a, K = a, V = [0; a]) returns every "
                  "unit vector's furthest vector exactly; the sparse lower bound (Omega~(n^(1-o(1))) "
                  "layers for O~(n) edges) rests on the Orthogonal Vectors Conjecture and is not "
                  "verified here",
        provenance=f"{BB} Prop. 1 [V], construction [V]",
        metric="min fraction of queries answered exactly", op="==", threshold=1,
        why="the construction is exact: hardmax puts weight 1 on the minimum inner product",
        figure="bigbird_accuracy", tables=("bigbird",), evaluate=_bigbird_hardmax,
    ),
    Claim(
        id="hardmax_vs_softmax.bigbird_softmax_limit",
        kind="check", basis="mathematics",
        control="a rigorous sufficient bound, loose (tightness in the note)",
        paper=BB, where="Prop. 1 with softmax",
        statement="softmax attention at inverse temperature beta finds every furthest vector once "
                  "beta exceeds the instance's sufficient value",
        provenance=f"{BB} [V]; sufficient beta derived by us [D]",
        metric="min accuracy at beta >= beta_sufficient", op="==", threshold=1,
        why="beta_sufficient makes the weight on the furthest vector exceed 1 - s/4, which puts "
            "the output nearer to it than to any other vector",
        figure="bigbird_accuracy", tables=("bigbird",), evaluate=_bigbird_softmax,
    ),
]
