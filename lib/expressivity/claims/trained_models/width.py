"""Claims of the width search (Kajitsuka & Sato 2024, Cor. 1): the smallest FFN width training
fits is at most the construction's n N (existence), and grows with N no faster than linearly."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from expressivity.claims import Claim, Measurement, Power, not_evaluated, on_items
from expressivity.claims.trained_models.common import KS, PROTOCOL, REPLICATES, precision
from expressivity.fit import loglog_fit
from expressivity.slope_tests import lines

#: The fewest values of N on which the width's growth is judged.
WIDTH_GROWTH_MIN_N = 5


def _width_per_n(df: pd.DataFrame) -> pd.DataFrame:
    return df.groupby("N", as_index=False).first()


def _width(t):
    """The smallest grid width found to fit at each N is an upper bound on the smallest width
    training can fit (decided or not below it): enough for "at most n N". No width found fails
    only where every width up to n N was tried and none fitted."""
    per_n = _width_per_n(t["width_vs_N"])
    if (m := on_items(len(per_n), "width search", "float32")):
        return m
    ratios, notes, undecided = [], [], False
    for r in per_n.itertuples():
        m = int(r.construction_ffn_width)
        exact = "the smallest grid width" if r.minimal_width_decided else "an upper bound"
        if not math.isnan(r.minimal_width):
            ratios.append(r.minimal_width / m)
            notes.append(f"N={r.N}: {int(r.minimal_width)} ({exact}) vs n N = {m}")
        elif r.minimal_width_decided and r.widest_in_grid >= m:
            ratios.append(math.inf)
            notes.append(f"N={r.N}: none up to {int(r.widest_in_grid)} >= n N = {m}")
        else:
            undecided = True
            notes.append(f"N={r.N}: none found up to {int(r.widest_in_grid)} (n N = {m}), "
                         "not every run decided")
    worst = max(ratios) if ratios else math.nan
    if undecided and not worst > 1:
        return not_evaluated("censored", "; ".join(notes), precision(per_n))
    return Measurement(float(worst), precision(per_n), "; ".join(notes))


def width_slope(df: pd.DataFrame, min_n: int = 3):
    """The log-log fit of the smallest width found to fit against N (``expressivity.fit``; each an
    upper bound on the smallest width training can fit, which is what "no faster than" needs), or
    None unless a width was found at every N and there are at least ``min_n`` of them."""
    per_n = _width_per_n(df)
    found = per_n[per_n["minimal_width"].notna()]
    if len(found) < min_n or len(found) < len(per_n):
        return None
    return loglog_fit(found["N"], found["minimal_width"])


#: The log-log slopes of the construction's width n N and of the alternative, a width growing
#: like N^2 (what the single-seed, 1,000-epoch runs of issue 13 showed: x4 per doubling of N).
LINEAR, QUADRATIC = 1.0, 2.0


def growth_passes(lo, hi):
    """Where the 95 % slope interval ``[lo, hi]`` passes "no faster than linear": it reaches down
    to slope 1 and excludes 2 (arrays broadcast; an interval holding both decides nothing)."""
    return (np.asarray(lo) <= LINEAR) & (np.asarray(hi) < QUADRATIC)


def _width_slope(t):
    df = t["width_vs_N"]
    fit = width_slope(df, WIDTH_GROWTH_MIN_N)
    if fit is None:
        found = _width_per_n(df)["minimal_width"].notna()
        note = (f"needs a width found to fit at every N and at least {WIDTH_GROWTH_MIN_N} N; "
                f"found at {int(found.sum())} of {len(found)} N")
        return not_evaluated("censored" if (~found).any() else "no items", note, precision(df))
    lo, hi = fit.slope_interval()
    note = (f"slope {fit.slope:.2f} (95 % interval {lo:.2f} to {hi:.2f}, R^2 {fit.r2:.3f}, "
            f"{fit.n} N); the construction's width n N has slope 1, the alternative N^2 slope 2")
    if lo <= LINEAR < QUADRATIC <= hi:
        return not_evaluated("undecided", note + ": the interval holds both, so the data cannot "
                             "tell them apart", precision(df))
    return Measurement(lo, precision(df), note)


def _width_growth_power(t, rng) -> list[Power]:
    """The alternative N^2 through the claim's test: log widths on a line of slope 2 through the
    measured points' mean, plus the fit's residuals resampled (scaled to the residual variance), at
    the same N; a width above the widest of the grid is not found there (the claim is then not
    evaluated, so not passed). Rejected: the replicate's slope interval does not pass."""
    from scipy import stats

    per_n = _width_per_n(t["width_vs_N"])
    found = per_n[per_n["minimal_width"].notna()]
    if len(found) < max(3, WIDTH_GROWTH_MIN_N) or len(found) < len(per_n):
        return []
    x, y = np.log(found["N"].to_numpy(float)), np.log(found["minimal_width"].to_numpy(float))
    a, b, _ = lines(x, y)
    resid = (y - a - b * x) * math.sqrt(x.size / (x.size - 2))
    reps = (y - QUADRATIC * x).mean() + QUADRATIC * x + resid[rng.integers(0, x.size, (
        REPLICATES, x.size))]
    _, slope, se = lines(x, reps)
    half = stats.t.ppf(0.975, x.size - 2) * se
    inside = (reps <= np.log(found["widest_in_grid"].to_numpy(float))).all(axis=1)
    passes = growth_passes(slope - half, slope + half) & inside
    return [Power("N^2", REPLICATES, int((~passes).sum()),
                  f"{x.size} N; log width on a line of slope 2 through the measured widths' mean, "
                  "the fit's residuals resampled; a width above the grid's widest is not found")]


CLAIMS = [
    Claim(
        id="trained_models.width_below_construction",
        kind="finding", basis="mathematics", quantifier="existence",
        control="rules out training needing the construction's width n N; " + PROTOCOL,
        paper=KS, where="Cor. 1 and the parameter count (notes Sec. 4.3)",
        statement="at every N training fits 100 % (some seed) at an FFN width of at most the "
                  "construction's n N hidden units (Zhang et al. FFN, 2 n N + d weights): the "
                  "smallest grid width found to fit, an upper bound on the smallest width training "
                  "can fit, is at most n N",
        provenance=f"count O(d + nN): {KS} author response [R], formula derived by us [D]; "
                   "Zhang et al. 2017 Thm 1 [V]",
        metric="max over N of (smallest width found to fit) / (n N)", op="<=", threshold=1.0,
        why="the construction is an upper bound on the width needed; a trained width above it "
            "would mean training needs more than the construction",
        figure="width_vs_N", tables=("width_vs_N",), evaluate=_width,
    ),
    Claim(
        id="trained_models.width_growth",
        kind="finding", basis="measured spread", quantifier="existence",
        control="rules out a trained width growing like N^2 (log-log slope 2, what single "
                "seeds at short budgets suggested) where the construction's n N has slope 1; a "
                "slope between the two is not ruled out; " + PROTOCOL,
        paper=KS, where="Cor. 1 (parameters linear in N)",
        statement="the smallest width found to fit 100 % (some seed; an upper bound on the "
                  "smallest width training can fit) grows with N like the construction's n N "
                  "rather than like N^2, judged on "
                  f"at least {WIDTH_GROWTH_MIN_N} values of N: the 95 % interval of its log-log slope "
                  "reaches down to 1 or below and excludes 2 (an interval holding both 1 and 2 "
                  "decides nothing: not evaluated)",
        provenance=f"{KS} Cor. 1 [R] (count linear in nN); the fit and sizes are ours [D]",
        metric="lower end of the 95 % interval of the log-log slope of the smallest width found "
               "to fit against N", op="<=", threshold=1.0,
        why="slope 1 is the construction's growth; the interval (Student t on the fit) is the "
            "measured spread over N",
        figure="width_vs_N", tables=("width_vs_N",), evaluate=_width_slope,
        alternatives=("N^2",), power=_width_growth_power,
    ),
]
