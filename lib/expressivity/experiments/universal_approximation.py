"""Which instances the universal-approximation stage runs: the rows of each job, and its cost.

Each function takes a job's wildcards and the settings of its section of the config
(``universal_approximation.<section>``) by keyword, under the config's names, and returns the
rows of the job's table; the workflow scripts, the tests and the benchmark call the same functions.
Random streams come from ``expressivity.rng.generator(seed, "universal_approximation.<job>",
**wildcards)``, so a job's rows do not depend on which other jobs run. Jobs that can run longer
than a minute at paper scale write progress lines with the remaining time to ``log``
(``expressivity.joblog.Progress``).

``*_cost`` functions predict a job's CPU seconds and peak memory from the same settings (driven by
the grid sizes ``m^(n d)`` and the table sizes): the rules' ``runtime`` and ``mem_mb``. Their
rates were measured on one core of the development machine under load; ``runtime`` doubles them.
"""

from __future__ import annotations

import logging
import math

import numpy as np
import pandas as pd

from expressivity import contextual_mapping, selective_shift, universal
from expressivity.approximation_rate import repeated_measure
from expressivity.arguments import finite_number, integer
from expressivity.assumption1 import assumption1
from expressivity.joblog import Progress
from expressivity.polynomial import n_tokens, regression_excess, staircase_error
from expressivity.quantization import check_inverse_delta, grid_digits, quantize
from expressivity.rng import generator
from expressivity.sparse_patterns import check_pattern_name, pattern_masks

STAGE = "universal_approximation"
#: Columns of a Lemma 6 softmax curve (the table is written with them even when it has no rows).
LEMMA6_SOFTMAX_COLUMNS = ["inv_delta", "d", "n", "beta", "beta_real", "inputs", "margin",
                          "max_abs_error", "error_over_margin", "collided_inputs",
                          "collided_entries"]
#: Bisection steps refining the empirical softmax beta between two powers of two (to 2^(1/32)).
BISECTIONS = 5
#: Bytes in a megabyte of the cost models.
MB = 2**20
#: The softmax curve stops once the error is below this fraction of the margin (or 0).
CURVE_FLOOR = 1e-9


def _sizes(name: str, values, low: int) -> list[int]:
    """A non-empty list of integers >= ``low`` (an empty one would make an empty table)."""
    if isinstance(values, (str, bytes)) or not hasattr(values, "__len__") or len(values) == 0:
        raise ValueError(f"{name} must be a non-empty list of integers >= {low}, got {values!r}")
    return [integer(f"{name}[{i}]", v, low) for i, v in enumerate(values)]


def _names(names) -> list[str]:
    """A non-empty list of sparse-pattern names."""
    if isinstance(names, str) or not names:
        raise ValueError(f"names must be a non-empty list of pattern names, got {names!r}")
    return [check_pattern_name(name) for name in names]


def _progress(log: logging.Logger | None, what: str, total: float) -> Progress | None:
    return Progress(log, what, total) if log is not None and total > 0 else None


def _advance(progress: Progress | None, done: float, **values) -> None:
    if progress is not None:
        progress.update(done, **values)


# ---- Lemma 6: the selective-shift contextual mapping on every grid input -----------------------


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
    if isinstance(softmax_subset, bool) or not isinstance(softmax_subset, int) \
            or softmax_subset < 1:
        raise ValueError(f"softmax_subset must be an integer >= 1, got {softmax_subset!r}")
    net = selective_shift.dense_network(m, d, n)
    digits = grid_digits(m, n, d, grid_budget)
    N, layers = len(digits), net.attention_layers
    step = max(1, N // softmax_subset)
    sub = slice(None, None, step)
    n_sub = len(range(0, N, step))
    # work in input-layers: integer reference, hardmax matrices, softmax on every input at the
    # derived beta, and at most every beta of the scan on the subset
    progress = _progress(log, f"Lemma 6 1/delta={m} d={d} n={n}",
                         layers * (3 * N + n_sub * (len(betas) + BISECTIONS)))
    q = selective_shift.run_integer(net, digits)
    props = contextual_mapping.contextual_properties(net, digits, q)
    done = layers * N
    _advance(progress, done, stage="integer reference")
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
        _advance(progress, progress.total if progress else 0)
        return row, curve
    row.update(matrix_checked=True, **selective_shift.compare_with_reference(net, digits, q),
               precision="float64 (integer values below 2^52); inputs whose tie weights "
                         "round rechecked in exact rationals")
    done += layers * N
    _advance(progress, done, stage="hardmax matrices")
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
            _advance(progress, done, beta=beta, error_over_margin=dev["max_abs_error"] / margin)
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
    _advance(progress, progress.total if progress else 0, beta=beta_d)
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


# ---- the end-to-end approximation: Yun et al.'s and Kajitsuka & Sato's routes ------------------


def _routes(target: str) -> tuple[str, ...]:
    if target in universal.EQUIVARIANT_TARGETS:
        return ("yun", "kajitsuka_sato")
    return ("yun_positional",)


def _route_budget(route: str, grid_budget: int, memorization_budget: int) -> int:
    return memorization_budget if route == "kajitsuka_sato" else grid_budget


def approximation_table(*, target: str, d: int, inv_delta, samples: int, n: int, lam: float,
                        mp_dps: int, grid_budget: int, memorization_budget: int, seed: int,
                        log: logging.Logger | None = None) -> list[dict]:
    """``L^1``/``L^2`` Monte-Carlo errors (with standard errors), layers and parameters against
    ``delta = 1/inv_delta`` for one target at token dimension ``d``: Yun et al.'s route
    (positional for targets that are not equivariant) and, for equivariant targets, Kajitsuka &
    Sato's three-layer route (``lam``, FFN solved with ``mp_dps`` digits).

    Each ``delta`` has its own sample of ``samples`` uniform inputs ``(n, d)`` (independent
    Monte-Carlo errors across ``delta``, so a fitted slope's standard error reflects them); the
    routes share it, and their rows compare at equal ``delta`` (Yun et al.'s rows carry the ratio
    of their layers and errors to the three-layer route's). A route whose table exceeds its budget
    (``universal.table_size``: ``grid_budget``, or ``memorization_budget`` for the Kajitsuka &
    Sato memorization) gets a row saying so and no errors."""
    name = universal.check_target(target)
    ms = [check_inverse_delta(m) for m in _sizes("inv_delta", inv_delta, 2)]
    for key, value in (("memorization_budget", memorization_budget), ("samples", samples),
                       ("grid_budget", grid_budget)):
        integer(key, value, 1)
    routes = _routes(name)
    weights = {(route, m): _route_seconds(route, m, n, d, samples)
               for m in ms for route in routes
               if universal.table_size(route, m, n, d)
               <= _route_budget(route, grid_budget, memorization_budget)}
    progress = _progress(log, f"approximation {name} d={d}", sum(weights.values()))
    done = 0.0
    rows = []
    for m in ms:
        X = universal.sample(generator(seed, f"{STAGE}.sample", d=d, inv_delta=m), samples, n, d)
        F = universal.target(name, X)
        digits = quantize(X, m)
        base = {"target": name, "inv_delta": m, "delta": 1.0 / m, "n": n, "d": d,
                "samples": samples,
                "repeated_measure": repeated_measure(1.0 / m, n, d),
                "repeated_fraction": float(np.mean(universal.repeated_tokens(digits, m)))}
        at_m = {}
        for route in routes:
            size = universal.table_size(route, m, n, d)
            budget = _route_budget(route, grid_budget, memorization_budget)
            if size > budget:
                at_m[route] = {**base, "route": route, "table_size": size,
                               "status": f"skipped: table of {size} entries over the budget "
                                         f"of {budget}"}
                continue
            if route == "kajitsuka_sato":
                res = universal.ks_route(name, X, m, lam, budget,
                                         generator(seed, f"{STAGE}.ks", target=name, d=d,
                                                   inv_delta=m), mp_dps)
            else:
                res = universal.yun_route(name, X, m, budget,
                                          positional=route == "yun_positional")
            G = res.pop("G")
            at_m[route] = {**base, "route": route, "table_size": size, "status": "computed",
                           **universal.lp_errors(F, G),
                           "piecewise_constant_L1": universal.lp_errors(
                               F, universal.grid_target(name, digits, m))["L1"], **res}
            done += weights[(route, m)]
            _advance(progress, done, inv_delta=m, route=route)
        yun, ks = at_m.get("yun"), at_m.get("kajitsuka_sato")
        if yun is not None and yun["status"] == "computed":
            both = ks is not None and ks["status"] == "computed"
            yun["layers_over_ks"] = (yun["layers_total"] / ks["layers_total"] if both
                                     else float("nan"))
            for p in ("L1", "L2"):
                yun[f"{p}_over_ks"] = yun[p] / ks[p] if both and ks[p] > 0 else float("nan")
        rows += [at_m[route] for route in routes]
    return rows


def _route_seconds(route: str, m: int, n: int, d: int, samples: int) -> float:
    """Predicted CPU seconds of one route at ``1/delta = m``: integer passes over the table and the
    sample (3e-8 s per token and layer), the mpmath memorization (4e-5 s per point)."""
    D = m**d
    if route == "kajitsuka_sato":
        return 4e-5 * n * universal.table_size(route, m, n, d) + 2e-6 * samples * n
    layers = D + 1 if route == "yun" else n * D + n
    return 3e-8 * n * layers * (universal.table_size(route, m, n, d) + samples) + 1e-6 * samples


def approximation_cost(*, target: str, d: int, inv_delta, samples: int, n: int,
                       grid_budget: int, memorization_budget: int) -> tuple[float, int]:
    """Predicted CPU seconds and peak bytes of ``approximation_table``."""
    seconds, mem = 0.0, 100.0
    for m in inv_delta:
        for route in _routes(target):
            size = universal.table_size(route, m, n, d)
            if size <= _route_budget(route, grid_budget, memorization_budget):
                seconds += _route_seconds(route, m, n, d, samples)
                per = 2000 if route == "kajitsuka_sato" else 100     # bytes per table entry
                mem = max(mem, 100 + per * n * size / 1e6 + 1e-4 * samples * n * d)
    return seconds, round(mem * MB)


# ---- sparse patterns: Assumption 1 and the sparse contextual mapping ---------------------------


def assumption_table(*, n, names, seed: int) -> list[dict]:
    """One row per pattern in ``names`` at every length in ``n``: Assumption 1, the connections per
    layer, and ``connections_reach``: the connections summed over the ``s`` layers every token
    needs to reach every token (the cycle's masks in turn; -1 when never)."""
    names, n = _names(names), _sizes("n", n, 1)
    rows = []
    for length in n:
        rng = generator(seed, f"{STAGE}.patterns", n=length)
        for name in names:
            a = assumption1(pattern_masks(name, length, rng=rng))
            conns = a["connections"]
            reach = (-1 if a["s"] is None
                     else sum(conns[t % a["p"]] for t in range(a["s"])))
            rows.append({
                "pattern": name, "n": length, "p": a["p"], "self_loops": a["self_loops"],
                "hamiltonian_path": "undecided" if a["hamiltonian_path"] is None
                else str(a["hamiltonian_path"]).lower(),
                "s": -1 if a["s"] is None else a["s"], "satisfied": a["satisfied"],
                "connections_max": a["connections_max"],
                "connections_total": int(sum(conns)),
                "connections_reach": int(reach),
                "density_max": a["density_max"],
            })
    return rows


def assumption_cost(*, n, names) -> tuple[float, int]:
    """Predicted CPU seconds and peak bytes of ``assumption_table``: bit-packed reachability costs
    about 1e-9 s per bit and layer, ``n^3`` for the window's ``n - 1`` layers (constant ``s``
    elsewhere); building masks and the path search about 2e-7 s per mask entry."""
    seconds = sum(1e-9 * length**3 + 2e-7 * len(names) * length**2 for length in n)
    return seconds, round((100 + 20 * max(n) ** 2 / 1e6) * MB)


def sparse_mapping_check(name: str, masks, m: int, d: int, n: int) -> list[dict]:
    """The sparse selective-shift contextual mapping of pattern ``name`` (``masks``) on every grid
    input, with the shift factor ``K = R`` (code range) and with ``K = D = m^d`` (the factor of
    the dense equivariant Lemma 6): repeated values among all outputs (0 = a contextual mapping
    separating every input), layer counts, and the attention matrices against the integer
    reference where float64 is exact."""
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
            "inputs": len(digits), "repeated_values": contextual_mapping.contextual_all_distinct(q),
            "select_layers": select, "identity_layers": net.identity_layers,
            "max_layers": len(net.layers) - select, "s": net.notes["s"], "p": net.notes["p"],
            "layers_bound": net.notes["p"] * n * m**d + net.notes["s"],
            "matrix_checked": mism >= 0, **cmp, "precision": prec,
        })
    return rows


def _sparse_grids(inv_delta, d, n, grid_budget: int) -> list[tuple[int, int, int]]:
    return [(m, dd, nn) for m in inv_delta for dd in d for nn in n
            if m ** (nn * dd) <= grid_budget]


def sparse_mapping_table(*, names, inv_delta, d, n, grid_budget: int, seed: int,
                         log: logging.Logger | None = None) -> list[dict]:
    """``sparse_mapping_check`` for every pattern in ``names`` on every grid ``(1/delta, d, n)``
    with at most ``grid_budget`` inputs; a pattern that fails Assumption 1 gets a "not run" row."""
    names, grid_budget = _names(names), integer("grid_budget", grid_budget, 1)
    grids = _sparse_grids(_sizes("inv_delta", inv_delta, 2), _sizes("d", d, 1), _sizes("n", n, 1),
                          grid_budget)
    if not grids:
        raise ValueError(f"every grid (1/delta)^(n d) is over grid_budget = {grid_budget}: "
                         "nothing to check")
    work = {g: _sparse_seconds(*g) for g in grids}
    progress = _progress(log, "sparse contextual mappings", len(names) * sum(work.values()))
    done = 0.0
    rows = []
    for name in names:
        for m, dd, nn in grids:
            rng = generator(seed, f"{STAGE}.sparse_mapping", pattern=name, n=nn)
            masks = pattern_masks(name, nn, rng=rng)
            if not assumption1(masks)["satisfied"]:
                rows.append({"pattern": name, "inv_delta": m, "d": dd, "n": nn,
                             "shift": "not run: Assumption 1 fails", "inputs": m ** (nn * dd)})
            else:
                rows += sparse_mapping_check(name, masks, m, dd, nn)
            done += work[(m, dd, nn)]
            _advance(progress, done, pattern=name, grid=f"{m}/{dd}/{nn}")
    return rows


def _sparse_seconds(m: int, d: int, n: int) -> float:
    """Two networks of at most ``2 n m^d + n`` layers on ``m^(n d)`` inputs: integers (Python
    integers beyond 2^62, about 1e-6 s per token and layer) and the attention matrices."""
    return 2 * 1e-6 * (m ** (n * d)) * n * (2 * n * m**d + n)


def sparse_mapping_cost(*, names, inv_delta, d, n, grid_budget: int) -> tuple[float, int]:
    """Predicted CPU seconds and peak bytes of ``sparse_mapping_table``."""
    grids = _sparse_grids(inv_delta, d, n, grid_budget)
    seconds = len(names) * sum(_sparse_seconds(*g) for g in grids)
    inputs = max((m ** (nn * dd) * nn * nn for m, dd, nn in grids), default=0)
    return seconds, round((100 + 1e-3 * inputs) * MB)


# ---- Fang et al.'s polynomial blocks ------------------------------------------------------------


def _block_flops(d: int, blocks: int, inputs: int) -> float:
    """Flops of ``blocks`` fixed blocks on ``inputs`` inputs: each block multiplies token states
    ``(T, 2T + 1)`` by three ``(2T + 1)``-row weight matrices, ``T = C(d + L, L)``."""
    T = n_tokens(d, blocks)
    return 12.0 * inputs * blocks * T**2 * (2 * T + 1)


def staircase_table(*, d, max_blocks: int, max_degree: int, n_test: int, seed: int) -> list[dict]:
    """``staircase_error`` for every dimension in ``d`` and every (blocks, degree) in
    ``1..max_blocks x 1..max_degree``."""
    d, n_test = _sizes("d", d, 1), integer("n_test", n_test, 1)
    max_blocks, max_degree = integer("max_blocks", max_blocks, 1), integer("max_degree", max_degree, 1)
    rows = []
    for dim in d:
        rng = generator(seed, f"{STAGE}.staircase", d=dim)
        rows += [staircase_error(dim, L, k, rng, n_test=n_test)
                 for L in range(1, max_blocks + 1) for k in range(1, max_degree + 1)]
    return rows


def staircase_cost(*, d, max_blocks: int, max_degree: int, n_test: int) -> tuple[float, int]:
    """Predicted CPU seconds (5e9 flop/s, batched matrix products) and peak bytes."""
    cells = [(dim, L) for dim in d for L in range(1, max_blocks + 1)]
    flops = max_degree * sum(_block_flops(dim, L, 4 * n_tokens(dim, L) + n_test)
                             for dim, L in cells)
    T = max(n_tokens(dim, L) for dim, L in cells)
    return flops / 5e9, round((100 + 8 * 512 * T * (2 * T + 1) * 4 / 1e6) * MB)


def regression_table(*, d: int, degree: int, n_train, sigma: float, repeats: int, n_test: int,
                     seed: int) -> list[dict]:
    """Mean excess risk over ``repeats`` fresh draws (blocks, target, data) for ``L = degree``
    blocks (exact) and ``L = degree - 1`` (too few) at every sample size in ``n_train``."""
    d, degree = integer("d", d, 1), integer("degree", degree, 2)
    n_train, n_test = _sizes("n_train", n_train, 1), integer("n_test", n_test, 1)
    repeats = integer("repeats", repeats, 1)
    if not finite_number("sigma", sigma) > 0:
        raise ValueError(f"sigma (the noise) must be > 0, got {sigma!r}")
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


def regression_cost(*, d: int, degree: int, n_train, repeats: int, n_test: int
                    ) -> tuple[float, int]:
    """Predicted CPU seconds (5e9 flop/s) and peak bytes of ``regression_table``."""
    flops = repeats * sum(_block_flops(d, L, N + n_test)
                          for L in (degree, degree - 1) for N in n_train)
    T = n_tokens(d, degree)
    return flops / 5e9, round((100 + 8 * max(n_train) * T * 3 / 1e6) * MB)
