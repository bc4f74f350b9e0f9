"""The predicted cost of each trained-models job: ``(seconds, peak bytes)`` on one CPU thread.

A training step costs a fixed overhead (Python and torch dispatch, Adam) plus a part proportional
to the arithmetic of the model; a training runs at most ``budget`` steps, and its replicas (side by
side) stop together when the last one reaches the target or a plateau. Every job trains its grid
of learning rates side by side (``R`` = seeds x rates replicas, one training per job, or per
width for the capacity experiment and the width search):

- memorization (full batch): ``MEM_STEP + MEM_FLOP * R * N n (q + h s n)`` seconds per epoch for
  ``R`` replicas, ``N n`` tokens, FFN width ``q``, ``h`` heads of size ``s``, plus a forward pass
  (a third of a step) every ``every`` epochs to evaluate;
- encoders (fresh batches): ``L (ENC_STEP + ENC_FLOP * 3 R B n (6 d^2 + 2 n d))`` seconds per step
  for ``L`` layers, ``R`` replicas, batch ``B``, length ``n``, width ``d`` (forward and backward:
  3 passes), plus one held-out evaluation every ``every`` steps.

When a run stops is not known before it runs: the prediction counts ``BUDGET_USED`` of the budget,
the share of it the trainings of each kind used on the default run (fitted to the CPU time of the
kind's jobs in ``benchmarks/records/``: single cells use 1 % to 100 %; a kind not yet measured
counts its whole budget). To refit a share after a recorded run: ``make plan ARGS=--measured``
prints each rule's measured and predicted seconds and jobs, and the share that fits is the old one
times (measured - jobs x ``START_SECONDS``) / (predicted - jobs x ``START_SECONDS``). At a
larger budget (``config/paper.yaml``) a cell that reaches its target stops after as many steps as
before, so the prediction is then on the high side; a grid of rates side by side (one rate in
the default) lasts as long as its slowest rate, which the share fitted on one rate does not see:
there the prediction is on the low side (the bound: the whole budget). The per-step constants were
fitted to the same records (``benchmarks/trained_models.py`` prints the current steps per second).

Peak memory is the torch process (``BASE_BYTES``) plus the activations kept for the backward pass
(or those of an evaluation's forward pass, where larger).

On a GPU the small models of these jobs are bound by kernel launches, not arithmetic: a step costs
a measured constant per encoder layer, per memorization epoch or per minibatch step, after the GPU
job's start (``rates``: the GPU's measured rates, ``workflow/device_rates.py``). Each cost function
returns a ``Cost``: ``(CPU seconds, peak bytes, GPU seconds, whole)``, the GPU seconds None without
``rates``, and ``whole`` the same two at the whole budget: the longest the job can run, which is
what a cluster's runtime must cover (a job that outlives its runtime is killed, and rerun with the
same runtime it would be killed again), whatever share of it the prediction counts.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

from expressivity.assumption1 import heard_from
from expressivity.experiments.trained_models import capacity
from expressivity.experiments.trained_models.runs import copy_masks
from expressivity.tasks import LEARNED_ACCURACY, copy_ceiling

#: Resident size of a Python process with torch imported (measured: about 360 MB).
BASE_BYTES = 450 * 2**20
#: CPU seconds to start a job (interpreter, torch import, dataset).
START_SECONDS = 3.5
#: Memorization: overhead per full-batch epoch (s) and per token x hidden unit x seed (s).
MEM_STEP, MEM_FLOP = 1.5e-3, 7.5e-9
#: Encoders: overhead per layer and step (s) and per multiply-add (s).
ENC_STEP, ENC_FLOP = 1.55e-3, 1.3e-10
#: Sequences per forward pass of an encoder's held-out evaluation (``training.EVAL_CHUNK``, which
#: imports torch; a test checks that the two agree).
EVAL_CHUNK = 64
#: The share of its budget a job of each kind used on the default run: fitted so that the kind's
#: predicted seconds sum to its measured CPU seconds (the recorded default run of 2026-11-27,
#: ``benchmarks/records/``, refitted from the per-rule lines of ``make plan ARGS=--measured`` as
#: the module docstring says). The copying task's sparsity sweep and STAR relay plan as "copy";
#: "capacity" is ``capacity_cost``'s; "hybrid" from the four default cells (recall with the
#: convolution, 2026-11-27e: all attention stops at under 3 % of the budget, the convolution alone
#: at up to 92 %): one share for cells that stop early and cells that run to a plateau, so at the
#: paper config's larger budget the alternatives alone are planned short and the others long. Kept
#: at 2026-11-27f (band convolution, counting at n = 8), where the default's hybrids took 0.69 of
#: the time planned at it: the cells that fix the paper plan are those that run to a plateau.
BUDGET_USED = {"memorization": 0.31, "heads": 0.14, "width": 0.34, "copy": 0.17, "hybrid": 0.43,
               "capacity": 0.71}
#: A copy-table cell whose masks cannot route every source to its copy (its reach ceiling is below
#: the target) cannot stop at the target: every run stops on a plateau, a window without a gain
#: after its last one, the decay and a second window. Its length in windows, fitted to the default
#: run's cells below full reach (2026-11-28: 5,150 to 6,100 steps at a window of 2,500).
PLATEAU_WINDOWS = 2.2


class Cost(NamedTuple):
    """A trained job's prediction: ``seconds`` on one CPU core and ``gpu`` seconds on the node's
    GPU (None without its rates) at the share of its budget the job is expected to use, its
    ``peak`` bytes, and ``whole``: (CPU, GPU) seconds of its whole budget."""

    seconds: float
    peak: int
    gpu: float | None
    whole: tuple[float, float | None]


def _grid(lr) -> int:
    return len(lr) if isinstance(lr, (list, tuple)) else 1


def _memorize(*, seeds: int, tokens: int, width: int, mixing: int, epochs: int,
              every: int) -> float:
    return epochs * (1 + 1 / (3 * every)) * (MEM_STEP + MEM_FLOP * seeds * tokens
                                             * (width + mixing))


def planned_seconds(kind: str, steps_seconds: float, rates: dict | None, steps: float,
                    step: str, used: float | None = None) -> tuple[float, float | None]:
    """``(CPU seconds, GPU seconds)`` of a job of ``kind`` whose every budgeted step together
    takes ``steps_seconds`` on a core, or ``steps`` launch-bound steps of kind ``step`` on the GPU:
    the share ``used`` of them (``BUDGET_USED[kind]`` when None), after the job's start."""
    used = BUDGET_USED[kind] if used is None else used
    gpu = None if rates is None else rates["gpu_job_start_s"] + used * steps * rates[step]
    return START_SECONDS + used * steps_seconds, gpu


def _cost(kind: str, steps_seconds: float, rates: dict | None, steps: float, step: str,
          peak: int, used: float | None = None, extra: float = 0.0) -> Cost:
    """``planned_seconds`` at the share ``used`` and at the whole budget, plus ``extra`` seconds
    on either device (work before the steps)."""
    (cpu, gpu), (whole_cpu, whole_gpu) = (planned_seconds(kind, steps_seconds, rates, steps,
                                                          step, share) for share in (used, 1.0))
    return Cost(cpu + extra, peak, None if gpu is None else gpu + extra,
                (whole_cpu + extra, None if whole_gpu is None else whole_gpu + extra))


def memorization_cost(*, seeds: int, vocab_size: int, d: int, n: int, n_classes: int, N: int,
                      width: int, lr, budget: int, window: int, min_gain: float, every: int,
                      rates: dict | None = None) -> Cost:
    """One memorization arm: every (learning rate, seed) side by side."""
    del vocab_size, n_classes, window, min_gain  # no noticeable change to the cost
    replicas = seeds * _grid(lr)
    return _cost("memorization", _memorize(
        seeds=replicas, tokens=N * n, width=width, mixing=n + d, epochs=budget + 1, every=every),
        rates, budget + 1, "memorization_step_s",
        BASE_BYTES + 16 * 4 * replicas * N * n * (width + d + n))


def heads_cost(*, heads: int, head_size: int, seeds: int, vocab_size: int, d: int, n: int,
               n_classes: int, N: int, width: int, lr, budget: int, window: int,
               min_gain: float, every: int,
               rates: dict | None = None) -> Cost:
    """One (heads, head size) cell of the ablation."""
    del vocab_size, n_classes, window, min_gain
    mixing = heads * (head_size * (n + 2 * d) + n)
    replicas = seeds * _grid(lr)
    return _cost("heads", _memorize(
        seeds=replicas, tokens=N * n, width=width, mixing=mixing, epochs=budget + 1, every=every),
        rates, budget + 1, "memorization_step_s",
        BASE_BYTES + 16 * 4 * replicas * N * n * (width + mixing))


def width_cost(*, N: int, seeds: int, vocab_size: int, d: int, n: int, n_classes: int,
               widths: Sequence[int], lr, budget: int, window: int, min_gain: float,
               every: int, rates: dict | None = None) -> Cost:
    """The bisection over ``widths``: at most ``bit_length(len(widths))`` cells, the widest first
    counted (an upper bound)."""
    del vocab_size, n_classes, window, min_gain
    cells = sorted(widths)[-len(widths).bit_length():]
    replicas = seeds * _grid(lr)
    return _cost("width", sum(
        _memorize(seeds=replicas, tokens=N * n, width=q, mixing=n + d, epochs=budget + 1,
                  every=every)
        for q in cells), rates, len(cells) * (budget + 1), "memorization_step_s",
        BASE_BYTES + 16 * 4 * replicas * N * n * (max(widths) + d + n))


def _encoder(kind: str, *, seeds: int, layers: int, n: int, d_model: int, lr, batch: int,
             budget: int, every: int, eval_size: int, rates: dict | None,
             used: float | None = None) -> Cost:
    replicas = seeds * _grid(lr)  # every learning rate's seeds side by side
    flops = n * (6 * d_model**2 + 2 * n * d_model)
    step = layers * (ENC_STEP + ENC_FLOP * 3 * replicas * batch * flops)
    evaluate = layers * (ENC_STEP + ENC_FLOP * replicas * eval_size * flops)
    evaluations = math.ceil(budget / every)
    # a step keeps every layer's activations for its backward; an evaluation's forward pass runs
    # EVAL_CHUNK sequences at a time and keeps none
    activations = 4 * 24 * replicas * n * (d_model + n)
    peak = BASE_BYTES + activations * max(layers * batch, min(eval_size, EVAL_CHUNK))
    # an evaluation is a forward pass: about a third of a step's launches on a GPU
    return _cost(kind, budget * step + evaluations * evaluate, rates,
                 layers * (budget + evaluations / 3), "encoder_layer_step_s", peak, used)


def copy_cost(*, depth: int, seeds: int, n: int, vocab: int, d_model: int, heads: int, lr,
              batch: int, budget: int, every: int, window: int, min_gain: float, eval_size: int,
              rates: dict | None = None) -> Cost:
    """One (pattern, depth) cell of the copying task."""
    del vocab, heads, window, min_gain
    return _encoder("copy", seeds=seeds, layers=depth, n=n, d_model=d_model, lr=lr, batch=batch,
                    budget=budget, every=every, eval_size=eval_size, rates=rates)


def copy_cell_cost(*, pattern: str, depth: int, seed: int, seeds: int, n: int, vocab: int,
                   d_model: int, heads: int, lr, batch: int, budget: int, every: int,
                   window: int, min_gain: float, eval_size: int,
                   rates: dict | None = None) -> Cost:
    """One (pattern, depth) cell of the copy table: ``copy_cost``, unless the cell's masks
    (``runs.copy_masks``) leave its reach ceiling (``tasks.copy_ceiling``) below the target; then
    every run stops on a plateau, ``PLATEAU_WINDOWS`` windows (at most the budget)."""
    del heads, min_gain
    _, masks = copy_masks(pattern, depth, n=n, seed=seed)
    reachable = copy_ceiling(heard_from(masks), vocab) >= LEARNED_ACCURACY
    used = None if reachable else min(1.0, PLATEAU_WINDOWS * window / budget)
    return _encoder("copy", seeds=seeds, layers=depth, n=n, d_model=d_model, lr=lr, batch=batch,
                    budget=budget, every=every, eval_size=eval_size, rates=rates, used=used)


def hybrid_cost(*, task: str, seeds: int, n: int, count_n: int, vocab: int, d_model: int,
                heads: int, lr, batch: int, budget: int, every: int, window: int,
                min_gain: float, eval_size: int, depth: int,
                rates: dict | None = None) -> Cost:
    """One hybrid of Yun et al. 2020a on ``task`` (length ``n`` for recall, ``count_n`` for
    counting; attention counted for every layer: an upper bound)."""
    del vocab, heads, window, min_gain
    return _encoder("hybrid", seeds=seeds, layers=depth, n=n if task == "recall" else count_n,
                    d_model=d_model, lr=lr, batch=batch, budget=budget, every=every,
                    eval_size=eval_size, rates=rates)


def capacity_cost(*, arm: str, N: int, seeds: int, d: int, n: int, V: int, widths: list[int],
                  control_widths: list[int], widths_side_by_side: bool, batch: int, lr, adam_lr,
                  budget: int, every: int, rates: dict | None = None,
                  **_) -> Cost:
    """One (arm, N, a) job of ``capacity.capacity_rows``: every width and learning rate at the
    share ``BUDGET_USED["capacity"]`` of its budget (a step is one minibatch of ``batch n`` tokens
    per seed, an evaluation a forward pass over the ``N n`` tokens; on the GPU a launch-bound
    minibatch step, captured as a CUDA graph: ``minibatch_step_s``), the widths one after another
    or side by side (one training whose replicas all pay the widest's step). The model lives here,
    not beside the job, so that refitting a share reruns no job."""
    grid = widths if arm in capacity.RANK1_ARMS else control_widths
    lrs = len(capacity.learning_rates(adam_lr if capacity.CAPACITY_ARMS[arm][3] == "adam" else lr))
    mixing = n + d * (d if capacity.CAPACITY_ARMS[arm][2] == "d" else 1)
    # each group of widths trained together: its replicas (every rate's seeds) and its width
    groups = ([(seeds * lrs * len(grid), max(grid))] if widths_side_by_side
              else [(seeds * lrs, q) for q in grid])
    steps_seconds = 0.0
    for replicas, q in groups:
        step = MEM_STEP + MEM_FLOP * replicas * batch * n * (q + mixing)
        evaluation = (MEM_STEP + MEM_FLOP * replicas * N * n * (q + mixing)) / 3
        steps_seconds += (budget + 1) * (step + evaluation / every)
    # a training pass of the largest group over the larger of a minibatch and an evaluation chunk
    replicas = max(r for r, _ in groups)
    chunk = max(batch, min(N, capacity.eval_chunk(replicas // seeds)))
    peak = BASE_BYTES + 16 * 4 * replicas * chunk * n * (max(grid) + d + n) + 8 * V * V
    return _cost("capacity", steps_seconds, rates,
                 len(groups) * (budget + 1) * (1 + 1 / (3 * every)), "minibatch_step_s", peak,
                 extra=0.01 * V * d / 1000)  # the dataset
