"""Fang et al. 2022's polynomial blocks (``expressivity.polynomial``): the maximum relative error
against (blocks, degree), and noisy regression's excess risk against the sample size."""

from __future__ import annotations

import numpy as np

from expressivity.arguments import finite_number, integer
from expressivity.experiments.universal_approximation import MB, STAGE, sizes
from expressivity.polynomial import n_tokens, regression_excess, staircase_error
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


def regression_table(*, d: int, degree: int, n_train, sigma: float, repeats: int, n_test: int,
                     seed: int) -> list[dict]:
    """Mean excess risk over ``repeats`` fresh draws (blocks, target, data) for ``L = degree``
    blocks (exact) and ``L = degree - 1`` (too few) at every sample size in ``n_train``."""
    d, degree = integer("d", d, 1), integer("degree", degree, 2)
    n_train, n_test = sizes("n_train", n_train, 1), integer("n_test", n_test, 1)
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
