"""The papers' own experiments at our scale: Yun et al. 2020b's sparsity sweep and STAR's relay,
and Yun et al. 2020a's hybrid curve (Sec. 5). Each job is one cell (its seeds, every learning rate
of the grid; a hybrid's job one learning rate, its cell summarised when the table is gathered,
``runs.cells_summarised``) trained under the stage's protocol with early stopping at
``tasks.LEARNED_ACCURACY`` held-out token accuracy (``encoders._cell``), one row per run.

- ``sparsity_rows``: ``task`` (``copy``: routing by position; ``recall``: multi-query associative
  recall, routing by content; ``expressivity.tasks``) with ``pattern`` (``strided``, ``fixed``) in
  ``configuration`` (``alternating``, ``union``, or ``heads``: the cycle split over the heads;
  ``expressivity.pattern_configurations``) at level ``level`` (its window or block size ``w``),
  ``random`` in a configuration matched to that configuration's densest deterministic pattern at
  that level (the fewest keys per query that give at least its density: compared at the same
  sparsity, a RANDOM that loses loses with as many connections; drawn per head when the heads are
  split), or ``dense`` (``configuration`` ``full``, the reference); each row records the density;
- ``star_rows``: the copying task with STAR at width ``d_model`` and length ``n``, with its load
  ``n log2(vocab) / d_model`` (content bits the relay token must carry per unit of width);
- ``hybrid_rows``: ``depth - k`` layers of ``alternative`` (``bilinear``, ``conv`` with its
  ``kernel``) below ``k`` attention layers (``attention``: all ``depth``) on ``task`` (``recall``:
  content routing; ``count``).
"""

from __future__ import annotations

import logging
import math

from expressivity.experiments.trained_models.encoders import _cell
from expressivity.experiments.trained_models.runs import STAGE, cell_rows, wildcard
from expressivity.pattern_configurations import CONFIGURATIONS, density, layer_masks, matched_random
from expressivity.rng import generator
from expressivity.sequence_encoder import hybrid_mixers
from expressivity.sparse_patterns import pattern_masks
from expressivity.tasks import majority_accuracy
from expressivity.torch_runtime import configure_torch, run_info

#: The deterministic patterns of the sparsity sweep (their level is the window or block size).
SWEPT = ("strided", "fixed")
#: The sweep's tasks: copying routes by position, associative recall by content.
SWEEP_TASKS = ("copy", "recall")


def sweep_masks(pattern: str, configuration: str, level: int, *, n: int, depth: int, heads: int,
                seed: int) -> list:
    """The ``depth`` masks of one sweep cell (see the module docstring); RANDOM in configuration
    ``c`` is matched to the densest of ``SWEPT`` in ``c`` at ``level``, the same draw for every
    task (its stream does not name the task)."""
    if pattern == "dense":
        if configuration != "full":
            raise ValueError(f"dense runs in configuration 'full', got {configuration!r}")
        return pattern_masks("dense", n) * depth
    if configuration not in CONFIGURATIONS:
        raise ValueError(f"unknown configuration {configuration!r}; use one of "
                         f"{', '.join(CONFIGURATIONS)}")
    split = configuration == "heads"
    if pattern == "random":
        target = max(density(layer_masks(p, n, depth, configuration, heads=heads, w=level))
                     for p in SWEPT)
        rng = generator(seed, f"{STAGE}.sparsity_pattern", level=level,
                        configuration=configuration)
        return matched_random(n, depth, target, rng, heads=heads if split else None)
    if pattern not in SWEPT:
        raise ValueError(f"unknown swept pattern {pattern!r}; use dense, random or one of "
                         f"{', '.join(SWEPT)}")
    return layer_masks(pattern, n, depth, configuration, heads=heads, w=level)


def sparsity_rows(*, task: str, pattern: str, configuration: str, level: int | str, seed: int,
                  threads: int, device: str, seeds: int, min_gain: float, lr_decay: float, n: int,
                  vocab: int, recall_vocab: int, depth: int, d_model: int, heads: int,
                  lr: float | list[float], batch: int, budget: int, every: int, window: int,
                  eval_size: int, log: logging.Logger | None = None) -> list[dict]:
    """One cell of the sparsity sweep on ``task`` (``copy`` with ``vocab`` content tokens,
    ``recall`` with ``recall_vocab`` keys and values): one row per run, with its held-out accuracy
    curve (``accuracy_curve``: the fixed-budget comparisons read it)."""
    if task not in SWEEP_TASKS:
        raise ValueError(f"unknown sweep task {task!r}; use one of {', '.join(SWEEP_TASKS)}")
    level = wildcard("level", level, 0 if pattern == "dense" else 1)
    vocab = recall_vocab if task == "recall" else vocab
    dev = configure_torch(threads, device)
    masks = sweep_masks(pattern, configuration, level, n=n, depth=depth, heads=heads, seed=seed)
    keys = {"task": task, "pattern": pattern, "configuration": configuration, "level": level}
    runs, proto = _cell("sparsity", keys, seed=seed, seeds=seeds, lr=lr, budget=budget,
                        every=every, window=window, min_gain=min_gain, lr_decay=lr_decay,
                        log=log, label=f"{task}: {pattern} {configuration} w={level}",
                        curve=True, task=task, n=n, vocab=vocab, mixers=["attention"] * depth,
                        masks=masks, d_model=d_model, heads=heads, batch=batch,
                        eval_size=eval_size, device=dev)
    rho = density(masks)
    cell = {**keys, "depth": depth, "n": n, "vocab": vocab, "density": rho, "sparsity": 1 - rho,
            "chance": majority_accuracy(task, n, vocab), **run_info(dev)}
    return cell_rows(runs, proto, **cell)


def star_rows(*, d_model: int | str, n: int | str, seed: int, threads: int, device: str,
              seeds: int, min_gain: float, lr_decay: float, vocab: int, depth: int, heads: int,
              lr: float | list[float], batch: int, budget: int, every: int, window: int,
              eval_size: int, log: logging.Logger | None = None) -> list[dict]:
    """One (d_model, n) cell of STAR on the copying task: one row per run, with the load
    ``n log2(vocab) / d_model``."""
    d_model, n = wildcard("d_model", d_model, 1), wildcard("n", n, 2)
    dev = configure_torch(threads, device)
    cycle = pattern_masks("star", n)
    runs, proto = _cell("star", {"d_model": d_model, "n": n}, seed=seed, seeds=seeds, lr=lr,
                        budget=budget, every=every, window=window, min_gain=min_gain,
                        lr_decay=lr_decay, log=log, label=f"star d={d_model} n={n}",
                        task="copy", n=n, vocab=vocab, mixers=["attention"] * depth,
                        masks=cycle * depth, d_model=d_model, heads=heads, batch=batch,
                        eval_size=eval_size, device=dev)
    cell = {"pattern": "star", "d_model": d_model, "n": n, "vocab": vocab, "depth": depth,
            "load": n * math.log2(vocab) / d_model,
            "chance": majority_accuracy("copy", n, vocab), **run_info(dev)}
    return cell_rows(runs, proto, **cell)


def hybrid_rows(*, task: str, alternative: str, kernel: int | str, k: int | str, seed: int,
                threads: int, device: str, seeds: int, min_gain: float, lr_decay: float, n: int,
                count_n: int, vocab: int, recall_vocab: int, depth: int, d_model: int, heads: int,
                lr: float | str | list[float], batch: int, budget: int, every: int, window: int,
                eval_size: int, log: logging.Logger | None = None) -> list[dict]:
    """``depth - k`` layers of ``alternative`` (kernel ``kernel`` for a convolution, 0 otherwise)
    below ``k`` attention layers on ``task`` at the learning rates ``lr`` (the workflow's job: one,
    its wildcard): one row per run, with the task's majority-class accuracy. Recall has length
    ``n`` and ``recall_vocab`` keys and values, counting length ``count_n`` and ``vocab``
    tokens."""
    k, kernel = wildcard("attention_layers", k, 0), wildcard("kernel", kernel, 0)
    if task not in ("recall", "count"):
        raise ValueError(f"unknown hybrid task {task!r}; use recall or count")
    if (alternative == "conv") != (kernel > 0):
        raise ValueError(f"kernel {kernel} with alternative {alternative!r}: a convolution has an "
                         "odd kernel >= 1, the other mixers kernel 0")
    n, vocab = (n, recall_vocab) if task == "recall" else (count_n, vocab)
    dev = configure_torch(threads, device)
    mixers = (["attention"] * depth if alternative == "attention"
              else hybrid_mixers(alternative, k, depth))
    keys = {"task": task, "alternative": alternative, "kernel": kernel, "k": k}
    runs, proto = _cell("hybrid", keys, seed=seed, seeds=seeds, lr=lr, budget=budget,
                        every=every, window=window, min_gain=min_gain, lr_decay=lr_decay,
                        log=log, label=f"{task}: " + "+".join(mixers), task=task, n=n,
                        vocab=vocab, mixers=mixers, d_model=d_model, heads=heads,
                        kernel=max(kernel, 1), batch=batch, eval_size=eval_size, device=dev)
    cell = {"task": task, "alternative": alternative, "kernel": kernel,
            "attention_layers": mixers.count("attention"), "depth": depth,
            "layers": "+".join(mixers), "n": n, "vocab": vocab,
            "majority": majority_accuracy(task, n, vocab), **run_info(dev)}
    return cell_rows(runs, proto, **cell)
