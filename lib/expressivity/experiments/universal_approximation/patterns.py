"""Sparse attention patterns (Yun et al. 2020b): Assumption 1 and the connections of every pattern
(``expressivity.assumption1``), and the sparse selective-shift contextual mapping on every input of
small grids (``expressivity.selective_shift``)."""

from __future__ import annotations

import logging

from expressivity import contextual_mapping, selective_shift
from expressivity.arguments import integer
from expressivity.assumption1 import assumption1
from expressivity.experiments.universal_approximation import (
    MB,
    STAGE,
    advance,
    pattern_names,
    sizes,
    tracker,
)
from expressivity.quantization import grid_digits
from expressivity.rng import generator
from expressivity.sparse_patterns import pattern_masks


def assumption_table(*, n, names, seed: int) -> list[dict]:
    """One row per pattern in ``names`` at every length in ``n``: Assumption 1, the connections per
    layer, and ``connections_reach``: the connections summed over the ``s`` layers every token
    needs to reach every token (the cycle's masks in turn; -1 when never)."""
    names, n = pattern_names(names), sizes("n", n, 1)
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
    names, grid_budget = pattern_names(names), integer("grid_budget", grid_budget, 1)
    grids = _sparse_grids(sizes("inv_delta", inv_delta, 2), sizes("d", d, 1), sizes("n", n, 1),
                          grid_budget)
    if not grids:
        raise ValueError(f"every grid (1/delta)^(n d) is over grid_budget = {grid_budget}: "
                         "nothing to check")
    work = {g: _sparse_seconds(*g) for g in grids}
    progress = tracker(log, "sparse contextual mappings", len(names) * sum(work.values()))
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
            advance(progress, done, pattern=name, grid=f"{m}/{dd}/{nn}")
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

