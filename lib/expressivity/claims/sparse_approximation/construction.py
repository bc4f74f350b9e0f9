"""Sparse-approximation claims on the construction itself: the JL bound suffices, one fixed module
serves every target, and d_min falls below n where the exact-rule reference says it does."""

from __future__ import annotations

import math

import numpy as np

from expressivity.claims import Claim, Measurement, Power, not_evaluated, on_items
from expressivity.claims.sparse_approximation.common import (
    INNER_RESAMPLES,
    LCW,
    PROV,
    REPLICATES,
    undecided,
)
from expressivity.growth_models import crossover_interval, resamples_of, usable
from expressivity.slope_tests import BEYOND, EQUIVALENT, UNDECIDED

#: How far the measured crossover n* may lie from the reference's n*: a factor sqrt(2), half (in
#: ln n) the factor 2 by which an L1 union bound's k^2 ||B||^2 scaling would move n* at k = 2.
N_STAR_FACTOR = math.sqrt(2)


def _jl(t):
    df, sweep = t["jl_check"], t["sweep"]
    if (m := on_items(len(df), "trial at the JL bound")):
        return m
    bad = int((~df["first_draw_ok"].astype(bool)).sum())
    med = sweep[sweep["n"].isin(df["n"])].groupby(["k", "n"])["d_min"].median()
    jl = df.groupby(["k", "n"])["d"].first()
    tight = (jl / med).dropna()
    return Measurement(float(bad), "float64",
                       f"{bad} of {len(df)} trials (n <= {int(df['n'].max())}) needed a redraw; "
                       f"d from {int(df['d'].min())} to {int(df['d'].max())}, i.e. "
                       f"{df['d_over_n'].min():.3g} to {df['d_over_n'].max():.3g} times n; the "
                       f"bound is {tight.min():.3g} to {tight.max():.3g} times the median d_min "
                       "(tightness ratio)")


def _fixed(t):
    df = t["fixed_module"]
    if (m := on_items(len(df), "target of the fixed module")):
        return m
    bad = int((~(df["same_weights"].astype(bool) & df["ok_via_weights"].astype(bool))).sum())
    inputs = df.loc[df["found"].astype(bool), "input_fingerprint"]
    return Measurement(float(bad), "float64",
                       f"{len(df)} targets ({', '.join(sorted(set(df['kind'])))}; k = "
                       f"{', '.join(str(k) for k in sorted(set(df['k'])))}) at n = "
                       f"{int(df['n'].iloc[0])}, one (W_Q, W_K) at d = {int(df['d'].iloc[0])} "
                       f"(d / n = {df['d_over_n'].iloc[0]:.3g}); {inputs.nunique()} distinct "
                       f"inputs X; {int((df['rounds'] > 1).sum())} needed a Las Vegas redraw; "
                       f"off-support attention mass {100 * df['off_mass_mean'].min():.1f}% to "
                       f"{100 * df['off_mass_mean'].max():.1f}%")


def n_star_verdict(star, lo, hi, ref):
    """Per k (arrays broadcast): ``BEYOND`` when the median d_min never falls below n (``star``
    NaN) or the bootstrap interval [lo, hi] of n* lies wholly outside ref / sqrt(2) .. ref sqrt(2),
    ``EQUIVALENT`` when it lies inside, ``UNDECIDED`` otherwise (an interval end NaN)."""
    star, lo, hi, ref = (np.asarray(v, dtype=float) for v in (star, lo, hi, ref))
    low, high = ref / N_STAR_FACTOR, ref * N_STAR_FACTOR
    verdict = np.full(np.broadcast(star, lo, hi, ref).shape, UNDECIDED)
    verdict[(lo > low) & (hi < high)] = EQUIVALENT
    verdict[np.isnan(star) | (hi < low) | (lo > high)] = BEYOND
    return verdict


def _below_n(t):
    cross = t["crossover"]
    if (m := on_items(len(cross), "k in the crossover table")):
        return m
    big = t["sweep"][t["sweep"]["n"] == t["sweep"].groupby("k")["n"].transform("max")]
    if big["censored"].astype(bool).any() or undecided(big):
        return not_evaluated("undecided", "a trial at the largest n of its k is censored or "
                             "undecided in float64")
    beyond = cross[np.isnan(cross["n_star_ref"])]
    if len(beyond):
        return not_evaluated("out of range", "the reference's d_ref does not fall below n within "
                             f"the sweep at k = {', '.join(str(int(k)) for k in beyond['k'])}: "
                             "no prediction of n* to compare with")
    low = cross[cross["n_star"] <= cross["n_min"]]
    if len(low):
        return not_evaluated("censored", "the median d_min is below n already at the smallest n "
                             f"of k = {', '.join(str(int(k)) for k in low['k'])}: n* lies at or "
                             "below the sweep")
    verdict = n_star_verdict(cross["n_star"], cross["n_star_lo"], cross["n_star_hi"],
                             cross["n_star_ref"])
    text = "; ".join(f"k={int(r['k'])}: n* = {r['n_star']:.0f} [{r['n_star_lo']:.0f}, "
                     f"{r['n_star_hi']:.0f}] against the reference's {r['n_star_ref']:.0f} "
                     f"(ratio {r['n_star'] / r['n_star_ref']:.2f}); JL bound / n = "
                     f"{r['jl_over_n_at_n_max']:.3g} at n = {int(r['n_max'])}"
                     for _, r in cross.iterrows())
    note = (f"bootstrap intervals at level {cross['level'].iloc[0]:.3f} each, margin a factor "
            f"{N_STAR_FACTOR:.3f}: {text}")
    if (verdict == BEYOND).any() or (verdict == EQUIVALENT).all():
        return Measurement(float((verdict != EQUIVALENT).sum()), "float64", note)
    return not_evaluated("undecided", f"an interval reaches past the margin: {note}")


def _below_n_power(t, rng) -> list[Power]:
    """d_min k times as large (an L1 union bound's k^2 ||B||^2 instead of k ||B||^2), trials
    resampled within each n of every k, the crossover and its bootstrap interval recomputed."""
    cross = t["crossover"]
    if cross.empty or np.isnan(cross["n_star_ref"]).any():
        return []
    passes = np.ones(REPLICATES, dtype=bool)
    for _, r in cross.iterrows():
        k = int(r["k"])
        df = usable(t["sweep"][t["sweep"]["k"] == k], "d_min")
        n, d = df["n"].to_numpy(), df["d_min"].to_numpy(dtype=float)
        alt = k * resamples_of(n, d, rng, REPLICATES)
        star, lo, hi = crossover_interval(n, alt, rng, INNER_RESAMPLES, float(r["level"]))
        passes &= n_star_verdict(star, lo, hi, float(r["n_star_ref"])) == EQUIVALENT
    return [Power("d_min k times as large (k^2 ||B||^2 scaling)", REPLICATES,
                  int((~passes).sum()),
                  f"every k's trials resampled within each n and multiplied by k; n* and its "
                  f"bootstrap interval ({INNER_RESAMPLES} resamples) recomputed")]


CLAIMS = [
    Claim(
        id="sparse_approximation.jl_bound_suffices",
        kind="check", basis="mathematics",
        control="a rigorous sufficient bound (JL), loose: its tightness ratio is in the note",
        paper=LCW, where="main theorem (reconstructed constants, bound (*))",
        statement="with fixed W_Q = d^(1/4)[I;0], W_K = d^(1/4)[0;I] and d at the JL bound, the "
                  "input X = [B G, G] makes the attention an (eps_ratio, eps_zero)-approximation "
                  "of every sparse target checked, at the first random draw",
        provenance=PROV,
        metric="trials whose first draw fails", op="==", threshold=0,
        why="(*) is taken with failure probability delta / (number of trials); by the union "
            "bound every trial succeeds with probability >= 1 - delta, so one failure refutes "
            "the bound at that confidence",
        figure="logit_error", tables=("jl_check", "sweep"), evaluate=_jl,
    ),
    Claim(
        id="sparse_approximation.fixed_parameters",
        kind="check", basis="mathematics",
        control="a property of the construction (one W_Q, W_K serves every target)",
        paper=LCW, where="abstract: fixed parameters, only the inputs change",
        statement="one pair (W_Q, W_K) at d < n serves every target (permutation unions, bands, "
                  "blocks, each k): only X differs, and the attention X W_Q (X W_K)^T / sqrt(d) "
                  "computed with the explicit weights meets both tolerances",
        provenance=PROV,
        metric="targets with different weights or failing through the shared weights",
        op="==", threshold=0,
        why="the weights depend on d alone by construction; a single target that needs other "
            "weights or fails refutes the claim",
        figure="heatmaps", tables=("fixed_module",), evaluate=_fixed,
    ),
    Claim(
        id="sparse_approximation.below_n",
        kind="finding", basis="measured spread",
        control="rules out needing d >= n (the exact representation with fixed inputs: no "
                "crossover) and a crossover where an L1 union bound would put it (d scaling like "
                "k^2 ||B||^2, n* about twice as large at k = 2)",
        paper=LCW, where="abstract (contrast: d >= n for fixed inputs, Bhojanapalli et al. 2020)",
        statement="for every k the median d_min falls below n for good at a crossover n*(k) "
                  "where the construction puts it: the bootstrap interval of n* lies within a "
                  "factor sqrt(2) of the n* at which the exact-rule reference d_ref (which grows "
                  "like ||B||^2(k) ln n) falls below n",
        provenance=PROV + "; the exact-rule reference is ours [D]",
        metric="k whose n* interval does not lie within a factor sqrt(2) of the reference's n* "
               "(not evaluated while an interval reaches past the margin without lying beyond "
               "it)", op="==", threshold=0,
        why="d = n is what exact representation with fixed inputs needs; the reference has no "
            "fitted constant, so its n* is a prediction; the margin sqrt(2) is half, in ln n, the "
            "factor 2 an L1 bound's k^2 scaling would move n* at k = 2; bootstrap intervals over "
            "trials (family level 95% over k)",
        figure="d_min_over_n", tables=("sweep", "crossover"), evaluate=_below_n,
        alternatives=("d_min k times as large (k^2 ||B||^2 scaling)",), power=_below_n_power,
    ),
]
