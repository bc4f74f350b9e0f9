"""The width job: the smallest FFN width that training fits to 100 % at one ``N`` (Kajitsuka & Sato
2024, Cor. 1: the construction needs ``n N`` hidden units, ``expressivity.parameter_count``).

The dataset is token-wise separated with random token sets and random labels
(``expressivity.datasets.token_separated_dataset``), one per ``N``; the model is the one-layer,
one-head, head-size-1 tied softmax model. A width *cell* (several seeds, every learning rate) is
trained under the stage's protocol and classified by ``expressivity.training_protocol`` (reaches
100 %, plateaus below it, seed-dependent, not evaluated). ``minimal_width`` bisects the increasing
grid ``widths`` on "the cell reaches 100 %" (wider FFNs fit at least as easily, which bisection
assumes and the table lets a reader check): the answer is the smallest grid width whose cell
reaches the target, *decided* when the next smaller grid width was tried and did not reach it
(plateau or seed-dependent), or when it is the grid's first width. Every cell tried is a row group
of the table.
"""

from __future__ import annotations

import logging

from expressivity.datasets import token_separated_dataset
from expressivity.experiments.trained_models.memorization import TARGET
from expressivity.experiments.trained_models.runs import (
    STAGE,
    cell_rows,
    job_progress,
    learning_rates,
    protocol,
    run_seeds,
    wildcard,
)
from expressivity.parameter_count import construction_parameters
from expressivity.rng import generator
from expressivity.torch_runtime import configure_torch, run_info
from expressivity.training import memorize
from expressivity.training_protocol import MIXED, PLATEAUS, REACHES, cell_verdict


def minimal_width(widths: list[int], verdict_of) -> tuple[int | None, bool, list[int]]:
    """Bisect the increasing grid ``widths`` for the smallest width whose ``verdict_of(width)`` is
    ``REACHES``; returns ``(width or None, decided, widths tried in order)``. ``None`` means no grid
    width reached the target (decided when the widest plateaued or was seed-dependent)."""
    if not widths or any(b <= a for a, b in zip(widths, widths[1:], strict=False)):
        raise ValueError(f"widths must be a non-empty increasing list, got {widths}")
    verdicts: dict[int, str] = {}
    lo, hi = -1, len(widths)  # widths[lo] does not reach the target, widths[hi] does
    while hi - lo > 1:
        mid = (lo + hi) // 2
        verdicts[widths[mid]] = verdict_of(widths[mid])
        if verdicts[widths[mid]] == REACHES:
            hi = mid
        else:
            lo = mid
    failed = (MIXED, PLATEAUS)
    if hi == len(widths):
        return None, verdicts[widths[-1]] in failed, list(verdicts)
    decided = hi == 0 or verdicts.get(widths[hi - 1]) in failed
    return widths[hi], decided, list(verdicts)


def width_rows(*, N: int | str, seed: int, threads: int, device: str,
               seeds: int, min_gain: float, vocab_size: int, d: int, n: int,
               n_classes: int, lr: float | list[float], widths: list[int], budget: int,
               window: int, log: logging.Logger | None = None) -> list[dict]:
    """The smallest width training fits at ``N``: one row per run of every width cell tried, with
    the answer and the construction's width ``n N`` and parameter count on every row."""
    N = wildcard("N", N, 1)
    dev = configure_torch(threads, device)
    ds = token_separated_dataset(generator(seed, f"{STAGE}.dataset", name="width", N=N),
                                 vocab_size, d, n, N, n_classes)
    proto = protocol(target=TARGET, budget=budget, every=1, window=window, min_gain=min_gain)
    lrs = learning_rates(lr)
    seed_values = run_seeds(seed, "width", seeds, N=N)
    progress = job_progress(log, f"N={N}", len(lrs) * (budget + 1) * len(widths).bit_length())
    cells: dict[int, list[dict]] = {}

    def verdict_of(q: int) -> str:
        runs = []
        for lr in lrs:
            done = len(cells) * len(lrs) + len(runs) // len(seed_values)
            res = memorize(ds, width=q, seeds=seed_values, protocol=proto, lr=lr,
                           record_every=budget, progress=progress,
                           done_before=done * (budget + 1), device=dev)
            runs += [{"lr": lr, "seed_index": k, "ffn_parameters": res["ffn_parameters"],
                      **{key: v for key, v in run.items() if key not in ("w", "lam")}}
                     for k, run in enumerate(res["runs"])]
        cells[q] = runs
        by_lr: dict[float, list[str]] = {}
        for run in runs:
            by_lr.setdefault(run["lr"], []).append(run["outcome"])
        return cell_verdict(by_lr)

    best, decided, tried = minimal_width(list(widths), verdict_of)
    construction = construction_parameters(N, ds.n, ds.d)
    common = {"N": N, "n": ds.n, "d": ds.d, "minimal_width": best,
              "minimal_width_decided": decided, "max_width_tried": max(tried),
              "widest_in_grid": max(widths),
              "construction_ffn_width": construction["ffn_width"],
              "construction_ffn_parameters": construction["ffn"],
              "construction_parameters": construction["total"], **run_info(dev)}
    rows = []
    for q in sorted(tried):
        rows += cell_rows(cells[q], proto, **common, width=q)
    return rows
