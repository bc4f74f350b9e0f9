"""Kajitsuka & Sato 2024's memorization at CoNLL shape: capacity of the rank-1 model (issue 27).

One job is one (arm, N, a) on one CoNLL-shaped dataset (``expressivity.conll_like``: Zipf(1.1)
vocabulary of ``V`` types, sentences of ``n`` distinct tokens, 9 tags, a fraction ``a`` of
ambiguous types whose tag hashes (type, token set)); it trains the arm at every FFN width ``q`` of
its grid (``widths`` for the rank-1 arms ``sgd`` and ``adam``, ``control_widths`` for the others)
and every learning rate, the seeds and learning rates side by side, and the widths too with
``widths_side_by_side`` (narrower widths zero-padded: ``transformer_models.TokenClassifier``), in
minibatches (``expressivity.minibatch_memorization``; one order of the sentences per training,
shared by its replicas) under the stage's protocol. The target is
``TARGET_SHARE`` = 99.5 % of the dataset's set-consistent ceiling (``accuracy_ceilings.set_ceiling``:
the best any function of (token, token set) reaches; a convention for "near-perfect training
accuracy", not a number from the paper). Arms (``CAPACITY_ARMS``: normaliser, heads, head size,
optimiser):

- ``sgd``: the paper's model, one tied rank-1 softmax head with a learned temperature, SGD with
  momentum (the paper's optimiser per secondary sources);
- ``adam``: the same model with Adam;
- ``uniform``: ``lam = 0`` (mean pooling), ``hardmax``: trained straight-through,
  ``token_only``: no attention (a token-wise FFN; bounded by ``token_ceiling``);
- ``full_rank``: one tied head of size ``d`` (``W_Q W_K^T = w w^T`` of rank ``d``), the upper
  control.

With ``pairs = P > 0`` the last ``2 P`` sentences of every dataset are segment pairs
(``conll_like``'s module docstring), and the dataset's exact ``blind_ceiling`` (``accuracy_ceilings``:
no one-layer transformer with uniform or hardmax attention exceeds it) is a column, against which
``claims.trained_models.capacity`` credits softmax; with ``pairs = 0`` the column is NaN (uniform
attention can memorize generic sentences, nothing caps it).

Rows: one per (q, lr, seed) run with the cell's summary (existence, reliability, steps to target),
the dataset's ceilings (token-only, set-consistent, blind), its segment pairs and their conflicts, the learned
temperature and the learned separation (``expressivity.learned_separation``: the smallest gap
between a token's context ids in different token sets, for the rank-1 arms).
"""

from __future__ import annotations

import logging
import math

import numpy as np

from expressivity.accuracy_ceilings import (
    blind_ceiling,
    pair_conflicts,
    set_ceiling,
    token_ceiling,
)
from expressivity.conll_like import conll_like_dataset, segment_pair_rows
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
from expressivity.rng import generator

#: The target: this share of the set-consistent ceiling (a convention, see the module docstring).
TARGET_SHARE = 0.995
#: Sequences per forward pass when a run's whole training set is evaluated, over the widths and
#: learning rates side by side (``eval_chunk``; a paper-size dataset's pass stays within memory).
EVAL_SEQUENCES = 1024
#: (normaliser, heads, head size (``"d"``: full rank), optimiser) of each arm.
CAPACITY_ARMS = {"sgd": ("softmax", 1, 1, "sgd"), "adam": ("softmax", 1, 1, "adam"),
                 "uniform": ("uniform", 1, 1, "sgd"), "hardmax": ("hardmax", 1, 1, "sgd"),
                 "token_only": ("softmax", 0, 1, "sgd"), "full_rank": ("softmax", 1, "d", "sgd")}

#: The arms trained at every width of ``widths`` (the controls at ``control_widths``).
RANK1_ARMS = ("sgd", "adam")


def eval_chunk(cells: int) -> int:
    """Sequences per evaluation pass of each replica when ``cells`` (width, learning rate) pairs
    train side by side: ``EVAL_SEQUENCES`` shared by them, so the pass's memory does not grow with
    the grid."""
    return max(1, EVAL_SEQUENCES // cells)


def _a_value(a) -> float:
    """``a`` from its wildcard (``"0.05"``) or a number, in [0, 1]."""
    try:
        value = float(a)
    except (TypeError, ValueError):
        raise ValueError(f"a must be a number in [0, 1], got {a!r}") from None
    if not 0 <= value <= 1:
        raise ValueError(f"a must be in [0, 1], got {a!r}")
    return value


def capacity_dataset(seed: int, *, N: int, a: float, V: int, d: int, n: int, p_outside: float,
                     zipf: float, pairs: int = 0):
    """The dataset of one (N, a): its own stream of the root seed (every arm trains on it), the
    last ``2 pairs`` sentences segment pairs."""
    rng = generator(seed, f"{STAGE}.capacity_dataset", N=N, a=a)
    return conll_like_dataset(rng, V=V, d=d, n=n, N=N, a=a, p_outside=p_outside, zipf=zipf,
                              pairs=pairs)


def pair_columns(ds, pairs: int) -> dict:
    """``pairs``, their ``conflicts`` (shared tokens tagged differently within a pair, checked
    exactly) and the ``blind_ceiling`` ``1 - conflicts / (n N)`` (NaN without pairs)."""
    if not pairs:
        return {"pairs": 0, "conflicts": 0, "blind_ceiling": math.nan}
    rows = segment_pair_rows(ds.N, pairs)
    return {"pairs": pairs, "conflicts": pair_conflicts(ds, rows),
            "blind_ceiling": blind_ceiling(ds, rows)}


def capacity_rows(*, arm: str, N: int | str, a: float | str, seed: int, threads: int,
                  device: str, seeds: int, min_gain: float, lr_decay: float, V: int, d: int,
                  n: int, p_outside: float, zipf: float, pairs: int, widths: list[int],
                  control_widths: list[int], widths_side_by_side: bool, batch: int,
                  momentum: float, lr: float | list[float], adam_lr: float | list[float],
                  budget: int, window: int, every: int,
                  log: logging.Logger | None = None) -> list[dict]:
    """One (arm, N, a): every width of ``widths`` and every learning rate, one row per run; the
    widths side by side in one training (``widths_side_by_side``: each replica pays the widest's
    step, a gain where a step costs its overhead) or one after another."""
    # torch and arb here, in the job: the workflow imports this module's cost model at every start
    from expressivity.torch_runtime import configure_torch, run_info

    if arm not in CAPACITY_ARMS:
        raise ValueError(f"unknown arm {arm!r}; use one of {', '.join(CAPACITY_ARMS)}")
    sigma, heads, size, optimiser = CAPACITY_ARMS[arm]
    N, a = wildcard("N", N, 1), _a_value(a)
    head_size = d if size == "d" else size
    widths = widths if arm in RANK1_ARMS else control_widths
    dev = configure_torch(threads, device)
    ds = capacity_dataset(seed, N=N, a=a, V=V, d=d, n=n, p_outside=p_outside, zipf=zipf,
                          pairs=pairs)
    ceiling = set_ceiling(ds)
    proto = protocol(target=TARGET_SHARE * ceiling, budget=budget, every=every, window=window,
                     min_gain=min_gain, lr_decay=lr_decay)
    lrs = learning_rates(adam_lr if optimiser == "adam" else lr)
    progress = job_progress(log, f"{arm} N={N} a={a:g}",
                            (1 if widths_side_by_side else len(widths)) * (budget + 1))
    data = {"arm": arm, "sigma": sigma if heads else "none", "optimiser": optimiser,
            "head_size": head_size if heads else 0, "N": N, "a": a, "n": n, "d": d, "V": V,
            "batch": batch, "set_ceiling": ceiling, "token_ceiling": token_ceiling(ds),
            "target_share": TARGET_SHARE, **pair_columns(ds, pairs), **run_info(dev)}
    groups = [list(widths)] if widths_side_by_side else [[q] for q in widths]
    rows = []
    for i, group in enumerate(groups):
        rows += _group_rows(ds, group, data, proto=proto, lrs=lrs, seed=seed, seeds=seeds,
                            arm=arm, N=N, a=a, batch=batch, optimiser=optimiser,
                            momentum=momentum, heads=heads, head_size=head_size, sigma=sigma,
                            device=dev, progress=progress, done_before=i * (budget + 1))
    return rows


def _group_rows(ds, group: list[int], data: dict, *, proto, lrs: list[float], seed: int,
                seeds: int, arm: str, N: int, a: float, done_before: float,
                **train) -> list[dict]:
    """The cells of the widths ``group``, every (width, rate, seed) a replica of one training
    (``memorize_minibatch``): seed k's initialisation drawn at its own width from the stream it has
    when its width trains alone; one order of the sentences for the group, that of its narrowest
    width."""
    from expressivity.minibatch_memorization import memorize_minibatch
    from expressivity.transformer_models import ffn_parameters

    torch_seeds = {q: run_seeds(seed, "capacity", seeds, arm=arm, N=N, a=a, q=q) for q in group}
    grid = [(q, rate, k) for q in group for rate, k in replicas(lrs, seeds)]
    res = memorize_minibatch(
        ds, width=[q for q, _, _ in grid], seeds=[torch_seeds[q][k] for q, _, k in grid],
        protocol=proto, lr=[rate for _, rate, _ in grid],
        order_rng=generator(seed, f"{STAGE}.capacity_order", N=N, a=a, q=min(group)),
        eval_sequences=eval_chunk(len(lrs) * len(group)), done_before=done_before, **train)
    sigma, head_size, classes = train["sigma"], train["head_size"], int(ds.labels.max()) + 1
    runs = [{"lr": rate, "seed_index": k, "q": q, "ffn_parameters": ffn_parameters(ds.d, q, classes),
             **_attention_columns(ds, run.pop("w"), run.pop("lam"), sigma, head_size), **run}
            for (q, rate, k), run in zip(grid, res["runs"], strict=True)]
    return [row for q in group
            for row in cell_rows([r for r in runs if r["q"] == q], proto, **data)]


def _attention_columns(ds, w, lam, sigma: str, head_size: int) -> dict:
    """The learned temperature and, for a rank-1 head, the learned separation of its contexts."""
    from expressivity.learned_separation import learned_separation  # arb: in the job only

    if w is None:
        return {"temperature": 0.0, "separation": math.nan, "separation_log10": math.nan,
                "separation_collapsed": False}
    temperature = 0.0 if sigma == "uniform" else float(lam[0])
    diverged = not (np.isfinite(w).all() and math.isfinite(temperature))
    if head_size != 1 or diverged:  # full rank, or a diverged run (weights or temperature)
        return {"temperature": temperature, "separation": math.nan, "separation_log10": math.nan,
                "separation_collapsed": False}
    sep = learned_separation(ds, np.asarray(w[0, :, 0], dtype=float), temperature, sigma)
    return {"temperature": temperature, "separation": sep["separation"],
            "separation_log10": sep["separation_log10"], "separation_collapsed": sep["collapsed"]}
