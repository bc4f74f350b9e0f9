"""The predicted cost of each trained-models job: ``(seconds, peak bytes)`` on one CPU thread.

A training step costs a fixed overhead (Python and torch dispatch, Adam) plus a part proportional
to the arithmetic of the model, and every job runs at most ``budget`` steps per learning rate
(early stopping only shortens it, so these are upper bounds for the planner). The constants were
measured on the development machine (``benchmarks/trained_models.py`` prints the current steps per
second) and carry the 50 % margin of the workflow's ``job_resources``:

- memorization (full batch, the seeds side by side): ``MEM_STEP + MEM_FLOP * R * N n (q + h s n)``
  seconds per epoch for ``R`` seeds, ``N n`` tokens, FFN width ``q``, ``h`` heads of size ``s``,
  plus a forward pass (a third of a step) every ``every`` epochs to evaluate;
- encoders (fresh batches, the seeds side by side): ``L (ENC_STEP + ENC_FLOP * 3 R B n (6 d^2 +
  2 n d))`` seconds per step for ``L`` layers, ``R`` seeds, batch ``B``, length ``n``, width ``d``
  (forward and backward: 3 passes), plus one held-out evaluation every ``every`` steps.

Peak memory is the torch process (``BASE_BYTES``) plus the activations kept for the backward pass.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

#: Resident size of a Python process with torch imported (measured: about 360 MB).
BASE_BYTES = 450 * 2**20
#: Seconds to start a job (interpreter, torch import, dataset).
START_SECONDS = 5.0
#: Memorization: overhead per full-batch epoch (s) and per token x hidden unit x seed (s).
MEM_STEP, MEM_FLOP = 4e-3, 2e-8
#: Encoders: overhead per layer and step (s) and per multiply-add (s).
ENC_STEP, ENC_FLOP = 3e-3, 2.5e-10


def _grid(lr) -> int:
    return len(lr) if isinstance(lr, (list, tuple)) else 1


def _memorize(*, seeds: int, tokens: int, width: int, mixing: int, epochs: int,
              every: int) -> float:
    return epochs * (1 + 1 / (3 * every)) * (MEM_STEP + MEM_FLOP * seeds * tokens
                                             * (width + mixing))


def memorization_cost(*, seeds: int, vocab_size: int, d: int, n: int, n_classes: int, N: int,
                      width: int, lr, budget: int, window: int, min_gain: float,
                      every: int) -> tuple[float, int]:
    """One memorization arm: the seeds side by side for every learning rate."""
    del vocab_size, n_classes, window, min_gain  # no change to the (budget-bound) cost
    seconds = START_SECONDS + _grid(lr) * _memorize(seeds=seeds, tokens=N * n, width=width,
                                                    mixing=n + d, epochs=budget + 1, every=every)
    return seconds, BASE_BYTES + 16 * 4 * seeds * N * n * (width + d + n)


def heads_cost(*, heads: int, head_size: int, seeds: int, vocab_size: int, d: int, n: int,
               n_classes: int, N: int, width: int, lr, budget: int, window: int,
               min_gain: float, every: int) -> tuple[float, int]:
    """One (heads, head size) cell of the ablation."""
    del vocab_size, n_classes, window, min_gain
    mixing = heads * (head_size * (n + 2 * d) + n)
    seconds = START_SECONDS + _grid(lr) * _memorize(seeds=seeds, tokens=N * n, width=width,
                                                    mixing=mixing, epochs=budget + 1, every=every)
    return seconds, BASE_BYTES + 16 * 4 * seeds * N * n * (width + mixing)


def width_cost(*, N: int, seeds: int, vocab_size: int, d: int, n: int, n_classes: int,
               widths: Sequence[int], lr, budget: int, window: int, min_gain: float,
               every: int) -> tuple[float, int]:
    """The bisection over ``widths``: at most ``bit_length(len(widths))`` cells, the widest first
    counted (an upper bound)."""
    del vocab_size, n_classes, window, min_gain
    cells = sorted(widths)[-len(widths).bit_length():]
    seconds = START_SECONDS + _grid(lr) * sum(
        _memorize(seeds=seeds, tokens=N * n, width=q, mixing=n + d, epochs=budget + 1,
                  every=every)
        for q in cells)
    return seconds, BASE_BYTES + 16 * 4 * seeds * N * n * (max(widths) + d + n)


def _encoder(*, seeds: int, layers: int, n: int, d_model: int, lr, batch: int, budget: int,
             every: int, eval_size: int) -> tuple[float, int]:
    flops = n * (6 * d_model**2 + 2 * n * d_model)
    step = layers * (ENC_STEP + ENC_FLOP * 3 * seeds * batch * flops)
    evaluate = layers * (ENC_STEP + ENC_FLOP * seeds * eval_size * flops)
    seconds = START_SECONDS + _grid(lr) * (budget * step + math.ceil(budget / every) * evaluate)
    peak = BASE_BYTES + 4 * 24 * layers * seeds * max(batch, eval_size) * n * (d_model + n)
    return seconds, peak


def copy_cost(*, depth: int, seeds: int, n: int, vocab: int, d_model: int, heads: int, lr,
              batch: int, budget: int, every: int, window: int, min_gain: float,
              eval_size: int) -> tuple[float, int]:
    """One (pattern, depth) cell of the copying task."""
    del vocab, heads, window, min_gain
    return _encoder(seeds=seeds, layers=depth, n=n, d_model=d_model, lr=lr, batch=batch,
                    budget=budget, every=every, eval_size=eval_size)


def hybrid_cost(*, seeds: int, n: int, vocab: int, d_model: int, heads: int, lr, batch: int,
                budget: int, every: int, window: int, min_gain: float, eval_size: int,
                depth: int) -> tuple[float, int]:
    """One hybrid of Yun et al. 2020a (attention counted for every layer: an upper bound)."""
    del vocab, heads, window, min_gain
    return _encoder(seeds=seeds, layers=depth, n=n, d_model=d_model, lr=lr, batch=batch,
                    budget=budget, every=every, eval_size=eval_size)
