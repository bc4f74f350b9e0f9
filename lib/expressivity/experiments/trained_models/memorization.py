"""Memorization jobs (Kajitsuka & Sato 2024, Sec. 6, reconstructed; Theorem 1 against Theorem 2).

The dataset has segment pairs (``expressivity.segment_pairs``): Theorem-1-type pairs on which no
one-layer transformer with uniform attention or hardmax can exceed ``blind_ceiling`` < 1, whatever
its weights. Every arm is trained with the stage's protocol (seeds side by side, early stopping at
100 % training accuracy, a plateau rule, a budget), once per learning rate of the grid:

- ``memorization_rows``: one arm of the one-layer, one-head, head-size-1 tied model: ``softmax``
  (``w`` learned: the finding), ``fixed`` (``w`` fixed at a projection vector of the construction,
  ``expressivity.rank1.projection``, Reviewer 1's request), ``uniform`` (``lam = 0``: mean
  pooling), ``hardmax`` (trained with the straight-through estimator) and ``no_attention``
  (token-wise FFN); rows per run with the ceilings (``expressivity.accuracy_ceilings``) and the
  construction's parameter count, and the training curves;
  With ``causal`` the arm is the masked layer (query ``k`` attends to keys ``j <= k``, Kajitsuka &
  Sato's extension to masked attention [V2]) on prefix segment pairs
  (``segment_pairs.prefix_segment_pair_dataset``), and its ``blind_ceiling`` column holds the exact
  prefix blind ceiling (``accuracy_ceilings.prefix_blind_ceiling``) that caps every causal hardmax
  or uniform layer there;
- ``heads_rows``: ``h`` tied heads of size ``s`` (or ``d``) on a larger dataset of the same kind at
  the same FFN width, where one rank-1 head may not suffice for training.
"""

from __future__ import annotations

import logging

import numpy as np

from expressivity.accuracy_ceilings import (
    blind_ceiling,
    hardmax_ceiling,
    pair_conflicts,
    prefix_blind_ceiling,
    prefix_pair_conflicts,
    token_ceiling,
)
from expressivity.experiments.trained_models import ARMS
from expressivity.experiments.trained_models.runs import (
    STAGE,
    cell_rows,
    job_progress,
    learning_rates,
    protocol,
    replicas,
    run_seeds,
    wildcard,
)
from expressivity.parameter_count import construction_parameters
from expressivity.rank1.projection import draw_projection
from expressivity.rng import generator
from expressivity.segment_pairs import (
    SegmentPairDataset,
    prefix_segment_pair_dataset,
    segment_pair_dataset,
)
from expressivity.torch_runtime import configure_torch, run_info
from expressivity.training import memorize

#: Memorization means every token labelled correctly.
TARGET = 1.0


def pair_dataset(seed: int, *, name: str, vocab_size: int, d: int, n: int, N: int,
                 pairs: int, n_classes: int, causal: bool = False) -> SegmentPairDataset:
    """The segment-pair dataset of one experiment (``name``: its stream), from the root seed;
    ``causal``: prefix segment pairs (for the masked layer)."""
    draw = prefix_segment_pair_dataset if causal else segment_pair_dataset
    return draw(generator(seed, f"{STAGE}.dataset", name=name, N=N, pairs=pairs),
                vocab_size=vocab_size, d=d, n=n, N=N, pairs=pairs, n_classes=n_classes)


def _train(sp: SegmentPairDataset, *, width: int, seeds: tuple[int, ...], lrs: list[float],
           proto, log: logging.Logger | None, label: str, **model) -> tuple:
    """Every (learning rate, seed) of the grid, all side by side (one replica each): (runs,
    curves, model sizes)."""
    grid = replicas(lrs, len(seeds))
    res = memorize(sp.dataset, width=width, seeds=[seeds[k] for _, k in grid], protocol=proto,
                   lr=[lr for lr, _ in grid],
                   progress=job_progress(log, label, proto.budget + 1), **model)
    runs = [{"lr": lr, "seed_index": k, **run}
            for (lr, k), run in zip(grid, res["runs"], strict=True)]
    curves = []
    for point in res["curve"]:
        lr, k = grid[point.pop("replica")]
        point.pop("seed")
        curves.append({"lr": lr, "seed_index": k, **point})
    sizes = {"ffn_parameters": res["ffn_parameters"],
             "attention_parameters": res["attention_parameters"]}
    return runs, curves, sizes


def memorization_rows(*, arm: str, seed: int, threads: int, device: str, seeds: int,
                      min_gain: float, lr_decay: float, vocab_size: int, d: int, n: int,
                      N: int, pairs: int, n_classes: int, width: int,
                      lr: float | list[float], budget: int, window: int, every: int,
                      causal: bool = False,
                      log: logging.Logger | None = None) -> tuple[list[dict], list[dict]]:
    """One arm of the memorization experiment: ``(curve rows, run rows)``; ``causal``: the masked
    layer on prefix segment pairs against the prefix blind ceiling (module docstring)."""
    if arm not in ARMS:
        raise ValueError(f"unknown arm {arm!r}; use one of {', '.join(ARMS)}")
    if not isinstance(causal, bool):
        raise ValueError(f"causal must be True or False, got {causal!r}")
    sigma, heads, fixed = ARMS[arm]
    dev = configure_torch(threads, device)
    sp = pair_dataset(seed, name="masked" if causal else "memorization", vocab_size=vocab_size,
                      d=d, n=n, N=N, pairs=pairs, n_classes=n_classes, causal=causal)
    ds = sp.dataset
    w_fixed = None
    if fixed:
        v, _, _ = draw_projection(generator(seed, f"{STAGE}.projection"), ds.vocab)
        w_fixed = v.reshape(1, ds.d, 1)
    proto = protocol(target=TARGET, budget=budget, every=every, window=window, min_gain=min_gain,
                     lr_decay=lr_decay)
    runs, curves, sizes = _train(
        sp, width=width, seeds=run_seeds(seed, "masked" if causal else "memorize", seeds, arm=arm),
        lrs=learning_rates(lr), proto=proto, log=log, label=arm,
        heads=heads, head_size=1, w_fixed=w_fixed, sigma=sigma, causal=causal, device=dev)
    for run in runs:
        w, lam = run.pop("w"), run.pop("lam")
        run["temperature"] = float(lam[0]) if lam is not None and sigma != "uniform" else 0.0
        # the best any token-wise map reaches after a tied rank-1 hardmax layer with this w
        run["hardmax_ceiling_w"] = (hardmax_ceiling(ds, w[0, :, 0], causal) if w is not None
                                    else float("nan"))
    conflicts, ceiling = ((prefix_pair_conflicts, prefix_blind_ceiling) if causal
                          else (pair_conflicts, blind_ceiling))
    cell = {
        "arm": arm, "sigma": sigma if heads else "none", "causal": causal, "N": ds.N, "n": ds.n,
        "d": ds.d, "vocab_size": ds.vocab_size, "pairs": len(sp.pairs), "n_classes": n_classes,
        "width": width, "conflicts": conflicts(ds, sp.pairs),
        "blind_ceiling": ceiling(ds, sp.pairs), "token_ceiling": token_ceiling(ds),
        **sizes, "construction_parameters": construction_parameters(ds.N, ds.n, ds.d)["total"],
        **run_info(dev),
    }
    curve = [{"arm": arm, **point} for point in curves]
    return curve, cell_rows(runs, proto, **cell)


def heads_rows(*, heads: int | str, size: int | str, seed: int, threads: int, device: str,
               seeds: int, min_gain: float, lr_decay: float, vocab_size: int, d: int, n: int,
               N: int, pairs: int, n_classes: int, width: int,
               lr: float | list[float], budget: int, window: int, every: int,
               log: logging.Logger | None = None) -> list[dict]:
    """``heads`` tied softmax heads of size ``size`` (``"d"``: full rank) on the heads/rank
    dataset (``N`` sequences, ``pairs`` segment pairs) at FFN width ``width``: one row per run."""
    label, heads = str(size), wildcard("heads", heads, 1)
    head_size = d if label == "d" else wildcard("size", size, 1)
    dev = configure_torch(threads, device)
    sp = pair_dataset(seed, name="heads_rank", vocab_size=vocab_size, d=d, n=n, N=N, pairs=pairs,
                      n_classes=n_classes)
    proto = protocol(target=TARGET, budget=budget, every=every, window=window, min_gain=min_gain,
                     lr_decay=lr_decay)
    runs, _, sizes = _train(
        sp, width=width, seeds=run_seeds(seed, "heads", seeds, heads=heads, size=label),
        lrs=learning_rates(lr), proto=proto, log=log,
        label=f"h={heads} s={head_size}", heads=heads, head_size=head_size, device=dev)
    for run in runs:
        run.pop("w")
        run["temperature_max"] = float(np.max(run.pop("lam")))
    cell = {"heads": heads, "head_size": head_size, "head_size_label": label, "N": sp.dataset.N,
            "n": sp.dataset.n, "d": sp.dataset.d, "pairs": len(sp.pairs), "width": width,
            "blind_ceiling": blind_ceiling(sp.dataset, sp.pairs), **sizes, **run_info(dev)}
    return cell_rows(runs, proto, **cell)
