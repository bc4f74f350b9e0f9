"""Sequence-encoder jobs: Yun et al. 2020b's copying task with sparse patterns (``papers`` builds
the papers' other experiments on ``_cell``). Each job is one cell: its seeds (one data stream and
one initialisation each) at every learning rate of the grid, all side by side, trained under the
stage's protocol with early stopping at ``tasks.LEARNED_ACCURACY`` held-out token accuracy.

- ``copy_rows``: an encoder of ``depth`` attention layers cycling through ``pattern``'s masks
  (``expressivity.sparse_patterns``), with the accuracy its masks allow (``tasks.copy_ceiling``).
"""

from __future__ import annotations

import logging

from expressivity.arguments import integer
from expressivity.assumption1 import assumption1, heard_from
from expressivity.experiments.trained_models.runs import (
    STAGE,
    cell_rows,
    copy_masks,
    job_progress,
    learning_rates,
    protocol,
    replicas,
    wildcard,
)
from expressivity.rng import generator
from expressivity.tasks import LEARNED_ACCURACY, copy_ceiling, majority_accuracy
from expressivity.torch_runtime import configure_torch, run_info
from expressivity.training import train_encoders
from expressivity.training_protocol import encode_curve


def _cell(job: str, keys: dict, *, seed: int, seeds: int, lr, budget: int, every: int,
          window: int, min_gain: float, lr_decay: float, log: logging.Logger | None,
          label: str, curve: bool = False, **train) -> tuple[list[dict], object]:
    """Every (learning rate, seed) run of one cell, all side by side (one replica each); seed
    ``k`` has its own stream ``generator(seed, "trained_models.<job>", **keys, seed=k)`` (held-out
    set, initialisation, then batches), the same at every learning rate. ``curve``: each run keeps
    its held-out accuracy at every evaluation until its stop as ``accuracy_curve``
    (``training_protocol.encode_curve``)."""
    proto = protocol(target=LEARNED_ACCURACY, budget=budget, every=every, window=window,
                     min_gain=min_gain, lr_decay=lr_decay)
    lrs = learning_rates(lr)
    integer("seeds", seeds, 1)
    grid = replicas(lrs, seeds)
    results = train_encoders([generator(seed, f"{STAGE}.{job}", **keys, seed=k) for _, k in grid],
                             protocol=proto, lr=[rate for rate, _ in grid],
                             progress=job_progress(log, label, budget), **train)
    runs = []
    for (rate, k), res in zip(grid, results, strict=True):
        points = res.pop("curve")
        if curve:
            res["accuracy_curve"] = encode_curve([p["accuracy"] for p in points])
        runs.append({"lr": rate, "seed_index": k, **res})
    return runs, proto


def copy_rows(*, pattern: str, depth: int | str, seed: int, threads: int, device: str,
              seeds: int, min_gain: float, lr_decay: float, n: int, vocab: int,
              d_model: int, heads: int, lr: float | list[float], batch: int, budget: int,
              every: int, window: int, eval_size: int,
              log: logging.Logger | None = None) -> list[dict]:
    """One (pattern, depth) cell of the copying task: one row per run, with whether the cycle of
    masks trained satisfies Yun et al.'s Assumption 1 (``assumption1``) and after how many layers
    every token has heard from every token (``reach_layers``, empty if never), and the expected
    accuracy of the best model with the ``depth`` masks trained (``reach_ceiling``: below 1 where
    some source cannot reach the position that copies it)."""
    depth = wildcard("depth", depth, 1)
    dev = configure_torch(threads, device)
    cycle, masks = copy_masks(pattern, depth, n=n, seed=seed)
    runs, proto = _cell("copy", {"pattern": pattern, "depth": depth}, seed=seed, seeds=seeds,
                        lr=lr, budget=budget, every=every, window=window, min_gain=min_gain,
                        lr_decay=lr_decay, log=log, label=f"{pattern} L={depth}",
                        task="copy", n=n, vocab=vocab, mixers=["attention"] * depth,
                        masks=masks, d_model=d_model, heads=heads, batch=batch,
                        eval_size=eval_size, device=dev)
    covered = assumption1(cycle)
    cell = {"pattern": pattern, "depth": depth, "n": n, "vocab": vocab,
            "cycle_length": len(cycle), "connections_max": max(int(m.sum()) for m in cycle),
            "assumption1": covered["satisfied"], "reach_layers": covered["s"],
            "reach_ceiling": copy_ceiling(heard_from(masks), vocab),
            "held_out_tokens": eval_size * (n // 2),
            "chance": majority_accuracy("copy", n, vocab), **run_info(dev)}
    return cell_rows(runs, proto, **cell)
