"""The training protocol of the trained-models stage: when a run stops, and what its seeds show.

A run is evaluated every ``every`` steps on the metric its claim is about (held-out token accuracy
for the sequence encoders, training accuracy for memorization) and stops

- at the first evaluation with ``accuracy >= target``: outcome ``"reached"`` (``steps_to_target``
  recorded, early stopping);
- on a plateau: over the last ``window`` steps the best accuracy so far rose by less than
  ``min_gain`` (the metric, not the loss: a cross-entropy keeps falling while the margins of the
  tokens already right grow, also when the accuracy can rise no further): outcome ``"plateau"``;
- when its loss is no longer finite: outcome ``"diverged"`` (at this learning rate the run will not
  reach the target; the verdicts count it as a plateau);
- at the step budget ``budget`` while still improving: outcome ``"budget"``. Such a run decides
  nothing: a longer budget could change it.

A *cell* (one configuration trained with several seeds, and possibly several learning rates) is
classified by ``cell_verdict``:

- ``"reaches the target"``: for some learning rate every seed reached the target;
- ``"plateaus below it"``: for every learning rate every seed stopped on a plateau below the target;
- ``"seed-dependent"``: decided runs that disagree (some seeds reach it, others plateau below), so
  neither statement holds for the cell;
- ``"not evaluated"``: some run stopped at the budget and the others do not settle the question.

A claim that a cell reaches (or does not reach) the target passes only on the matching verdict, and
a cell ``"not evaluated"`` never passes: the same rule for every training claim (issue 13).
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from expressivity.arguments import finite_number

OUTCOMES = ("reached", "plateau", "diverged", "budget")
REACHES, PLATEAUS, MIXED, UNDECIDED = (
    "reaches the target", "plateaus below it", "seed-dependent", "not evaluated")
VERDICTS = (REACHES, PLATEAUS, MIXED, UNDECIDED)


@dataclass(frozen=True)
class Protocol:
    """When one training run stops (see the module docstring); all counts in steps (or epochs)."""

    target: float
    budget: int
    every: int
    window: int
    min_gain: float

    def __post_init__(self) -> None:
        checks = (
            ("target", 0 < self.target <= 1, "a number in (0, 1]"),
            ("budget", _is_int(self.budget) and self.budget >= 1, "an integer >= 1"),
            ("every", _is_int(self.every) and self.every >= 1, "an integer >= 1"),
            ("window", _is_int(self.window) and self.window >= self.every,
             "an integer >= every (the plateau is judged on at least one evaluation)"),
            ("min_gain", 0 <= self.min_gain < 1, "a number in [0, 1)"),
        )
        for name, ok, allowed in checks:
            value = getattr(self, name)
            if not (isinstance(value, (int, float, np.integer, np.floating)) and ok):
                raise ValueError(f"Protocol.{name} must be {allowed}, got {value!r}")


def _is_int(value) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


class Monitor:
    """Follows one run: ``observe(step, loss, accuracy)`` after each evaluation returns whether the
    run stops there; then ``outcome``, ``steps_to_target`` and the values at the stop are set."""

    def __init__(self, protocol: Protocol):
        self.protocol = protocol
        self.steps: list[int] = []
        self.history: list[float] = []  # the best accuracy so far at self.steps
        self.outcome: str | None = None
        self.steps_to_target: int | None = None
        self.stopped_at: int | None = None
        self.loss = self.accuracy = math.nan

    def observe(self, step: int, loss: float, accuracy: float) -> bool:
        if self.outcome is not None:
            return True
        accuracy = _accuracy("accuracy", accuracy)
        p = self.protocol
        if self.steps and step <= self.steps[-1]:
            raise ValueError(f"steps must increase: {step} after {self.steps[-1]}")
        self.steps.append(step)
        self.history.append(max(accuracy, self.history[-1]) if self.history else accuracy)
        self.loss, self.accuracy = loss, accuracy
        if not math.isfinite(loss):
            self.outcome = "diverged"
        elif accuracy >= p.target:
            self.outcome, self.steps_to_target = "reached", step
        elif step >= p.window and self._stalled(step):
            self.outcome = "plateau"
        elif step >= p.budget:
            self.outcome = "budget"
        if self.outcome is not None:
            self.stopped_at = step
        return self.outcome is not None

    def _stalled(self, step: int) -> bool:
        """Whether the best accuracy rose by less than ``min_gain`` over the last window."""
        p = self.protocol
        i = bisect.bisect_right(self.steps, step - p.window)
        if i == 0:
            return False
        return self.history[-1] - self.history[i - 1] < p.min_gain

    def result(self) -> dict:
        """The run's outcome, the step it stopped at, ``steps_to_target`` (None unless reached),
        and the loss and accuracy of its last evaluation."""
        if self.outcome is None:
            raise RuntimeError("the run has not stopped yet")
        return {"outcome": self.outcome, "stopped_at": self.stopped_at,
                "steps_to_target": self.steps_to_target, "loss": self.loss,
                "accuracy": self.accuracy}


def _accuracy(name: str, value) -> float:
    """An accuracy: a number in [0, 1] (NaN would silently never reach the target)."""
    value = finite_number(name, value)
    if not 0 <= value <= 1:
        raise ValueError(f"{name} must be in [0, 1], got {value!r}")
    return value


def _check_runs(runs: Sequence[Mapping]) -> None:
    """Each run's learning rate (finite, > 0) and final accuracy (in [0, 1])."""
    for i, run in enumerate(runs):
        if not finite_number(f"runs[{i}]['lr']", run["lr"]) > 0:
            raise ValueError(f"runs[{i}]['lr'] must be > 0, got {run['lr']!r}")
        _accuracy(f"runs[{i}]['accuracy']", run["accuracy"])


def seeds_verdict(outcomes: Sequence[str]) -> str:
    """The verdict of one learning rate's seeds (see the module docstring)."""
    unknown = sorted(set(outcomes) - set(OUTCOMES))
    if unknown or not outcomes:
        raise ValueError(f"outcomes must be a non-empty list of {OUTCOMES}, got {list(outcomes)}")
    kinds = {"plateau" if o == "diverged" else o for o in outcomes}
    if kinds == {"reached"}:
        return REACHES
    if kinds == {"plateau"}:
        return PLATEAUS
    if {"reached", "plateau"} <= kinds:
        return MIXED
    return UNDECIDED


def cell_verdict(outcomes_by_lr: Mapping[float, Sequence[str]]) -> str:
    """The verdict of a cell over its learning-rate grid: it reaches the target when one learning
    rate's seeds all reach it, plateaus below when every learning rate's seeds all plateau."""
    if not outcomes_by_lr:
        raise ValueError("a cell needs at least one learning rate's runs")
    per_lr = [seeds_verdict(list(o)) for o in outcomes_by_lr.values()]
    if REACHES in per_lr:
        return REACHES
    if all(v == PLATEAUS for v in per_lr):
        return PLATEAUS
    if MIXED in per_lr:
        return MIXED
    if UNDECIDED in per_lr:
        return UNDECIDED
    return MIXED  # some learning rates plateau, others are seed-dependent


def best_lr(runs: Iterable[Mapping]) -> float:
    """The learning rate a cell is reported at: among those whose seeds all reach the target the
    one with the fewest mean steps to it, otherwise the one with the highest mean accuracy."""
    runs = list(runs)
    _check_runs(runs)
    by_lr: dict[float, list[Mapping]] = {}
    for run in runs:
        by_lr.setdefault(float(run["lr"]), []).append(run)
    if not by_lr:
        raise ValueError("no runs")

    def key(lr: float):
        rows = by_lr[lr]
        reached = all(r["outcome"] == "reached" for r in rows)
        steps = np.mean([r["steps_to_target"] for r in rows]) if reached else math.inf
        return (not reached, steps, -np.mean([r["accuracy"] for r in rows]), lr)

    return min(by_lr, key=key)


def cell_summary(runs: Sequence[Mapping]) -> dict:
    """Columns that describe a cell's runs (each a dict with ``lr``, ``outcome``, ``accuracy``,
    ``steps_to_target``, ``stopped_at``): its verdict over the learning rates, the learning rate it
    is reported at, and at that rate the mean, standard deviation (ddof 1; 0 for one seed), minimum
    and maximum of the final accuracy over seeds, the seeds that reached the target, the mean,
    minimum and maximum steps to the target (NaN when no seed reached it), and the longest run of
    the cell (steps, every learning rate)."""
    if not runs:
        raise ValueError("a cell needs at least one run")
    by_lr: dict[float, list[str]] = {}
    for run in runs:
        by_lr.setdefault(float(run["lr"]), []).append(run["outcome"])
    lr = best_lr(runs)
    chosen = [r for r in runs if float(r["lr"]) == lr]
    acc = np.array([r["accuracy"] for r in chosen], dtype=float)
    steps = np.array([r["steps_to_target"] for r in chosen if r["steps_to_target"] is not None],
                     dtype=float)
    return {
        "cell_verdict": cell_verdict(by_lr), "cell_lr": lr, "cell_seeds": len(chosen),
        "cell_accuracy_mean": float(acc.mean()),
        "cell_accuracy_sd": float(acc.std(ddof=1)) if len(acc) > 1 else 0.0,
        "cell_accuracy_min": float(acc.min()), "cell_accuracy_max": float(acc.max()),
        "cell_reached": int(sum(r["outcome"] == "reached" for r in chosen)),
        "cell_steps_to_target_mean": float(steps.mean()) if steps.size else math.nan,
        "cell_steps_to_target_min": float(steps.min()) if steps.size else math.nan,
        "cell_steps_to_target_max": float(steps.max()) if steps.size else math.nan,
        "cell_longest_run": max(int(r["stopped_at"]) for r in runs),
    }
