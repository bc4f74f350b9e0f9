"""Universal-approximation claims on Lemma 6 of Yun et al. 2020a: selective-shift attention
layers are a contextual mapping on the grid (our reconstruction, checked on every grid input)."""

from __future__ import annotations

from expressivity.claims import Claim, Measurement, not_evaluated, on_items
from expressivity.claims.universal_approximation.common import L6_PROV, YA


def _checked(t):
    return t["lemma6"][t["lemma6"]["prop1_violations"].notna()]


def _l6_props(t):
    df = _checked(t)
    if (m := on_items(len(df), "grid within the budget", "exact integers")):
        return m
    bad = df[["prop1_violations", "prop2_violations", "prop4_violations",
              "equivariance_violations"]].to_numpy().sum()
    return Measurement(float(bad), "exact integers",
                       f"{len(df)} grids, {int(df['inputs'].sum())} inputs checked; "
                       f"{len(t['lemma6']) - len(df)} grids over the budget skipped")


def _l6_layers(t):
    df = _checked(t)
    if (m := on_items(len(df), "grid within the budget", "exact integers")):
        return m
    return Measurement(float((df["layers"] != df["layers_expected"]).sum()), "exact integers",
                       f"layers from {df['layers'].min()} to {df['layers'].max()}")


def _float64_grids(t):
    df = _checked(t)
    return df[df["matrix_checked"].astype(bool)]


def _l6_matrix(t):
    df = _float64_grids(t)
    if (m := on_items(len(df), "grid where float64 is exact", "float64 vs exact integers")):
        return m
    return Measurement(float(df["matrix_mismatches"].sum()), "float64 vs exact integers",
                       f"{len(df)} grids compared entry by entry; "
                       f"{len(_checked(t)) - len(df)} integers only")


def _l6_softmax(t):
    df = _float64_grids(t)
    if (m := on_items(len(df), "grid where float64 is exact")):
        return m
    ratio = df["error_at_derived"] / df["margin"]
    # a grid that fails while float64 rounding could reach the margin cannot be decided
    undecided = df[(ratio >= 1) & (df["rounding_bound"] >= df["margin"])]
    ok = df.drop(undecided.index)
    if ok.empty:
        return not_evaluated("undecided", "needs more than float64 on every failing grid")
    tight = ok["beta_tightness"].dropna()
    note = (f"{len(ok)} grids, {int(ok['inputs'].sum())} inputs at the derived beta "
            f"({ok['beta_derived'].min():.3g} to {ok['beta_derived'].max():.3g}, units of "
            f"delta^2); collided inputs {int(ok['collided_inputs_at_derived'].sum())}; derived "
            f"beta / smallest separating beta on the subset from "
            + (f"{tight.min():.2f} to {tight.max():.2f}" if len(tight) else "n/a")
            + (f"; undecided (rounding >= margin): {len(undecided)}" if len(undecided) else ""))
    return Measurement(float((ok["error_at_derived"] / ok["margin"]).max()), "float64", note)


CLAIMS = [
    Claim(
        id="universal_approximation.lemma6_properties",
        kind="check", basis="mathematics",
        control="our reconstruction verified on every grid input",
        paper=YA, where="Lemma 6 (numbering recalled)",
        statement="selective-shift attention layers are a contextual mapping on the grid: "
                  "distinct entries (1), disjoint entries across non-permuted inputs (2), "
                  "inside [t_l, t_r] (3), inputs with repeated tokens outside it (4), "
                  "permutation equivariant",
        provenance=L6_PROV,
        metric="violations over every grid input within the budget", op="==", threshold=0,
        why="the properties hold for every input; one violation refutes the construction; "
            "exact integer arithmetic has no rounding",
        figure="lemma6_softmax", tables=("lemma6",), evaluate=_l6_props,
    ),
    Claim(
        id="universal_approximation.lemma6_layers",
        kind="check", basis="mathematics",
        control="a count of our construction",
        paper=YA, where="Lemma 6",
        statement="the contextual mapping uses delta^-d + 1 attention layers (2 heads of size 1)",
        provenance=L6_PROV,
        metric="grids whose layer count differs from delta^-d + 1", op="==", threshold=0,
        why="an exact count of the construction",
        figure="lemma6_softmax", tables=("lemma6",), evaluate=_l6_layers,
    ),
    Claim(
        id="universal_approximation.lemma6_matrices_exact",
        kind="check", basis="mathematics",
        control="identity: attention matrices equal the integer reference",
        paper=YA, where="Lemma 6 (two-head hardmax layers)",
        statement="real attention matrices (W_Q, W_K, W_V, W_O, hardmax) reproduce the exact "
                  "integer reference on every grid input where float64 is exact",
        provenance=L6_PROV,
        metric="mismatching output entries", op="==", threshold=0,
        why="all values are integers below 2^52, which float64 represents and orders exactly, "
            "so the two computations must agree bit for bit",
        figure="lemma6_softmax", tables=("lemma6",), evaluate=_l6_matrix,
    ),
    Claim(
        id="universal_approximation.lemma6_softmax",
        kind="check", basis="mathematics",
        control="a sufficient temperature of our derivation, with its tightness",
        paper=YA, where="Sec. 4, step 3 (hardmax as the limit of softmax)",
        statement="at the inverse temperature derived from the code gap, softmax selective shifts "
                  "keep every output within half the smallest code gap of its hardmax code (the "
                  "value mapping still works) on every grid input",
        provenance=L6_PROV + "; the temperature bound is ours [O]",
        metric="largest |softmax - hardmax code| / margin at the derived beta, margin = half the "
               "smallest gap between distinct codes", op="<", threshold=1,
        why="below 1 every output is nearer its own code than any other, so the value mapping "
            "reads it; the derived beta bounds the softmax error by the margin "
            "(selective_shift.softmax_beta); a failing grid whose float64 rounding bound reaches "
            "the margin is not decided",
        figure="lemma6_softmax", tables=("lemma6",), evaluate=_l6_softmax,
    ),
]
