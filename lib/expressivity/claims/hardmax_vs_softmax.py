"""Claims of the hardmax-versus-softmax stage (Kajitsuka & Sato 2024; BigBird Prop. 1)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from expressivity.claims import Claim, Measurement, Power, not_evaluated, on_items
from expressivity.trend_test import cochran_armitage

KS = "Kajitsuka & Sato 2024"
#: Replicates of the saturation claim's power simulation.
SATURATION_REPLICATES = 2000
BB = "Zaheer et al. 2020"


def _count(mask, what: str, precision: str = "float64") -> Measurement:
    return Measurement(float(np.sum(mask)), precision, f"{int(np.sum(mask))} of {len(mask)} {what}")


def _certificates(df) -> str:
    """The certificates that decided, with their counts: ``float64 (9634), arb-80 (310), ...``."""
    counts = df["precision"].value_counts()
    digits = {p: (16 if p == "float64" else math.inf if p == "undecided" else int(p.split("-")[1]))
              for p in counts.index}
    return ", ".join(f"{p} ({counts[p]})" for p in sorted(counts.index, key=digits.get))


def _violations(df, columns: list[str], what: str, strict: bool = False) -> Measurement:
    """Vectors with a negative margin (``strict``: a margin <= 0); not evaluated when a margin is
    undecided or there is no vector."""
    if (m := on_items(len(df), "vector")):
        return m
    margins = df[columns].astype(float)
    undecided = int(margins.isna().any(axis=1).sum())
    if undecided:
        return not_evaluated("undecided", f"{undecided} of {len(df)} vectors undecided at the "
                             "highest precision", _certificates(df))
    bad = (margins <= 0) if strict else (margins < 0)
    return _count(bad.any(axis=1), what, _certificates(df))


def _bounds(t):
    return _violations(t["boltzmann_checks"], ["upper_margin", "lower_margin"],
                       "vectors violate a bound")


def _limit(t):
    return _violations(t["boltzmann_checks"], ["limit_margin"],
                       "vectors violate monotonicity or the log(n)/beta band")


def _append(t):
    return _violations(t["boltzmann_checks"], ["append_margin"],
                       "vectors where boltz does not move towards t", strict=True)


def _rank1(t):
    df = t["boltzmann_checks"]
    if (m := on_items(len(df), "vector")):
        return m
    return _count(df["rank1_abs_error"] > df["rank1_tolerance"], "vectors exceed the rounding bound")


def _draws(t) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The draws with nonzero weights, and those at weight scale 0 (``F(X) = X``: both attentions
    trivially give equal outputs), which no claim counts."""
    df = t["theorem1_search"]
    return df[df["weight_scale"] > 0], df[df["weight_scale"] == 0]


def _hardmax_gap(t):
    live, zero = _draws(t)
    if (m := on_items(len(live), "draw with nonzero weights")):
        return m
    above = live["gap_hardmax"] > live["bound_hardmax"]
    return Measurement(float(above.sum()), "float64",
                       f"{int(above.sum())} of {len(live)} nonzero-weight draws; largest gap "
                       f"{live['gap_hardmax'].max():.3g} (bounds {live['bound_hardmax'].min():.2g} "
                       f"to {live['bound_hardmax'].max():.2g}); {len(zero)} zero-weight draws "
                       "apart (trivially equal)")


def _hardmax_exact(t):
    live, zero = _draws(t)
    checked = live["hardmax_equal_exact"].dropna().astype(bool)
    if checked.empty:
        return not_evaluated("no items", "no nonzero-weight draw was checked exactly",
                             "exact rational")
    m = _count(~checked, "exactly checked nonzero-weight draws differ", "exact rational")
    return Measurement(m.value, m.precision, f"{m.note}; {len(zero)} zero-weight draws apart")


def _interval(k: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """Clopper-Pearson interval of a binomial fraction ``k / n``."""
    from scipy import stats  # here, not at the top: the workflow loads the registry at every start

    lo = stats.beta.ppf((1 - level) / 2, k, n - k + 1) if k > 0 else 0.0
    hi = stats.beta.ppf(0.5 + level / 2, k + 1, n - k) if k < n else 1.0
    return float(lo), float(hi)


def _seen(t) -> tuple[np.ndarray, np.ndarray, np.ndarray, str]:
    """Per nonzero weight scale (increasing): the scales, the draws whose softmax gap exceeds its
    float64 rounding bound, the draws; and the counts with 95% Clopper-Pearson intervals, as text."""
    live, _ = _draws(t)
    groups = list(live.groupby("weight_scale"))
    scales = np.array([s for s, _ in groups], dtype=float)
    seen = np.array([int((g["gap_softmax"] > g["bound_softmax"]).sum()) for _, g in groups])
    draws = np.array([len(g) for _, g in groups])
    text = "; ".join(f"scale {s:g}: {k}/{n} [{_interval(k, n)[0]:.3f}, {_interval(k, n)[1]:.3f}]"
                     for s, k, n in zip(scales, seen, draws, strict=True))
    hard = int((live["gap_hardmax"] > live["bound_hardmax"]).sum())
    return scales, seen, draws, f"{text}; hardmax arm: {hard}/{len(live)}"


def _softmax_sees(t):
    scales, seen, draws, text = _seen(t)
    if (m := on_items(len(scales), "draw with nonzero weights")):
        return m
    return Measurement(float((seen / draws).min()), "float64 (derived rounding bound)",
                       "above the float64 bound by weight scale (95% Clopper-Pearson): " + text)


def _saturates(t):
    """Cochran-Armitage trend of the fraction seen against ln(weight scale): its one-sided
    p-value of a fall."""
    scales, seen, draws, text = _seen(t)
    if len(scales) < 2:
        return not_evaluated("no items", "fewer than two nonzero weight scales: no trend")
    z, p = cochran_armitage(seen, draws, np.log(scales))
    if np.isnan(z):
        return not_evaluated("undecided", f"every draw has the same outcome: {text}")
    return Measurement(float(p), "float64 (derived rounding bound)",
                       f"Cochran-Armitage z = {z:.2f} against ln(weight scale); seen by scale: "
                       + text)


def _saturates_power(t, rng) -> list[Power]:
    """No trend: binomial draws at every scale's count with the pooled fraction."""
    scales, seen, draws, _ = _seen(t)
    if len(scales) < 2:
        return []
    pooled = seen.sum() / draws.sum()
    fake = rng.binomial(draws, pooled, size=(SATURATION_REPLICATES, len(draws)))
    _, p = cochran_armitage(fake, draws, np.log(scales))
    return [Power("no trend (the pooled fraction at every scale)", SATURATION_REPLICATES,
                  int((~(p < 0.05)).sum()),
                  "binomial draws with the measured number of draws per weight scale")]


def _softmax_certified(t):
    live, _ = _draws(t)
    if (m := on_items(len(live), "draw with nonzero weights")):
        return m
    cert = live["softmax_certificate"].astype(str)
    log_gap = live["log10_gap_softmax"].astype(float)
    undecided = int((cert == "undecided").sum())
    if undecided:
        return not_evaluated("undecided", f"{undecided} of {len(live)} draws undecided", "arb")
    missing = int((~np.isfinite(log_gap)).sum())
    in_arb = live[cert != "float64"]
    note = f"{len(live) - missing} of {len(live)} nonzero-weight draws certified > 0"
    if len(in_arb):
        zero64 = in_arb[in_arb["gap_softmax"] == 0]
        note += (f"; {len(in_arb)} below float64 resolution, certified in ball arithmetic with "
                 f"gaps 10^{in_arb['log10_gap_softmax'].min():.4g} to "
                 f"10^{in_arb['log10_gap_softmax'].max():.4g} (largest interior weight "
                 f"10^{in_arb['log10_interior_weight'].max():.3g} or less: saturation)")
        if len(zero64):
            note += (f"; {len(zero64)} of them exactly 0 in float64, where every interior weight "
                     f"is at most 10^{zero64['log10_interior_weight'].max():.3g}, below the "
                     "float64 precision of the outputs it would move")
    used = "float64"
    if len(in_arb):
        digits = in_arb["softmax_certificate"].str.split("-").str[1].astype(int)
        used += f" + arb ({digits.min()} to {digits.max()} digits)"
    return Measurement(float(missing), used, note)


def _memorizer(t):
    df = t["theorem1_memorizer"]
    if (m := on_items(len(df), "labelling")):
        return m
    wrong = int((df["n_points"] - df["n_correct"]).sum())
    return Measurement(float(wrong), "arb features + mpmath FFN",
                       f"{len(df)} random labellings (permutations of 0..7: every label distinct, "
                       "so each shared token's two labels differ); largest error "
                       f"10^{df['log10_max_abs_error'].max():.4g}; smallest certified feature gap "
                       f"10^{df['log10_min_feature_gap'].min():.4g}; "
                       f"{int(df['n_parameters'].iloc[0])} parameters")


def _bigbird_hardmax(t):
    df = t["bigbird"]
    hard = df[df["sigma"] == "hardmax"]
    if (m := on_items(len(hard), "hardmax instance")):
        return m
    return Measurement(float(hard["accuracy"].min()), "float64",
                       f"{len(hard)} instances, n up to {int(hard['n'].max())}")


def _tightness(t, column: str) -> Measurement:
    """Smallest ``beta_bound / beta_empirical`` over the instances, with its spread per ``n``."""
    inst = t["bigbird"].groupby(["n", "trial"]).first().reset_index()
    if (m := on_items(len(inst), "instance")):
        return m
    if inst["beta_empirical"].isna().any():
        return not_evaluated("censored", f"{int(inst['beta_empirical'].isna().sum())} instances "
                             "miss a query at every evaluated beta: the grid ends too low")
    ratio = inst[column] / inst["beta_empirical"]
    per_n = "; ".join(f"n = {n}: {r.median():.3g} [{r.min():.3g}, {r.max():.3g}]"
                      for n, r in ratio.groupby(inst["n"]))
    return Measurement(float(ratio.min()), "float64",
                       f"{column} / beta_empirical, median [min, max] over trials: {per_n}")


def _tightness_claim(name: str, column: str, statement: str, provenance: str) -> Claim:
    """A rigorous sufficient inverse temperature of BigBird's softmax layer, as a check whose
    measured value is its tightness ``column / beta_empirical`` (smallest over instances)."""
    return Claim(
        id=f"hardmax_vs_softmax.{name}", kind="check", basis="mathematics",
        control="a rigorous sufficient bound: its tightness ratio reported, not a finding",
        paper=BB, where="Prop. 1 with softmax", statement=statement, provenance=provenance,
        metric=f"smallest tightness {column} / beta_empirical over instances", op=">=",
        threshold=1,
        why="a rigorous sufficient bound: every beta above it answers every query, so it cannot "
            "lie below the smallest working beta of the instance (measured: the smallest "
            "evaluated beta above the largest that misses a query; the bound itself is "
            "evaluated); a ratio below 1 refutes it. The ratio is its tightness",
        figure="bigbird_beta", tables=("bigbird",), evaluate=lambda t: _tightness(t, column),
    )


BOLTZ_PROV = (f"operator and its link to attention: {KS} [V]; properties: derived and checked "
              "by us [D]")
T1_PROV = f"statement: {KS} Thm 1 [V]; counterexample dataset and argument: ours [D]"
CERT = ("decided by float64 when the margin exceeds the derived float64 rounding bound, otherwise "
        "by an arb ball excluding 0 at rising precision; undecided margins are not evaluated")
CLAIMS = [
    Claim(
        id="hardmax_vs_softmax.boltzmann_bounds",
        kind="check", basis="mathematics",
        control="identity: an inequality of the Boltzmann operator, true for every vector",
        paper=KS, where="Sec. 3 (Boltzmann operator)",
        statement="max(a) - log n <= boltz(a) <= max(a) for every vector a of length n",
        provenance=BOLTZ_PROV,
        metric="vectors violating a bound", op="==", threshold=0,
        why=f"an inequality holds for all a: one violation refutes it; {CERT}",
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
            f"both hold for every vector; {CERT}",
        figure="boltzmann_limit", tables=("boltzmann_checks",), evaluate=_limit,
    ),
    Claim(
        id="hardmax_vs_softmax.boltzmann_append",
        kind="check", basis="mathematics",
        control="identity: boltz(a + [t]) is a convex combination",
        paper=KS, where="Sec. 3 (monotonicity lemma, recalled [R])",
        statement="appending t to a moves boltz towards t: it falls exactly when t < boltz(a)",
        provenance=BOLTZ_PROV,
        metric="vectors where boltz does not move towards t", op="==", threshold=0,
        why="boltz(a + [t]) is a convex combination of boltz(a) and t with weight > 0 on t, so "
            f"(boltz(a + [t]) - boltz(a)) sign(t - boltz(a)) > 0; {CERT}",
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
        control="float64 twin of theorem1_hardmax_exact, within a derived rounding bound",
        paper=KS, where="Theorem 1",
        statement="one-layer hardmax attention (any heads, head size, weights) gives identical "
                  "outputs at the shared tokens of (1,2,4,5)e and (1,2.5,3.5,5)e, so a one-layer "
                  "hardmax Transformer cannot memorize their labels",
        provenance=T1_PROV,
        metric="nonzero-weight draws whose float64 hardmax gap exceeds its rounding bound",
        op="==", threshold=0,
        why="the outputs are mathematically equal (max, min and mean coincide); each draw's "
            "bound is the first-order forward error of its two float64 layers, doubled "
            "(expressivity.attention_error)",
        figure="theorem1_gaps", tables=("theorem1_search",), evaluate=_hardmax_gap,
    ),
    Claim(
        id="hardmax_vs_softmax.theorem1_hardmax_exact",
        kind="demonstration", basis="mathematics",
        control="the proof's mechanism on the pair built for it (max, min and mean coincide); "
                "control arm: softmax on the same draws separates it "
                "(theorem1_softmax_certified)",
        paper=KS, where="Theorem 1",
        statement="the same outputs are equal exactly in rational arithmetic (no rounding at all), "
                  "for random weights at every nonzero scale",
        provenance=T1_PROV,
        metric="exactly checked nonzero-weight draws whose outputs differ", op="==", threshold=0,
        why="exact equality is the theorem's content; rational arithmetic has no rounding",
        figure="theorem1_gaps", tables=("theorem1_search",), evaluate=_hardmax_exact,
    ),
    Claim(
        id="hardmax_vs_softmax.theorem1_softmax_certified",
        kind="demonstration", basis="mathematics",
        control="the other arm of the same exhibit: softmax on the draws where hardmax is equal "
                "exactly (theorem1_hardmax_exact); certified in ball arithmetic",
        paper=KS, where="Theorem 1 versus Theorem 2",
        statement="softmax attention with the same random weights separates the shared tokens on "
                  "every draw",
        provenance=f"{KS} [V] (softmax is a contextual mapping); measurement ours [D]",
        metric="nonzero-weight draws whose softmax gap is not certified > 0", op="==",
        threshold=0,
        why="a gap above its float64 rounding bound is certainly nonzero; a gap within it is "
            "recomputed in ball arithmetic (arb) at rising precision until the ball excludes 0; "
            "an exact zero would be hardmax's blindness",
        figure="theorem1_gaps", tables=("theorem1_search",), evaluate=_softmax_certified,
    ),
    Claim(
        id="hardmax_vs_softmax.theorem1_softmax_sees",
        kind="check", basis="mathematics",
        control="a sanity property of the same draws: softmax is not as blind as hardmax in "
                "float64 at any scale (the hardmax arm has no gap above its bound)",
        paper=KS, where="Theorem 1 versus Theorem 2",
        statement="at every nonzero weight scale some softmax layers separate the shared tokens "
                  "by more than float64 resolution",
        provenance=f"{KS} [V] (softmax is a contextual mapping); measurement ours [D]",
        metric="smallest fraction, over weight scales, of draws whose softmax gap exceeds its "
               "float64 rounding bound",
        op=">", threshold=0,
        why="each draw's rounding bound is derived (doubled first-order forward error, "
            "expressivity.attention_error); blind attention leaves every gap within it, as hardmax "
            "does (fraction 0): any fraction above 0 at a scale rules that out there",
        figure="theorem1_gaps", tables=("theorem1_search",), evaluate=_softmax_sees,
    ),
    Claim(
        id="hardmax_vs_softmax.theorem1_softmax_saturates",
        kind="finding", basis="measured spread",
        control="rules out a softmax whose separation above float64 resolution does not fall as "
                "the weights grow (no saturation towards hardmax): the same fraction at every "
                "scale",
        paper=KS, where="Theorem 1 versus Theorem 2 (softmax tends to hardmax)",
        statement="the fraction of random one-layer softmax layers that separate the shared "
                  "tokens by more than float64 resolution falls as the weights grow: softmax "
                  "saturates towards hardmax, which separates none",
        provenance=f"{KS} [V] (hardmax is the limit of softmax); measurement ours [D]",
        metric="one-sided p-value of a falling fraction (Cochran-Armitage trend test against "
               "ln(weight scale))", op="<", threshold=0.05,
        why="the Cochran-Armitage test (expressivity.trend_test) at level 5%: a smaller p-value "
            "is a falling fraction that binomial spread around one fraction does not explain",
        figure="theorem1_gaps", tables=("theorem1_search",), evaluate=_saturates,
        alternatives=("no trend (the pooled fraction at every scale)",),
        power=_saturates_power,
    ),
    Claim(
        id="hardmax_vs_softmax.theorem1_softmax_memorizes",
        kind="check", basis="mathematics",
        control="our explicit construction evaluated (Kajitsuka & Sato's memorizer)",
        paper=KS, where="Theorem 2 / Corollary 1 on the Theorem 1 dataset",
        statement="one explicit one-layer, single-head, rank-1 softmax Transformer with a "
                  "Zhang et al. ReLU FFN reproduces any labelling of the eight tokens, including "
                  "different labels at the shared tokens",
        provenance=f"{KS} Cor. 1 [R]; FFN: Zhang et al. 2017 Thm 1 [V]; explicit weights: ours [D]",
        metric="labels not reproduced (|output - label| >= 1/4), over all labellings", op="==",
        threshold=0,
        why="features certified distinct in ball arithmetic, the interpolant solved and evaluated "
            "in mpmath at twice their digits: exact up to that precision; integer labels are "
            "told apart within 1/4",
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
    _tightness_claim(
        "bigbird_softmax_limit", "beta_sufficient",
        "softmax attention finds every furthest vector once beta exceeds the instance's "
        "sufficient value 2 (n - 1) e^(-beta g_i) < s_i / 2 (smallest gap g_i)",
        f"{BB} [V]; sufficient beta derived by us [D]",
    ),
    _tightness_claim(
        "bigbird_sharp_limit", "beta_sharp",
        "softmax attention finds every furthest vector once sum_j e^(-beta g_ij) "
        "||u_j - u_i*|| < s_i / 2 for every query i (the softmax weight off the furthest vector)",
        f"{BB} [V]; instance bound derived by us [D]",
    ),
]
