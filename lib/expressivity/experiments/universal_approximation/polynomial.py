"""Fang et al. 2022's polynomial blocks (``expressivity.polynomial``): the maximum relative error
against (blocks, degree), its ablation over block variants, the blocks trained instead of fixed
(``expressivity.trained_polynomial``), and noisy regression's excess risk against the sample
size."""

from __future__ import annotations

import math

import numpy as np

from expressivity.arguments import finite_number, integer
from expressivity.experiments.universal_approximation import MB, STAGE, sizes
from expressivity.joblog import Progress
from expressivity.mlp_regression import fit_mlp, n_parameters, width_for
from expressivity.polynomial import (
    SCALES,
    VARIANTS,
    affine_forms,
    degree_bound,
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
from expressivity.training_protocol import Protocol, cell_summary

#: Counted flops (``_block_flops``) per CPU second of the fixed blocks' batched products, fitted to
#: the default run of 2026-11-27 (staircase 9.2 s and ablation 12.2 s of CPU time, each with its
#: process start), which the 5e9 assumed before planned at 61 s and 124 s.
BLOCK_FLOP_RATE = 5e10


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
    """Predicted CPU seconds (``BLOCK_FLOP_RATE``, batched matrix products) and peak bytes."""
    cells = [(dim, L) for dim in d for L in range(1, max_blocks + 1)]
    flops = max_degree * sum(_block_flops(dim, L, 4 * n_tokens(dim, L) + n_test)
                             for dim, L in cells)
    T = max(n_tokens(dim, L) for dim, L in cells)
    return flops / BLOCK_FLOP_RATE, round((100 + 8 * 512 * T * (2 * T + 1) * 4 / 1e6) * MB)


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
    """Predicted CPU seconds (``BLOCK_FLOP_RATE``) and peak bytes of ``ablation_table``: the
    softmax-free features once, each other variant's once per distinct scale (at most one per degree), the
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
    return flops / BLOCK_FLOP_RATE, round((100 + 8 * 512 * T * (2 * T + 1) * 4 / 1e6) * MB)


#: The trained block variants: whether the block applies a row softmax to its scores.
TRAINED_VARIANTS = {"softmax_free": False, "softmax": True}


def trained_degrees(blocks: int) -> list[int]:
    """The target degrees of ``blocks`` trained blocks: ``1..L`` (the fixed construction's), ``L +
    1`` (one beyond it) and ``3^L + 1`` (beyond the trained blocks' degree bound)."""
    return sorted({*range(1, blocks + 2), degree_bound(blocks) + 1})


def trained_cells(blocks: int, variants) -> list[tuple[int, str]]:
    """The ``(degree, variant)`` cells of ``blocks`` trained blocks in the table's row order: each
    degree of ``trained_degrees`` with every variant in turn. A job of ``trained_table`` holds a run
    ``first..last`` of them."""
    return [(k, v) for k in trained_degrees(blocks) for v in variants]


def trained_table(*, d: int, blocks, variants, seeds: int, lr, budget: int, every: int,
                  window: int, min_gain: float, lr_decay: float, oversample: int, n_test: int,
                  seed: int, L: int | None = None, first: int = 0, last: int | None = None,
                  log=None) -> list[dict]:
    """Blocks trained from random weights (``trained_polynomial.train_blocks``) on one random
    target per (blocks, degree) cell, degrees ``trained_degrees``, ``oversample T`` training and
    ``n_test`` test points of ``[-1, 1]^d``; each seed draws the initial weights and affine forms,
    the same for every variant. A run's target is its error within the rounding band of its
    features' float64 read-out floor; the band (decades) is measured in the same run: the largest
    error over floor of the fixed construction with ``degree`` blocks (exact) on the cells with
    degree <= L + 1 (beyond, its powers up to ``3^L + 1`` are too ill-conditioned to measure
    rounding: condition 1e29 at degree 27, d = 1; ``fixed_gap`` is NaN there).
    One row per run with its cell's summary over seeds (existence, reliability with its Wilson
    interval; ``training_protocol.cell_summary``) and the protocol's settings.

    With ``L`` (one of ``blocks``), only the cells ``first..last`` of ``trained_cells(L,
    variants)`` (all of them by default) are trained: their rows are those of the whole table,
    since every cell draws its own target, points and initial weights and every job measures the
    band on all the cells of ``blocks`` (a few least-squares fits); the jobs' rows concatenated in
    the order of ``blocks`` and ``first`` are the table."""
    from expressivity.trained_polynomial import train_blocks  # torch: in the job, not the DAG

    d, seeds = integer("d", d, 1), integer("seeds", seeds, 1)
    blocks, n_test = sizes("blocks", blocks, 1), integer("n_test", n_test, 1)
    oversample = integer("oversample", oversample, 1)
    if isinstance(variants, str) or not variants or any(v not in TRAINED_VARIANTS for v in variants):
        raise ValueError(f"variants must be a list of trained block variants "
                         f"({', '.join(TRAINED_VARIANTS)}), got {variants!r}")
    lrs = [finite_number("lr", v) for v in lr] if isinstance(lr, (list, tuple)) else []
    if not lrs or min(lrs) <= 0:
        raise ValueError(f"lr must be a non-empty list of learning rates > 0, got {lr!r}")
    cells = [(b, k, v) for b in blocks for k, v in trained_cells(b, variants)]
    if L is not None:
        if L not in blocks:
            raise ValueError(f"L must be one of blocks {blocks}, got {L!r}")
        own = trained_cells(L, variants)
        last = len(own) - 1 if last is None else last
        if not 0 <= first <= last < len(own):
            raise ValueError(f"need 0 <= first <= last < {len(own)} (the cells of L = {L}), got "
                             f"first {first!r}, last {last!r}")
        cells = [(L, k, v) for k, v in own[first:last + 1]]
    proto = Protocol(target=1.0, budget=budget, every=every, window=window, min_gain=min_gain,
                     decay=lr_decay)
    draws = {}
    for b in blocks:
        for k in trained_degrees(b):
            rng = generator(seed, f"{STAGE}.trained", d=d, blocks=b, degree=k)
            poly = random_polynomial(d, k, rng)
            x = [rng.uniform(-1, 1, size=(m, d)) for m in (oversample * n_tokens(d, b), n_test)]
            y = [evaluate_polynomial(poly, part) for part in x]
            gap = math.nan
            if k <= b + 1:
                fixed = make_blocks(d, k, rng)
                Z = [features(fixed, part) for part in x]
                gap = (math.log10(relative_error(Z[1] @ fit_readout(Z[0], y[0]), y[1]))
                       - math.log10(readout_floor(*Z, y[0])))
            draws[b, k] = (x, y, gap)
    band = max(0.0, np.nanmax([gap for _, _, gap in draws.values()]))
    rows = []
    for b, k, variant in cells:
        x, y, gap = draws[b, k]
        runs = []
        for rate in lrs:  # the seeds side by side, each from its own generator
            inits = [generator(seed, f"{STAGE}.trained_init", d=d, blocks=b, degree=k, seed=i)
                     for i in range(seeds)]
            runs += train_blocks(d, b, x[0], x[1], y[0], y[1], softmax=TRAINED_VARIANTS[variant],
                                 inits=inits, lr=rate, protocol=proto, band=band)
        for i, run in enumerate(runs):
            run["seed"] = i % seeds
        cell = {"variant": variant, "d": d, "blocks": b, "degree": k, "tokens": n_tokens(d, b),
                "degree_bound": degree_bound(b), "fixed_gap": gap, "band": band,
                **cell_summary(runs), **proto.settings()}
        rows += [{**cell, **run} for run in runs]
        if log is not None:
            log.info("L = %d, degree %d, %s: %s", b, k, variant,
                     " ".join(f"{r['max_rel_error']:.1e}" for r in runs))
    return rows


def trained_cost(*, d: int, blocks, seeds: int, lr, budget: int, oversample: int, n_test: int,
                 L: int, cells: int) -> tuple[float, int]:
    """Predicted CPU seconds and peak bytes of a ``trained_table`` job of ``cells`` cells of ``L``
    blocks (``trained_cells``): at most ``budget`` Adam steps a learning rate, its ``seeds`` runs
    side by side, about 1 ms a step on these few tokens plus 2e9 flop/s of block products per
    replica (measured 2026-11-27 on one core: 1.0 ms a step for 1 or 5 replicas at d = 1, L = 1;
    1.4 and 2.3 ms at L = 2; 2.0 and 5.5 ms at d = 2, L = 2). Its memory is that of the largest
    ``blocks``, whose cells every job draws for the band."""
    seconds = cells * len(lr) * budget * (
        1e-3 + seeds * 3 * _block_flops(d, L, oversample * n_tokens(d, L)) / 2e9)
    T = n_tokens(d, max(blocks))
    return seconds, round((150 + 8 * (oversample * T + n_test) * T * (2 * T + 1) * 4 / 1e6) * MB)


#: The transformer arm's protocol constants: the least rise of its metric over a window that is
#: not a plateau, and the factor its learning rate is divided by before one is declared.
TRANSFORMER_MIN_GAIN, TRANSFORMER_LR_DECAY = 0.01, 10.0
#: Training points per replica the transformer arm's metric is evaluated on.
TRANSFORMER_EVAL_POINTS = 512


def regression_table(*, d: int, degree: int, n_train, sigma: float, repeats: int, n_test: int,
                     mlp_repeats: int, mlp_restarts: int, transformer_repeats: int,
                     transformer_width: int, transformer_hidden: int, transformer_lr: float,
                     transformer_batch: int, transformer_budget: int, transformer_every: int,
                     transformer_window: int, seed: int, log=None) -> list[dict]:
    """Mean excess risk over ``repeats`` fresh draws (target, data, blocks) at every sample size
    in ``n_train`` for four arms on the same draws: frozen blocks with ``L = degree`` (exact) and
    ``L = degree - 1`` (too few), both with a least-squares read-out of ``T`` weights; a tanh
    network with at most as many parameters as the exact arm's read-out (``mlp_regression``),
    fitted on the first ``mlp_repeats`` draws (``mlp_restarts`` initialisations each); and a
    trained one-head transformer (``regression_transformer``, width ``transformer_width``, MLP of
    ``transformer_hidden`` units) on the exact arm's tokens, trained with Adam on the first
    ``transformer_repeats`` draws of every size side by side under the training protocol
    (minibatches of ``transformer_batch``, evaluated every ``transformer_every`` steps, a plateau
    window of ``transformer_window`` steps, at most ``transformer_budget`` steps). ``converged``
    counts the fits that stopped by their own rule (MINPACK's tolerances; the protocol's target or
    plateau), never at their budget."""
    from expressivity.regression_transformer import fit_transformers  # torch: in the job only
    from expressivity.regression_transformer import n_parameters as transformer_parameters

    d, degree = integer("d", d, 1), integer("degree", degree, 2)
    n_train, n_test = sizes("n_train", n_train, 1), integer("n_test", n_test, 1)
    repeats = integer("repeats", repeats, 2)
    mlp_repeats = integer("mlp_repeats", mlp_repeats, 2)
    mlp_restarts = integer("mlp_restarts", mlp_restarts, 1)
    transformer_repeats = integer("transformer_repeats", transformer_repeats, 2)
    for name, value in (("mlp_repeats", mlp_repeats), ("transformer_repeats", transformer_repeats)):
        if value > repeats:
            raise ValueError(f"{name} ({value}) must be at most repeats ({repeats})")
    if not finite_number("sigma", sigma) > 0:
        raise ValueError(f"sigma (the noise) must be > 0, got {sigma!r}")
    if not finite_number("transformer_lr", transformer_lr) > 0:
        raise ValueError(f"transformer_lr must be > 0, got {transformer_lr!r}")
    width = width_for(n_tokens(d, degree), d)
    tf_width = integer("transformer_width", transformer_width, 3)
    tf_hidden = integer("transformer_hidden", transformer_hidden, 1)
    tf_batch = integer("transformer_batch", transformer_batch, 1)
    try:
        proto = Protocol(target=1.0, budget=transformer_budget, every=transformer_every,
                         window=transformer_window, min_gain=TRANSFORMER_MIN_GAIN,
                         decay=TRANSFORMER_LR_DECAY)
    except ValueError as err:
        raise ValueError(f"transformer_{err}".replace("Protocol.", "")) from None
    rng = generator(seed, f"{STAGE}.regression")
    T = n_tokens(d, degree)
    rows, draws = [], []
    for N in n_train:
        excess = {degree: [], degree - 1: [], "mlp": []}
        converged = 0
        for r in range(repeats):
            poly = random_polynomial(d, degree, rng)
            x, y = noisy_sample(poly, N, sigma, rng)
            x_test = rng.uniform(-1, 1, size=(n_test, d))
            f_test = evaluate_polynomial(poly, x_test)
            for L in (degree, degree - 1):
                blocks = make_blocks(d, L, rng)
                excess[L].append(readout_excess(blocks, x, y, x_test, f_test))
                if L == degree and r < transformer_repeats:
                    draws.append((N, affine_forms(blocks, x), y, affine_forms(blocks, x_test),
                                  f_test))
            if r < mlp_repeats:
                net = fit_mlp(x, y, width, rng, restarts=mlp_restarts)
                excess["mlp"].append(float(np.mean((net(x_test) - f_test) ** 2)))
                converged += net.converged
        base = {"d": d, "degree": degree, "n_train": N, "sigma": sigma}
        for arm, values in excess.items():
            mlp = arm == "mlp"
            rows.append({**base, "arm": "mlp" if mlp else "frozen blocks",
                         "blocks": math.nan if mlp else arm,
                         "tokens": n_tokens(d, degree if mlp else arm),
                         "parameters": n_parameters(width, d) if mlp else n_tokens(d, arm),
                         **_excess_columns(values), "converged": converged if mlp else len(values),
                         "variance_prediction": math.nan if mlp else sigma**2 * n_tokens(d, arm) / N})
    if log is not None:
        log.info("frozen blocks and MLP done; training %d transformers", len(draws))
    runs = fit_transformers([v[1] for v in draws], [v[2] for v in draws], [v[3] for v in draws],
                            sigma=sigma, width=tf_width, hidden=tf_hidden, protocol=proto,
                            lr=transformer_lr, batch=tf_batch,
                            eval_points=TRANSFORMER_EVAL_POINTS,
                            progress=None if log is None else Progress(
                                log, "transformer steps (at most)", proto.budget),
                            init=[generator(seed, f"{STAGE}.regression_transformer", n_train=N,
                                            repeat=i % transformer_repeats)
                                  for i, (N, *_) in enumerate(draws)])
    for N in n_train:
        mine = [(run, draw) for run, draw in zip(runs, draws, strict=True) if draw[0] == N]
        values = [float(np.mean((run["prediction"] - draw[4]) ** 2)) for run, draw in mine]
        outcomes = [run["outcome"] for run, _ in mine]
        rows.append({"d": d, "degree": degree, "n_train": N, "sigma": sigma, "arm": "transformer",
                     "blocks": math.nan, "tokens": T,
                     "parameters": transformer_parameters(tf_width, tf_hidden, T),
                     **_excess_columns(values),
                     "converged": sum(o in ("reached", "plateau") for o in outcomes),
                     "variance_prediction": math.nan,
                     "transformer_outcomes": " ".join(outcomes),
                     "transformer_lr": transformer_lr, "transformer_batch": tf_batch,
                     **{f"transformer_{k}": v for k, v in proto.settings().items()}})
        if log is not None:
            log.info("transformer, N = %d: excess %s (%s)", N,
                     " ".join(f"{v:.2e}" for v in values), " ".join(outcomes))
    return rows


def _excess_columns(values: list[float]) -> dict:
    """Mean excess risk over the draws, its standard error and that of its log."""
    return {"repeats": len(values), "excess_mse": float(np.mean(values)),
            "excess_mse_sem": float(np.std(values, ddof=1) / np.sqrt(len(values))),
            "log_excess_se": float(np.std(np.log(values), ddof=1) / np.sqrt(len(values)))}


def regression_cost(*, d: int, degree: int, n_train, repeats: int, n_test: int,
                    mlp_repeats: int, mlp_restarts: int, transformer_repeats: int,
                    transformer_width: int, transformer_hidden: int, transformer_batch: int,
                    transformer_budget: int, transformer_every: int) -> tuple[float, int]:
    """Predicted CPU seconds and peak bytes of ``regression_table``: the blocks at
    ``BLOCK_FLOP_RATE``, the networks' Levenberg-Marquardt steps (at most 500 per fit, a QR of the
    ``N x P`` Jacobian each) at 1e9 flop/s, the transformers' at most ``transformer_budget`` steps
    (``_transformer_seconds``)."""
    flops = repeats * sum(_block_flops(d, L, N + n_test)
                          for L in (degree, degree - 1) for N in n_train)
    P = n_parameters(width_for(n_tokens(d, degree), d), d)
    mlp = mlp_repeats * mlp_restarts * 500 * sum(4.0 * N * P**2 for N in n_train)
    T = n_tokens(d, degree)
    seconds = _transformer_seconds(replicas=transformer_repeats * len(n_train), tokens=T,
                                   width=transformer_width, hidden=transformer_hidden,
                                   batch=transformer_batch, budget=transformer_budget,
                                   every=transformer_every, n_test=n_test)
    return (flops / BLOCK_FLOP_RATE + mlp / 1e9 + seconds,
            round((100 + 8 * max(n_train) * T * (3 + transformer_repeats * len(n_train)) / 1e6)
                  * MB))


def _transformer_seconds(*, replicas: int, tokens: int, width: int, hidden: int, batch: int,
                         budget: int, every: int, n_test: int) -> float:
    """Predicted CPU seconds of ``regression_transformer.fit_transformers`` with every replica at
    its ``budget``: per step 2 ms and ``6 T (4 m^2 + 2 m h + 2 T m + 10 m)`` flops a sample
    (forward and backward) at 1e9 flop/s (these small batched products run far below peak),
    ``batch`` samples a replica, and every ``every`` steps a forward pass on
    ``TRANSFORMER_EVAL_POINTS`` of them, then one on the test points."""
    m, h, T = width, hidden, tokens
    per_sample = 6.0 * T * (4 * m * m + 2 * m * h + 2 * T * m + 10 * m)
    samples = budget * batch + (budget // every + 1) * TRANSFORMER_EVAL_POINTS / 3 + n_test / 3
    return budget * 2e-3 + replicas * samples * per_sample / 1e9
