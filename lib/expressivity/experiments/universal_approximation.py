"""Which instances the universal-approximation stage runs: the rows of each job.

Each function takes a job's wildcards and the settings of its section of the config
(``universal_approximation.<section>``) by keyword, under the config's names, and returns the
rows of the job's table; the workflow scripts, the tests and the benchmark call the same functions.
Random streams come from ``expressivity.rng.generator(seed, "universal_approximation.<job>",
**wildcards)``, so a job's rows do not depend on which other jobs run.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from expressivity import selective_shift, universal
from expressivity.assumption1 import assumption1
from expressivity.polynomial import n_tokens, regression_excess, staircase_error
from expressivity.quantization import check_inverse_delta, grid_digits, quantize
from expressivity.rng import generator
from expressivity.sparse_patterns import check_pattern_name, pattern_masks

STAGE = "universal_approximation"
#: Columns of a Lemma 6 softmax curve (the table is written with them even when it has no rows).
LEMMA6_SOFTMAX_COLUMNS = ["inv_delta", "d", "n", "beta", "beta_real", "rel_error_subset",
                          "rel_error_full"]


# ---- Lemma 6: the selective-shift contextual mapping on every grid input -----------------------


def _relative_error(qa: np.ndarray, q: np.ndarray) -> float:
    """``max_inputs max_k |qa - q| / max(1, max_k |q|)``."""
    qf = np.asarray(q, dtype=float)
    scale = np.maximum(1.0, np.abs(qf).max(axis=1))
    with np.errstate(invalid="ignore"):
        err = np.abs(qa - qf).max(axis=1) / scale
    return float(np.nanmax(np.where(np.isfinite(err), err, np.inf)))


def lemma6_check(*, m: int, d: int, n: int, grid_budget: int, beta_min, beta_max,
                 softmax_tol: float, softmax_subset: int) -> tuple[dict, list[dict]]:
    """Lemma 6 on every grid input of ``(1/delta, d, n) = (m, d, n)``: properties 1-4 from the
    integer reference; the hardmax attention matrices compared with it entry by entry where float64
    is exact; softmax at the inverse temperatures ``beta_min 2^k <= beta_max`` (units of
    ``delta^2``) until the relative error is at most ``softmax_tol`` (searched on
    ``softmax_subset`` evenly spaced inputs, then confirmed on every input). Returns the summary row
    and the softmax curve rows."""
    betas = [beta_min * 2**k for k in range(64) if beta_min * 2**k <= beta_max]
    net = selective_shift.dense_network(m, d, n)
    digits = grid_digits(m, n, d, grid_budget)
    q = selective_shift.run_integer(net, digits)
    props = selective_shift.contextual_properties(net, digits, q)
    row = {"inv_delta": m, "d": d, "n": n, "D": m**d, **props,
           "layers": net.attention_layers, "layers_expected": m**d + 1,
           "attention_parameters": net.parameters(),
           "value_bound_log2": math.log2(net.value_bound),
           "float64_exact_formula": selective_shift.float64_exact_by_formula(m, d, n),
           "float64_exact": net.float64_exact}
    curve = []
    if not net.float64_exact:
        row.update(matrix_checked=False, matrix_mismatches=-1, matrix_mismatches_float64=-1,
                   matrix_rechecked_exact=0, softmax_beta=float("nan"),
                   softmax_beta_real=float("nan"), softmax_rel_error=float("nan"),
                   precision="integers only: values exceed 2^52, needs more than float64")
        return row, curve
    row.update(matrix_checked=True, **selective_shift.compare_with_reference(net, digits, q),
               precision="float64 (integer values below 2^52); inputs whose tie weights "
                         "round rechecked in exact rationals")
    step = max(1, len(digits) // softmax_subset)
    sub = slice(None, None, step)
    found = None
    for beta in betas:
        with np.errstate(over="ignore", invalid="ignore"):
            part = _relative_error(selective_shift.run_attention(net, digits[sub], "softmax", beta), q[sub])
        full = None
        if part <= softmax_tol:
            with np.errstate(over="ignore", invalid="ignore"):
                full = _relative_error(selective_shift.run_attention(net, digits, "softmax", beta), q)
        curve.append({"inv_delta": m, "d": d, "n": n, "beta": beta,
                      "beta_real": beta * m**2, "rel_error_subset": part,
                      "rel_error_full": float("nan") if full is None else full})
        if full is not None and full <= softmax_tol:
            found = (beta, full)
            break
    row.update(softmax_beta=float("nan") if found is None else found[0],
               softmax_beta_real=float("nan") if found is None else found[0] * m**2,
               softmax_rel_error=float("nan") if found is None else found[1])
    return row, curve


def lemma6_tables(summaries: list[pd.DataFrame], curves: list[pd.DataFrame], *, skipped,
                  grid_budget: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The Lemma 6 table (the checked grids' rows, plus one row per grid ``(1/delta, d, n,
    inputs)`` in ``skipped`` for exceeding ``grid_budget``, sorted by grid) and the softmax table
    (the non-empty curves, in order)."""
    skipped = pd.DataFrame(skipped, columns=["inv_delta", "d", "n", "inputs"])
    skipped["precision"] = f"skipped: grid over the budget of {grid_budget} inputs"
    table = pd.concat(summaries + ([skipped] if len(skipped) else []), ignore_index=True)
    return (table.sort_values(["inv_delta", "d", "n"], kind="stable"),
            pd.concat(curves, ignore_index=True))


# ---- the end-to-end approximation: Yun et al.'s and Kajitsuka & Sato's routes ------------------


def approximation_table(*, target: str, inv_delta, samples: int, n: int, d: int, lam: float,
                        mp_dps: int, grid_budget: int, seed: int) -> list[dict]:
    """``L^1``/``L^2`` Monte-Carlo errors, layers and parameters against ``delta = 1/inv_delta``
    for one target on ``samples`` uniform inputs ``(n, d)`` (one sample for every target): Yun et
    al.'s route (positional for targets that are not equivariant) and, for equivariant targets,
    Kajitsuka & Sato's two-layer route (``lam``, FFN solved with ``mp_dps`` digits)."""
    name = universal.check_target(target)
    ms = [check_inverse_delta(m) for m in inv_delta]
    X = universal.sample(generator(seed, f"{STAGE}.sample"), samples, n, d)
    ks_rng = generator(seed, f"{STAGE}.ks", target=name)
    F = universal.target(name, X)
    rows = []
    for m in ms:
        routes = []
        if name in universal.EQUIVARIANT_TARGETS:
            routes.append(("yun", universal.yun_route(name, X, m, grid_budget)))
            routes.append(("kajitsuka_sato",
                           universal.ks_route(name, X, m, lam, grid_budget, ks_rng, mp_dps)))
        else:
            routes.append(("yun_positional",
                           universal.yun_route(name, X, m, grid_budget, positional=True)))
        for route, res in routes:
            G = res.pop("G")
            rows.append({"target": name, "route": route, "inv_delta": m, "delta": 1.0 / m,
                         "n": n, "d": d, "samples": samples, **universal.lp_errors(F, G),
                         "piecewise_constant_L1": universal.lp_errors(
                             F, universal.grid_target(name, quantize(X, m), m))["L1"],
                         **res})
    return rows


# ---- sparse patterns: Assumption 1 and the sparse contextual mapping ---------------------------


def assumption_table(*, n, names, seed: int) -> list[dict]:
    """One row per pattern in ``names`` at every length in ``n``: Assumption 1 and the
    connections."""
    for name in names:
        check_pattern_name(name)
    rows = []
    for length in n:
        rng = generator(seed, f"{STAGE}.patterns", n=length)
        for name in names:
            a = assumption1(pattern_masks(name, length, rng=rng))
            rows.append({
                "pattern": name, "n": length, "p": a["p"], "self_loops": a["self_loops"],
                "hamiltonian_path": "undecided" if a["hamiltonian_path"] is None
                else str(a["hamiltonian_path"]).lower(),
                "s": -1 if a["s"] is None else a["s"], "satisfied": a["satisfied"],
                "connections_max": a["connections_max"],
                "connections_total": int(sum(a["connections"])),
                "density_max": a["density_max"],
            })
    return rows


def sparse_mapping_check(name: str, masks, m: int, d: int, n: int) -> list[dict]:
    """The sparse selective-shift contextual mapping of pattern ``name`` (``masks``) on every grid
    input, with the shift factor ``K = R`` (code range) and, for the pitfall, ``K = D = m^d``:
    repeated values among all outputs (0 = a contextual mapping separating every input), layer
    counts, and the attention matrices against the integer reference where float64 is exact."""
    digits = grid_digits(m, n, d, m ** (n * d))
    rows = []
    for label, K in (("code_range", None), ("delta_pow_minus_d", m**d)):
        net = selective_shift.positional_network(m, d, n, masks, shift_factor=K)
        q = selective_shift.run_integer(net, digits)
        if net.float64_exact:
            cmp = selective_shift.compare_with_reference(net, digits, q)
            prec = "float64 (+ exact rationals for rounded tie weights) vs integers"
        else:
            cmp = {"matrix_mismatches_float64": -1, "matrix_rechecked_exact": 0,
                   "matrix_mismatches": -1}
            prec = "integers only (values exceed 2^52)"
        mism = cmp["matrix_mismatches"]
        select = sum(1 for x in net.layers if x.kind == "select")
        rows.append({
            "pattern": name, "inv_delta": m, "d": d, "n": n, "shift": label,
            "shift_factor": net.notes["K"], "code_range": net.notes["R"],
            "inputs": len(digits), "repeated_values": selective_shift.contextual_all_distinct(q),
            "select_layers": select, "identity_layers": net.identity_layers,
            "max_layers": len(net.layers) - select, "s": net.notes["s"], "p": net.notes["p"],
            "layers_bound": net.notes["p"] * n * m**d + net.notes["s"],
            "matrix_checked": mism >= 0, **cmp, "precision": prec,
        })
    return rows


def sparse_mapping_table(*, names, inv_delta, d, n, grid_budget: int, seed: int) -> list[dict]:
    """``sparse_mapping_check`` for every pattern in ``names`` on every grid ``(1/delta, d, n)``
    with at most ``grid_budget`` inputs; a pattern that fails Assumption 1 gets a "not run" row."""
    grids = [(m, dd, nn) for m in inv_delta for dd in d for nn in n
             if m ** (nn * dd) <= grid_budget]
    rows = []
    for name in names:
        for m, dd, nn in grids:
            rng = generator(seed, f"{STAGE}.sparse_mapping", pattern=name, n=nn)
            masks = pattern_masks(name, nn, rng=rng)
            if not assumption1(masks)["satisfied"]:
                rows.append({"pattern": name, "inv_delta": m, "d": dd, "n": nn,
                             "shift": "not run: Assumption 1 fails", "inputs": m ** (nn * dd)})
                continue
            rows += sparse_mapping_check(name, masks, m, dd, nn)
    return rows


# ---- Fang et al.'s polynomial blocks ------------------------------------------------------------


def staircase_table(*, d, max_blocks: int, max_degree: int, n_test: int, seed: int) -> list[dict]:
    """``staircase_error`` for every dimension in ``d`` and every (blocks, degree) in
    ``1..max_blocks x 1..max_degree``."""
    rows = []
    for dim in d:
        rng = generator(seed, f"{STAGE}.staircase", d=dim)
        rows += [staircase_error(dim, L, k, rng, n_test=n_test)
                 for L in range(1, max_blocks + 1) for k in range(1, max_degree + 1)]
    return rows


def regression_table(*, d: int, degree: int, n_train, sigma: float, repeats: int, n_test: int,
                     seed: int) -> list[dict]:
    """Mean excess risk over ``repeats`` fresh draws (blocks, target, data) for ``L = degree``
    blocks (exact) and ``L = degree - 1`` (too few) at every sample size in ``n_train``."""
    rng = generator(seed, f"{STAGE}.regression")
    rows = []
    for L in (degree, degree - 1):
        for N in n_train:
            ex = [regression_excess(d, L, degree, N, sigma, rng, n_test=n_test)
                  for _ in range(repeats)]
            rows.append({"d": d, "degree": degree, "blocks": L, "tokens": n_tokens(d, L),
                         "n_train": N, "sigma": sigma, "repeats": repeats,
                         "excess_mse": float(np.mean(ex)),
                         "excess_mse_sem": float(np.std(ex, ddof=1) / np.sqrt(repeats))
                         if repeats > 1 else float("nan"),
                         "variance_prediction": sigma**2 * n_tokens(d, L) / N})
    return rows
