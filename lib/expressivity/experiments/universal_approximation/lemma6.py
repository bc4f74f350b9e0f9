"""Lemma 6 of Yun et al. 2020a on every input of one grid ``(1/delta, d, n)``: the selective-shift
contextual mapping's properties from the integer reference, its hardmax attention matrices against
that reference, and softmax in place of hardmax (``expressivity.selective_shift``,
``expressivity.contextual_mapping``)."""

from __future__ import annotations

import logging
import math

import numpy as np
import pandas as pd

from expressivity import contextual_mapping, selective_shift
from expressivity.arguments import integer
from expressivity.experiments.universal_approximation import MB, advance, tracker
from expressivity.quantization import grid_digits

#: Columns of a Lemma 6 softmax curve (the table is written with them even when it has no rows).
LEMMA6_SOFTMAX_COLUMNS = ["inv_delta", "d", "n", "beta", "beta_real", "inputs", "margin",
                          "max_abs_error", "error_over_margin", "collided_inputs",
                          "collided_entries"]
#: Bisection steps refining the empirical softmax beta between two powers of two (to 2^(1/32)).
BISECTIONS = 5
#: The softmax curve stops once the error is below this fraction of the margin (or 0).
CURVE_FLOOR = 1e-9


def _betas(beta_min: float, beta_max: float) -> list[float]:
    """``beta_min 2^k <= beta_max``, ``k = 0, 1, ...``."""
    for name, value in (("beta_min", beta_min), ("beta_max", beta_max)):
        if not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
            raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
    if beta_min > beta_max:
        raise ValueError(f"beta_min = {beta_min} must be at most beta_max = {beta_max}")
    return [beta_min * 2**k for k in range(64) if beta_min * 2**k <= beta_max]


def _softmax(net, digits, beta) -> np.ndarray:
    return selective_shift.run_attention(net, digits, "softmax", beta)


def lemma6_check(*, m: int, d: int, n: int, grid_budget: int, beta_min, beta_max,
                 softmax_subset: int, log: logging.Logger | None = None,
                 ) -> tuple[dict, list[dict]]:
    """Lemma 6 on every grid input of ``(1/delta, d, n) = (m, d, n)``: properties 1-4 from the
    integer reference; the hardmax attention matrices compared with it entry by entry where float64
    is exact; softmax in place of hardmax.

    Softmax: the criterion is that the codes stay separated, i.e. every output within ``margin``
    (half the smallest gap between distinct codes) of its hardmax code, so that the value mapping
    still works; collisions are the entries closer to another code. Evaluated on every input at the
    derived inverse temperature ``selective_shift.softmax_beta`` (units of ``delta^2``), and along
    ``beta_min 2^k <= beta_max`` on ``softmax_subset`` evenly spaced inputs (the curve, stopped at
    the first beta whose error is below ``CURVE_FLOOR`` of the margin): the smallest beta that
    keeps the codes separated on the subset, bisected between the powers of two, is the empirical
    beta (a lower bound for the whole grid), the derived one over it the tightness of the
    derivation. Returns the summary row and the curve rows."""
    betas = _betas(beta_min, beta_max)
    integer("softmax_subset", softmax_subset, 1)
    net = selective_shift.dense_network(m, d, n)
    digits = grid_digits(m, n, d, grid_budget)
    N, layers = len(digits), net.attention_layers
    step = max(1, N // softmax_subset)
    sub = slice(None, None, step)
    n_sub = len(range(0, N, step))
    # work in input-layers: integer reference, hardmax matrices, softmax on every input at the
    # derived beta, and at most every beta of the scan on the subset
    progress = tracker(log, f"Lemma 6 1/delta={m} d={d} n={n}",
                         layers * (3 * N + n_sub * (len(betas) + BISECTIONS)))
    q = selective_shift.run_integer(net, digits)
    props = contextual_mapping.contextual_properties(net, digits, q)
    done = layers * N
    advance(progress, done, stage="integer reference")
    row = {"inv_delta": m, "d": d, "n": n, "D": m**d, **props,
           "layers": layers, "layers_expected": m**d + 1,
           "attention_parameters": net.parameters(),
           "value_bound_log2": math.log2(net.value_bound),
           "float64_exact_formula": selective_shift.float64_exact_by_formula(m, d, n),
           "float64_exact": net.float64_exact}
    curve: list[dict] = []
    nan = float("nan")
    if not net.float64_exact:
        row.update(matrix_checked=False, matrix_mismatches=-1, matrix_mismatches_float64=-1,
                   matrix_rechecked_exact=0, margin=nan, beta_derived=nan,
                   beta_derived_real=nan, error_at_derived=nan, collided_inputs_at_derived=-1,
                   collided_entries_at_derived=-1, rounding_bound=nan, beta_empirical=nan,
                   beta_tightness=nan, softmax_inputs=0,
                   precision="integers only: values exceed 2^52, needs more than float64")
        advance(progress, progress.total if progress else 0)
        return row, curve
    row.update(matrix_checked=True, **selective_shift.compare_with_reference(net, digits, q),
               precision="float64 (integer values below 2^52); inputs whose tie weights "
                         "round rechecked in exact rationals")
    done += layers * N
    advance(progress, done, stage="hardmax matrices")
    codes, margin = contextual_mapping.code_separation(q)
    found = None
    with np.errstate(over="ignore", invalid="ignore"):
        for beta in betas:
            dev = contextual_mapping.softmax_deviation(_softmax(net, digits[sub], beta), q[sub], codes)
            curve.append({"inv_delta": m, "d": d, "n": n, "beta": beta, "beta_real": beta * m**2,
                          "inputs": n_sub, "margin": margin,
                          "max_abs_error": dev["max_abs_error"],
                          "error_over_margin": dev["max_abs_error"] / margin,
                          "collided_inputs": dev["collided_inputs"],
                          "collided_entries": dev["collided_entries"]})
            done += layers * n_sub
            advance(progress, done, beta=beta, error_over_margin=dev["max_abs_error"] / margin)
            if found is None and dev["max_abs_error"] < margin:
                found = beta
            if dev["max_abs_error"] <= CURVE_FLOOR * margin:
                break
        if found is not None and found > betas[0]:
            # bisect (in log beta) between the last power of two that failed and the first that
            # passed, to 1/32 of a doubling
            lo, hi = found / 2, found
            for _ in range(BISECTIONS):
                mid = math.sqrt(lo * hi)
                err = contextual_mapping.softmax_deviation(
                    _softmax(net, digits[sub], mid), q[sub], codes)["max_abs_error"]
                lo, hi = (lo, mid) if err < margin else (mid, hi)
            found = hi
        beta_d = selective_shift.softmax_beta(net, margin)
        dev = contextual_mapping.softmax_deviation(_softmax(net, digits, beta_d), q, codes)
    advance(progress, progress.total if progress else 0, beta=beta_d)
    # float64 rounding of one forward pass: a few units in the last place of the largest value
    rounding = (2 * n + 3) * float(np.finfo(float).eps) * net.value_bound
    row.update(margin=margin, beta_derived=beta_d, beta_derived_real=beta_d * m**2,
               error_at_derived=dev["max_abs_error"],
               collided_inputs_at_derived=dev["collided_inputs"],
               collided_entries_at_derived=dev["collided_entries"], rounding_bound=rounding,
               beta_empirical=nan if found is None else found,
               beta_tightness=nan if found is None else beta_d / found, softmax_inputs=n_sub)
    return row, curve


def lemma6_cost(*, m: int, d: int, n: int, grid_budget: int, beta_min, beta_max,
                softmax_subset: int) -> tuple[float, int]:
    """Predicted CPU seconds and peak bytes of ``lemma6_check``: attention passes cost about 1.6e-7 s
    per input, layer and score entry ``n^2`` (two full passes and the subset scan), the property
    checks about 1e-6 s per token; memory about 120 bytes per input and score entry."""
    N = m ** (n * d)
    if N > grid_budget:
        return 0.0, 0
    layers = m**d + 1
    scan = min(N, softmax_subset) * (len(_betas(beta_min, beta_max)) + BISECTIONS)
    # no attention pass where the values pass 2^52 (selective_shift.dense_network's bound)
    D = m**d
    exact = (D + 1) ** n * (D - 1) * (1 + D ** (n + 1)) < selective_shift.FLOAT64_EXACT
    seconds = (1.6e-7 * layers * n * n * (2 * N + scan) * exact + 4e-8 * layers * n * N
               + 1e-6 * n * N + 0.05)
    return seconds, round((100 + 1.2e-4 * N * n * n) * MB)


def lemma6_tables(summaries: list[pd.DataFrame], curves: list[pd.DataFrame], *, skipped,
                  grid_budget: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The Lemma 6 table (the checked grids' rows, plus one row per grid ``(1/delta, d, n,
    inputs)`` in ``skipped`` for exceeding ``grid_budget``, sorted by grid) and the softmax table
    (the non-empty curves, in order)."""
    skipped = pd.DataFrame(skipped, columns=["inv_delta", "d", "n", "inputs"])
    skipped["precision"] = f"skipped: grid over the budget of {grid_budget} inputs"
    table = pd.concat(summaries + ([skipped] if len(skipped) else []), ignore_index=True)
    curve = (pd.concat(curves, ignore_index=True) if curves
             else pd.DataFrame(columns=LEMMA6_SOFTMAX_COLUMNS))
    return table.sort_values(["inv_delta", "d", "n"], kind="stable"), curve

