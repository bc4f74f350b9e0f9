"""Fang et al. 2022's polynomial blocks (``expressivity.polynomial``): the maximum relative error
against (blocks, degree), its ablation over block variants, and noisy regression's excess risk
against the sample size."""

from __future__ import annotations

import math

import numpy as np

from expressivity.arguments import finite_number, integer
from expressivity.experiments.universal_approximation import MB, STAGE, sizes
from expressivity.mlp_regression import fit_mlp, n_parameters, width_for
from expressivity.polynomial import (
    SCALES,
    VARIANTS,
    evaluate_polynomial,
    features,
    fit_readout,
    fit_scales,
    make_blocks,
    n_tokens,
    noisy_sample,
    random_polynomial,
    readout_excess,
    readout_floor,
    relative_error,
    staircase_error,
)
from expressivity.rng import generator


def _block_flops(d: int, blocks: int, inputs: int) -> float:
    """Flops of ``blocks`` fixed blocks on ``inputs`` inputs: each block multiplies token states
    ``(T, 2T + 1)`` by three ``(2T + 1)``-row weight matrices, ``T = C(d + L, L)``."""
    T = n_tokens(d, blocks)
    return 12.0 * inputs * blocks * T**2 * (2 * T + 1)


def staircase_table(*, d, max_blocks: int, max_degree: int, n_test: int, seed: int) -> list[dict]:
    """``staircase_error`` for every dimension in ``d`` and every (blocks, degree) in
    ``1..max_blocks x 1..max_degree``."""
    d, n_test = sizes("d", d, 1), integer("n_test", n_test, 1)
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


def ablation_table(*, d, max_blocks: int, max_degree: int, variants, n_test: int,
                   seed: int) -> list[dict]:
    """The staircase for every block variant in ``variants`` (``expressivity.polynomial.VARIANTS``)
    on the same draws: for each dimension in ``d`` and ``L`` in ``1..max_blocks`` one set of fixed
    blocks, ``4 T`` training and ``n_test`` test points of ``[-1, 1]^d``, and one random target per
    degree in ``1..max_degree``; every variant reads out the same targets from its own features.
    Each row carries the float64 floor of the softmax-free read-out of its target, measured in the
    same run (``readout_floor``), and log10 of error and floor (an error of exactly 0 is -inf)."""
    d, n_test = sizes("d", d, 1), integer("n_test", n_test, 1)
    max_blocks, max_degree = integer("max_blocks", max_blocks, 1), integer("max_degree", max_degree, 1)
    if (isinstance(variants, str) or not variants or "softmax_free" not in variants
            or any(v not in VARIANTS for v in variants) or len(set(variants)) < len(variants)):
        raise ValueError(f"variants must be a list of distinct block variants ({', '.join(VARIANTS)})"
                         f" holding softmax_free (the reference and its rounding band), got "
                         f"{variants!r}")
    rows = []
    for dim in d:
        for L in range(1, max_blocks + 1):
            rng = generator(seed, f"{STAGE}.ablation", d=dim, blocks=L)
            model = make_blocks(dim, L, rng)
            x = rng.uniform(-1, 1, size=(4 * model.tokens, dim)), rng.uniform(-1, 1, size=(n_test, dim))
            polys = [random_polynomial(dim, k, rng) for k in range(1, max_degree + 1)]
            y = [[evaluate_polynomial(p, part) for p in polys] for part in x]
            free = [features(model, part) for part in x]
            floors = [readout_floor(*free, y_k) for y_k in y[0]]
            scales = (fit_scales(model, x[0], y[0]) if "softmax_scaled" in variants
                      else [1.0] * max_degree)
            for variant in variants:
                cache = {}
                for k in range(1, max_degree + 1):
                    s = scales[k - 1] if variant == "softmax_scaled" else 1.0
                    if (key := (variant, s)) not in cache:
                        cache[key] = free if variant == "softmax_free" else [
                            features(model, part, variant=variant, scale=s) for part in x]
                    Z_train, Z_test = cache[key]
                    error = relative_error(Z_test @ fit_readout(Z_train, y[0][k - 1]), y[1][k - 1])
                    rows.append(_ablation_row(variant, dim, L, k, model.tokens, s, error,
                                              floors[k - 1], Z_train))
    return rows


def _ablation_row(variant, d, L, k, tokens, scale, error, floor, Z_train) -> dict:
    with np.errstate(divide="ignore"):
        return {"variant": variant, "d": d, "blocks": L, "degree": k, "tokens": tokens,
                "score_scale": scale, "max_rel_error": error,
                "log10_error": float(np.log10(error)), "floor": floor,
                "log10_floor": float(np.log10(floor)),
                "feature_rank": int(np.linalg.matrix_rank(Z_train)),
                "condition": float(np.linalg.cond(Z_train))}


def ablation_cost(*, d, max_blocks: int, max_degree: int, variants, n_test: int
                  ) -> tuple[float, int]:
    """Predicted CPU seconds (5e9 flop/s) and peak bytes of ``ablation_table``: the softmax-free
    features once, each other variant's once per distinct scale (at most one per degree), the
    learned scale's search once per scale on the training points."""
    flops = 0.0
    for dim in d:
        for L in range(1, max_blocks + 1):
            T = n_tokens(dim, L)
            once = _block_flops(dim, L, 4 * T + n_test)
            for v in variants:
                flops += ((len(SCALES) * _block_flops(dim, L, 4 * T) + max_degree * once)
                          if v == "softmax_scaled" else once)
    T = max(n_tokens(dim, max_blocks) for dim in d)
    return flops / 5e9, round((100 + 8 * 512 * T * (2 * T + 1) * 4 / 1e6) * MB)


def regression_table(*, d: int, degree: int, n_train, sigma: float, repeats: int, n_test: int,
                     mlp_repeats: int, mlp_restarts: int, seed: int) -> list[dict]:
    """Mean excess risk over ``repeats`` fresh draws (target, data, blocks) at every sample size
    in ``n_train`` for three arms on the same draws: frozen blocks with ``L = degree`` (exact) and
    ``L = degree - 1`` (too few), both with a least-squares read-out of ``T`` weights, and a tanh
    network with at most as many parameters as the exact arm's read-out (``mlp_regression``), fitted
    on the first ``mlp_repeats`` draws (``mlp_restarts`` initialisations each)."""
    d, degree = integer("d", d, 1), integer("degree", degree, 2)
    n_train, n_test = sizes("n_train", n_train, 1), integer("n_test", n_test, 1)
    repeats = integer("repeats", repeats, 2)
    mlp_repeats = integer("mlp_repeats", mlp_repeats, 2)
    mlp_restarts = integer("mlp_restarts", mlp_restarts, 1)
    if mlp_repeats > repeats:
        raise ValueError(f"mlp_repeats ({mlp_repeats}) must be at most repeats ({repeats})")
    if not finite_number("sigma", sigma) > 0:
        raise ValueError(f"sigma (the noise) must be > 0, got {sigma!r}")
    rng = generator(seed, f"{STAGE}.regression")
    width = width_for(n_tokens(d, degree), d)
    rows = []
    for N in n_train:
        excess = {degree: [], degree - 1: [], "mlp": []}
        converged = 0
        for r in range(repeats):
            poly = random_polynomial(d, degree, rng)
            x, y = noisy_sample(poly, N, sigma, rng)
            x_test = rng.uniform(-1, 1, size=(n_test, d))
            f_test = evaluate_polynomial(poly, x_test)
            for L in (degree, degree - 1):
                excess[L].append(readout_excess(make_blocks(d, L, rng), x, y, x_test, f_test))
            if r < mlp_repeats:
                net = fit_mlp(x, y, width, rng, restarts=mlp_restarts)
                excess["mlp"].append(float(np.mean((net(x_test) - f_test) ** 2)))
                converged += net.converged
        base = {"d": d, "degree": degree, "n_train": N, "sigma": sigma}
        for arm, values in excess.items():
            mlp = arm == "mlp"
            T = n_tokens(d, degree if mlp else arm)
            rows.append({**base, "arm": "mlp" if mlp else "frozen blocks",
                         "blocks": math.nan if mlp else arm, "tokens": T,
                         "parameters": n_parameters(width, d) if mlp else T,
                         "repeats": len(values), "excess_mse": float(np.mean(values)),
                         "excess_mse_sem": float(np.std(values, ddof=1) / np.sqrt(len(values))),
                         "log_excess_se": float(np.std(np.log(values), ddof=1)
                                                / np.sqrt(len(values))),
                         "converged": converged if mlp else len(values),
                         "variance_prediction": math.nan if mlp else sigma**2 * T / N})
    return rows


def regression_cost(*, d: int, degree: int, n_train, repeats: int, n_test: int,
                    mlp_repeats: int, mlp_restarts: int) -> tuple[float, int]:
    """Predicted CPU seconds and peak bytes of ``regression_table``: the blocks at 5e9 flop/s, the
    networks' Levenberg-Marquardt steps (at most 500 per fit, a QR of the ``N x P`` Jacobian each)
    at 1e9 flop/s."""
    flops = repeats * sum(_block_flops(d, L, N + n_test)
                          for L in (degree, degree - 1) for N in n_train)
    P = n_parameters(width_for(n_tokens(d, degree), d), d)
    mlp = mlp_repeats * mlp_restarts * 500 * sum(4.0 * N * P**2 for N in n_train)
    T = n_tokens(d, degree)
    return flops / 5e9 + mlp / 1e9, round((100 + 8 * max(n_train) * T * 3 / 1e6) * MB)
