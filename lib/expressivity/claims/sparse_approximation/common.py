"""What the sparse-approximation claims share: the paper, the provenance, and readers of the
stage's tables (Likhosherstov, Choromanski & Weller 2021/2023; see ``shared/papers/likhosherstov.md``)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from expressivity.claims import Measurement, not_evaluated, on_items
from expressivity.growth_models import QUANTITIES, usable

LCW = "Likhosherstov, Choromanski & Weller 2021"
PROV = ("statement: abstract [V] and Fig. 2 caption [V2]; precision definition, B, construction "
        "scaling and the bound (*): our reconstruction [R]; measurements ours [D]")
PER_ENTRY, MASS = "per-entry", "mass-calibrated"
#: Replicates of every power simulation of the stage, and the bootstrap resamples inside each.
REPLICATES, INNER_RESAMPLES = 200, 200


def undecided(df) -> int:
    """Trials not decided in float64."""
    return int((df["precision"] != "float64").sum())


def left_censored(df) -> Measurement | None:
    """Not evaluated when a fitted d sits at the search's first grid point (an upper bound only)."""
    count = int(df["left_censored"].max()) if len(df) else 0
    if count:
        return not_evaluated("censored", f"{count} trials of a series have d at search.d_start, "
                             "the first grid point: an upper bound, not a measurement; lower "
                             "search.d_start")
    return None


def label(row) -> str:
    return f"k={int(row['k'])} {row['quantity']} ({row['fit_on']})"


def rows(t, table: str, **equal) -> pd.DataFrame:
    """The rows of ``table`` whose columns equal the given values (none when it is empty)."""
    df = t[table]
    if df.empty:
        return df
    for column, value in equal.items():
        df = df[df[column] == value]
    return df


def trials(t, table: str, reference_series: str | None = None):
    """``(k, quantity, n, d)`` of every series of the sweep-like ``table`` (its decided trials),
    d divided by the exact-rule reference of ``reference_series`` when given."""
    df = t[table]
    if reference_series is not None:
        ref = rows(t, "d_min_reference", series=reference_series)[["n", "k", "d_ref_grid"]]
        df = df.merge(ref, on=["n", "k"], how="inner")
    for k in sorted(df["k"].unique()):
        for quantity in QUANTITIES:
            part = usable(df[df["k"] == k], quantity)
            d = part[quantity].to_numpy(dtype=float)
            if reference_series is not None:
                d = d / part["d_ref_grid"].to_numpy(dtype=float)
            yield int(k), quantity, part["n"].to_numpy(), d


def per_nk(df, column: str, fmt: str = ".3g") -> str:
    """``column`` per (k, n): the median and the range over trials."""
    parts = []
    for (k, n), sub in df.groupby(["k", "n"]):
        v = sub[column].to_numpy(dtype=float)
        parts.append(f"k={int(k)} n={int(n)}: {np.median(v):{fmt}} [{v.min():{fmt}}, "
                     f"{v.max():{fmt}}]")
    return "; ".join(parts)


def above_lower(df, balls: tuple[str, str]) -> Measurement:
    """Problems whose optimised d lies below the proven lower bound ``d_lower`` or with a row
    outside its ball (columns ``opt_norm_q``, ``opt_norm_k`` against the radii named by
    ``balls``), among the problems of ``df`` that reached a d."""
    df = df[df["opt_found"].astype(str) == "True"]
    if (m := on_items(len(df), "problem that reached a d")):
        return m
    below = df["d_opt"].to_numpy(dtype=float) < df["d_lower"].to_numpy(dtype=float)
    outside = ((df["opt_norm_q"] > df[balls[0]] * (1 + 1e-12))
               | (df["opt_norm_k"] > df[balls[1]] * (1 + 1e-12))).to_numpy()
    return Measurement(float((below | outside).sum()), "float64",
                       f"{int(below.sum())} below the bound, {int(outside.sum())} with a row "
                       f"outside its ball, of {len(df)}; optimised d / lower bound: "
                       f"{per_nk(df.assign(r=df['d_opt'] / df['d_lower']), 'r', '.2g')}")
