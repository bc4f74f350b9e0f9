"""Sequence tasks for the trained encoders: the copy, counting and associative-recall tasks.

Each task draws a batch from a numpy generator and returns ``tokens: (B, n)`` (integers),
``targets: (B, n)`` (the class of every position) and ``scored: (B, n)`` (bool, the positions the
loss and the accuracy count).

- ``copy_task``: Yun et al. 2020b, Sec. 5 (copying task, [S] quoted: "Except for the STAR and
  RANDOM patterns, we can see that the networks learn to copy the sequences with four sparse
  attention layers"). Our small version ([O]): the first ``n/2`` positions hold random tokens, the
  last ``n/2`` a blank; position ``n/2 + i`` must output token ``i``.
- ``count_task``: a synthetic task that needs context, for Yun et al. 2020a, Sec. 5 (attention
  versus bilinear projection versus depth-wise separable convolution, and hybrids; [M], ours at toy
  scale): every token's label is the number of times it occurs in its sequence.
- ``recall_task``: multi-query associative recall as a masked-token task ([O]), for the hybrids
  of Yun et al. 2020a, Sec. 5: key-value pairs, then every key asked once; where a query's answer
  sits depends on the content, not on the position, and every position asks its own, so an
  input-independent token mixer (a bilinear projection, a convolution) has no route to it, only
  a pool of all pairs whose width must grow with their number.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from expressivity.arguments import integer

#: A task is learned at this held-out token accuracy: at most 1 % token errors (a convention; the
#: trained encoders stop when they reach it, and the copying claims judge by it).
LEARNED_ACCURACY = 0.99


def _sizes(batch: int, n: int, vocab: int) -> tuple[int, int, int]:
    return integer("batch", batch, 1), integer("n", n, 1), integer("vocab", vocab, 1)


def copy_task(rng: np.random.Generator, batch: int, n: int, vocab: int):
    """Copy the first half into the second half (our small copying task, [O]).

    Tokens ``1..vocab`` are content, ``0`` is the blank. Returns ``tokens: (B, n)``, ``targets:
    (B, n)`` and ``scored: (B, n)`` bool: position ``n/2 + i`` must output token ``i`` (only the
    second half is scored). Needs even ``n``.
    """
    batch, n, vocab = _sizes(batch, n, vocab)
    if n % 2 or n < 2:
        raise ValueError(f"copying needs an even length n >= 2, got {n}")
    half = n // 2
    content = rng.integers(1, vocab + 1, size=(batch, half))
    tokens = np.concatenate([content, np.zeros((batch, half), dtype=content.dtype)], axis=1)
    targets = np.concatenate([content, content], axis=1)
    scored = np.zeros((batch, n), dtype=bool)
    scored[:, half:] = True
    return tokens, targets, scored


def count_task(rng: np.random.Generator, batch: int, n: int, vocab: int, cap: int = 6):
    """Label every token with the number of times it occurs in its sequence (capped at ``cap``).

    A permutation-equivariant task that needs the whole sequence ([O]). Tokens are ``0..vocab-1``;
    labels are ``1..cap`` (class ``cap`` means "``cap`` or more"); every position is scored.
    """
    batch, n, vocab = _sizes(batch, n, vocab)
    cap = integer("cap", cap, 1)
    tokens = rng.integers(0, vocab, size=(batch, n))
    counts = (tokens[:, :, None] == tokens[:, None, :]).sum(-1)
    return tokens, np.minimum(counts, cap), np.ones((batch, n), dtype=bool)


def recall_task(rng: np.random.Generator, batch: int, n: int, vocab: int):
    """Multi-query associative recall as a masked-token task ([O]).

    The first half holds ``m = n/2`` key-value pairs, one token each: pair ``(k, v)`` is token
    ``k vocab + v`` (keys ``0..vocab-1`` distinct within a sequence, values ``0..vocab-1`` drawn
    with replacement). The second half asks every key once, in a random order: query ``k`` is token
    ``vocab^2 + k`` and its target is the class ``v`` of its pair; only the second half is scored.
    Needs even ``n >= 2`` and ``vocab >= n/2``.

    Which position holds a query's pair depends on the content, and every position asks its own
    query: a token mixing with input-independent weights can only pool the pairs, and a pool must
    keep all ``m`` values (at least ``m log2(vocab)`` bits) at every query position, while
    attention routes each query to its pair with a width of order ``log2(vocab)`` (the separation
    behind multi-query recall, Arora et al. 2023, "Zoology" [S]; the task and sizes are ours)."""
    batch, n, vocab = _sizes(batch, n, vocab)
    if n % 2 or n < 2:
        raise ValueError(f"recall needs an even length n >= 2, got {n}")
    pairs = n // 2
    if vocab < pairs:
        raise ValueError(f"recall needs vocab >= n/2 = {pairs} distinct keys, got {vocab}")
    keys = np.argsort(rng.random((batch, vocab)), axis=1)[:, :pairs]
    values = rng.integers(0, vocab, size=(batch, pairs))
    asked = np.argsort(rng.random((batch, pairs)), axis=1)
    rows = np.arange(batch)[:, None]
    tokens = np.concatenate([keys * vocab + values, vocab * vocab + keys[rows, asked]], axis=1)
    targets = np.concatenate([np.zeros_like(values), values[rows, asked]], axis=1)
    scored = np.zeros((batch, n), dtype=bool)
    scored[:, pairs:] = True
    return tokens, targets, scored


TASKS: dict[str, Callable] = {"copy": copy_task, "count": count_task, "recall": recall_task}


def task_classes(task: str, vocab: int, cap: int = 6) -> tuple[int, int]:
    """(input vocabulary size, number of output classes) of a task."""
    vocab, cap = integer("vocab", vocab, 1), integer("cap", cap, 1)
    if task == "copy":
        return vocab + 1, vocab + 1
    if task == "count":
        return vocab, cap + 1
    if task == "recall":
        return vocab * vocab + vocab, vocab
    raise ValueError(f"unknown task {task!r}; use one of {', '.join(TASKS)}")


def majority_accuracy(task: str, n: int, vocab: int, cap: int = 6) -> float:
    """The expected token accuracy of the best constant answer (the majority class), the baseline a
    model that ignores its input reaches: ``1 / vocab`` for copying and recall (uniform content
    tokens and values); for
    counting, the largest probability of a label, where a token's count is ``1 + Binomial(n - 1,
    1 / vocab)`` capped at ``cap``."""
    if task not in TASKS:
        raise ValueError(f"unknown task {task!r}; use one of {', '.join(TASKS)}")
    n, vocab, cap = integer("n", n, 1), integer("vocab", vocab, 1), integer("cap", cap, 1)
    if task in ("copy", "recall"):
        return 1.0 / vocab
    p = 1.0 / vocab
    pmf = [math.comb(n - 1, j) * p**j * (1 - p) ** (n - 1 - j) for j in range(cap - 1)]
    return float(max([*pmf, 1.0 - sum(pmf)]))  # counts 1..cap-1, and cap or more


def copy_ceiling(heard: np.ndarray, vocab: int) -> float:
    """The expected token accuracy of the best model for ``copy_task`` whose position ``k`` sees
    only the tokens ``j`` with ``heard[k, j]`` (``assumption1.heard_from``: what a stack of masked
    attention layers routes), ``(r + (1 - r) / vocab)`` with ``r`` the share of the scored
    positions ``n/2 + i`` that hear their source ``i`` (ours [D]).

    A source that does not reach its position is a uniform content token independent of all that
    the position sees, so any answer there is right with probability ``1 / vocab``; a source that
    reaches it can be copied exactly. The held-out accuracy of a run exceeds this by no more than
    the sampling noise of its held-out set."""
    heard = np.asarray(heard)
    if heard.ndim != 2 or heard.shape[0] != heard.shape[1] or heard.dtype != bool:
        raise ValueError(f"heard must be a boolean (n, n) array, got {heard.dtype} "
                         f"{heard.shape}")
    n, vocab = heard.shape[0], integer("vocab", vocab, 1)
    if n % 2 or n < 2:
        raise ValueError(f"copying needs an even length n >= 2, got {n}")
    half = n // 2
    reached = float(heard[half + np.arange(half), np.arange(half)].mean())
    return reached + (1 - reached) / vocab
