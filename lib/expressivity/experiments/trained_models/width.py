"""The width job: the smallest FFN width at which training fits 100 % at one ``N`` (Kajitsuka &
Sato 2024, Cor. 1: the construction needs ``n N`` hidden units, ``expressivity.parameter_count``).

The dataset is token-wise separated with random token sets and random labels
(``expressivity.datasets.token_separated_dataset``), one per ``N``; the model is the one-layer,
one-head, head-size-1 tied softmax model. A width *cell* (several seeds, every learning rate) is
trained under the stage's protocol. Cor. 1 is an existence statement (some weights of that width
memorize), so ``minimal_width`` bisects the increasing grid ``widths`` on the cell's *existence*
(some seed reaches 100 %; wider FFNs fit at least as easily, which bisection assumes and the table
lets a reader check); each cell also reports its reliability over seeds. Every cell tried is a row
group of the table.
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
    replicas,
    run_seeds,
    wildcard,
)
from expressivity.parameter_count import construction_parameters
from expressivity.rng import generator
from expressivity.torch_runtime import configure_torch, run_info
from expressivity.training import memorize
from expressivity.training_protocol import EXISTS, NONE_EXISTS, existence


def minimal_width(widths: list[int], existence_of) -> tuple[int | None, bool, list[int]]:
    """Bisect the increasing grid ``widths`` for the smallest width at which training finds weights
    that fit (``existence_of(width)`` is ``EXISTS``: some seed reaches 100 %); returns ``(width or
    None, decided, widths tried in order)``. The answer is decided when the next smaller grid width
    was tried and no run reached the target there (every seed plateaued after its decay), or when
    it is the grid's first width; ``None`` means no grid width reached it (decided when the widest
    did not)."""
    if not widths or any(b <= a for a, b in zip(widths, widths[1:], strict=False)):
        raise ValueError(f"widths must be a non-empty increasing list, got {widths}")
    found: dict[int, str] = {}
    lo, hi = -1, len(widths)  # widths[lo] does not reach the target, widths[hi] does
    while hi - lo > 1:
        mid = (lo + hi) // 2
        found[widths[mid]] = existence_of(widths[mid])
        if found[widths[mid]] == EXISTS:
            hi = mid
        else:
            lo = mid
    if hi == len(widths):
        return None, found[widths[-1]] == NONE_EXISTS, list(found)
    decided = hi == 0 or found.get(widths[hi - 1]) == NONE_EXISTS
    return widths[hi], decided, list(found)


def width_rows(*, N: int | str, seed: int, threads: int, device: str,
               seeds: int, min_gain: float, lr_decay: float, vocab_size: int, d: int, n: int,
               n_classes: int, lr: float | list[float], widths: list[int], budget: int,
               window: int, every: int, log: logging.Logger | None = None) -> list[dict]:
    """The smallest width training fits at ``N``: one row per run of every width cell tried, with
    the answer and the construction's width ``n N`` and parameter count on every row."""
    N = wildcard("N", N, 1)
    dev = configure_torch(threads, device)
    ds = token_separated_dataset(generator(seed, f"{STAGE}.dataset", name="width", N=N),
                                 vocab_size, d, n, N, n_classes)
    proto = protocol(target=TARGET, budget=budget, every=every, window=window, min_gain=min_gain,
                     lr_decay=lr_decay)
    lrs = learning_rates(lr)
    seed_values = run_seeds(seed, "width", seeds, N=N)
    progress = job_progress(log, f"N={N}", (budget + 1) * len(widths).bit_length())
    cells: dict[int, list[dict]] = {}
    grid = replicas(lrs, len(seed_values))

    def existence_of(q: int) -> str:
        res = memorize(ds, width=q, seeds=[seed_values[k] for _, k in grid], protocol=proto,
                       lr=[lr for lr, _ in grid], progress=progress,
                       done_before=len(cells) * (budget + 1), device=dev)
        cells[q] = [{"lr": lr, "seed_index": k, "ffn_parameters": res["ffn_parameters"],
                     **{key: v for key, v in run.items() if key not in ("w", "lam")}}
                    for (lr, k), run in zip(grid, res["runs"], strict=True)]
        return existence(run["outcome"] for run in cells[q])

    best, decided, tried = minimal_width(list(widths), existence_of)
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
