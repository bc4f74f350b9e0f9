"""The training protocol: when a run stops, and what a cell of seeds shows.

One rule for every trained model of the project (memorization full-batch or in minibatches, the
sequence encoders, any optimiser). A run is evaluated every ``every`` steps on the metric its
claim is about (held-out token accuracy for the encoders, training accuracy for memorization) and

- stops at the first evaluation with ``accuracy >= target``: outcome ``"reached"``
  (``steps_to_target`` recorded, early stopping);
- when the best accuracy so far rose by less than ``min_gain`` over the last ``window`` steps (the
  metric, not the loss: a cross-entropy keeps falling while the margins of the tokens already right
  grow), first *decays its learning rate once* (divides it by ``decay``; ``lr_decayed``,
  ``decayed_at``) and goes on; only when it stalls again over a second ``window`` after the decay
  does it stop: outcome ``"plateau"``. No run is called a plateau without the decay;
- stops when its loss is no longer finite: outcome ``"diverged"`` (it reaches nothing at this
  learning rate; the verdicts count it with the plateaus);
- stops at the step budget ``budget`` otherwise: outcome ``"budget"``, which decides nothing (a
  longer budget could change it). The budget holds at least a window, the decay and a second
  window (``budget >= 2 window``), so that a plateau can be declared at all.

The trainer reads ``Monitor.lr_factor`` after each evaluation (1, then ``1 / decay``) and scales
that run's learning rate by it: runs trained side by side decay independently.

A *cell* (one configuration trained with several seeds, possibly at several learning rates) is
summarised by ``cell_summary`` under the three quantifiers the papers use:

- ``cell_existence``: ``"yes"`` when some seed at some learning rate reached the target (the
  theorems' "there exist weights", found by training), ``"no"`` when every run plateaued (after its
  decay) or diverged, ``"not evaluated"`` when none reached it and some run stopped at its budget;
- ``cell_reliability``: the fraction of seeds that reached the target at the reported learning
  rate, with its 95 % Wilson interval (``cell_reliability_lo``, ``cell_reliability_hi``): how far
  the existence is a property of the configuration rather than of a seed;
- the mean and spread of the final accuracy over seeds (``cell_accuracy_mean``, ...: the papers'
  statistic, "average of three runs");
- ``cell_verdict``, the every-seed reading: ``"reaches the target"`` when for some learning rate
  every seed reached it, ``"plateaus below it"`` when every run stopped on a plateau below it,
  ``"seed-dependent"`` when decided runs disagree, ``"not evaluated"`` when a run at its budget
  leaves it open. A ``cannot`` statement ("no seed and learning rate reaches it", backed by a
  capacity argument) is this verdict's ``"plateaus below it"``.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from expressivity.arguments import finite_number, integer

OUTCOMES = ("reached", "plateau", "diverged", "budget")
REACHES, PLATEAUS, MIXED, UNDECIDED = (
    "reaches the target", "plateaus below it", "seed-dependent", "not evaluated")
VERDICTS = (REACHES, PLATEAUS, MIXED, UNDECIDED)
#: ``cell_existence``: some run reached the target, none did (every run decided), undecided.
EXISTS, NONE_EXISTS = "yes", "no"
EXISTENCE = (EXISTS, NONE_EXISTS, UNDECIDED)
#: The quantifier of a training claim: some seed and learning rate (``existence``), the average
#: over seeds (``mean``), or no seed and learning rate, every run plateauing after its decay, where
#: a capacity argument backs it (``cannot``).
QUANTIFIERS = ("existence", "mean", "cannot")
#: Two-sided 95 % normal quantile of the Wilson interval.
Z95 = 1.959963984540054


@dataclass(frozen=True)
class Protocol:
    """When one training run stops (see the module docstring); all counts in steps (or epochs)."""

    target: float
    budget: int
    every: int
    window: int
    min_gain: float
    decay: float = 10.0

    def __post_init__(self) -> None:
        checks = (
            ("target", lambda v: 0 < v <= 1, "a number in (0, 1]"),
            ("every", lambda v: _is_int(v) and v >= 1, "an integer >= 1"),
            ("window", lambda v: _is_int(v) and v >= self.every,
             "an integer >= every (the plateau is judged on at least one evaluation)"),
            ("budget", lambda v: _is_int(v) and v >= 2 * self.window,
             f"an integer >= 2 window = {2 * self.window} (a window, the learning-rate decay "
             "and a second window)"),
            ("min_gain", lambda v: 0 <= v < 1, "a number in [0, 1)"),
            ("decay", lambda v: 1 < v < math.inf, "a number > 1 (the learning rate is divided "
             "by it once before a plateau is declared)"),
        )
        for name, ok, allowed in checks:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(
                    value, (int, float, np.integer, np.floating)) or not ok(value):
                raise ValueError(f"Protocol.{name} must be {allowed}, got {value!r}")

    def settings(self) -> dict:
        """The protocol as table columns (every trained table records the rule it ran under)."""
        return {"target": self.target, "budget": self.budget, "every": self.every,
                "window": self.window, "min_gain": self.min_gain, "lr_decay": self.decay}

    def evaluates(self, step: int) -> bool:
        """Whether a run is evaluated after ``step`` steps (0, every, 2 every, ..., and the
        budget)."""
        return step % self.every == 0 or step == self.budget


def evaluation_steps(every: int, budget: int) -> list[int]:
    """The steps at which ``Protocol(every=every, budget=budget)`` evaluates a run, in order."""
    return list(range(0, budget + 1, every)) + ([budget] if budget % every else [])


def encode_curve(values: Sequence[float]) -> str:
    """A run's metric at each of its evaluations (``evaluation_steps``, until its stop) as one table
    cell: the values to 6 decimals (below the 1 / 8192 resolution of a held-out token accuracy),
    space-separated."""
    return " ".join(f"{float(v):.6f}" for v in values)


def curve_points(curve: str, every: int, budget: int) -> dict[int, float]:
    """An ``encode_curve`` cell as {evaluation step: value}, in order, until the run's stop."""
    values = [float(v) for v in curve.split()]
    return dict(zip(evaluation_steps(int(every), int(budget)), values, strict=False))


def curve_value(curve: str, every: int, budget: int, step: int) -> float:
    """The value of an ``encode_curve`` cell at evaluation ``step``; an error when the run was not
    evaluated there (a step past its stop, or not an evaluation step)."""
    points = curve_points(curve, every, budget)
    if step not in points:
        raise ValueError(f"no evaluation at step {step} in a curve of {len(points)} evaluations "
                         f"every {every} steps (budget {budget})")
    return points[step]


def _is_int(value) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


class Monitor:
    """Follows one run: ``observe(step, loss, accuracy)`` after each evaluation returns whether the
    run stops there; ``lr_factor`` is the factor its learning rate runs at from then on; once it
    stopped, ``result()`` gives its outcome and the values at the stop."""

    def __init__(self, protocol: Protocol):
        if not isinstance(protocol, Protocol):
            raise TypeError(f"protocol must be a training_protocol.Protocol, got {protocol!r}")
        self.protocol = protocol
        self.steps: list[int] = []
        self.history: list[float] = []  # the best accuracy so far at self.steps
        self.outcome: str | None = None
        self.steps_to_target: int | None = None
        self.stopped_at: int | None = None
        self.decayed_at: int | None = None
        self.loss = self.accuracy = math.nan

    @property
    def lr_factor(self) -> float:
        """1 before the decay, ``1 / decay`` after it."""
        return 1.0 if self.decayed_at is None else 1.0 / self.protocol.decay

    def observe(self, step: int, loss: float, accuracy: float) -> bool:
        if self.outcome is not None:
            return True
        accuracy = _accuracy("accuracy", accuracy)
        p = self.protocol
        if self.steps and step <= self.steps[-1]:
            raise ValueError(f"steps must increase: {step} after {self.steps[-1]}")
        self.steps.append(step)
        self.history.append(max(accuracy, self.history[-1]) if self.history else accuracy)
        self.loss, self.accuracy = float(loss), accuracy
        if not math.isfinite(loss):
            self.outcome = "diverged"
        elif accuracy >= p.target:
            self.outcome, self.steps_to_target = "reached", step
        elif self._stalled(step):
            if self.decayed_at is None:
                self.decayed_at = step
            else:
                self.outcome = "plateau"
        if self.outcome is None and step >= p.budget:
            self.outcome = "budget"
        if self.outcome is not None:
            self.stopped_at = step
        return self.outcome is not None

    def _stalled(self, step: int) -> bool:
        """Whether the best accuracy rose by less than ``min_gain`` over the last window, all of
        it after the decay when there was one."""
        p = self.protocol
        start = step - p.window
        if start < (self.decayed_at or 0):
            return False
        i = bisect.bisect_right(self.steps, start)
        if i == 0:
            return False
        return self.history[-1] - self.history[i - 1] < p.min_gain

    def longest_stall(self) -> int:
        """The longest span of steps between two evaluations over which the best accuracy rose
        by less than ``min_gain`` (0 with one evaluation): a run that reaches the target after
        such a stall would have been decayed by any window up to it, so the windows are chosen
        above the longest stall of the runs that reached the target (README)."""
        longest, i = 0, 0
        for j, best in enumerate(self.history):
            while i < j and best - self.history[i] >= self.protocol.min_gain:
                i += 1
            longest = max(longest, self.steps[j] - self.steps[i])
        return longest

    def result(self) -> dict:
        """The run's outcome, the step it stopped at, ``steps_to_target`` (None unless reached),
        whether and where its learning rate decayed, its longest stall, and the loss and accuracy
        of its last evaluation."""
        if self.outcome is None:
            raise RuntimeError("the run has not stopped yet")
        return {"outcome": self.outcome, "stopped_at": self.stopped_at,
                "steps_to_target": self.steps_to_target,
                "lr_decayed": self.decayed_at is not None, "decayed_at": self.decayed_at,
                "longest_stall": self.longest_stall(), "loss": self.loss,
                "accuracy": self.accuracy}


def _accuracy(name: str, value) -> float:
    """An accuracy: a number in [0, 1] (NaN would silently never reach the target)."""
    value = finite_number(name, value)
    if not 0 <= value <= 1:
        raise ValueError(f"{name} must be in [0, 1], got {value!r}")
    return value


def _check_runs(runs: Sequence[Mapping]) -> None:
    """Each run's learning rate (finite, > 0), outcome and final accuracy (in [0, 1])."""
    for i, run in enumerate(runs):
        if not finite_number(f"runs[{i}]['lr']", run["lr"]) > 0:
            raise ValueError(f"runs[{i}]['lr'] must be > 0, got {run['lr']!r}")
        if run["outcome"] not in OUTCOMES:
            raise ValueError(f"runs[{i}]['outcome'] must be one of {OUTCOMES}, "
                             f"got {run['outcome']!r}")
        _accuracy(f"runs[{i}]['accuracy']", run["accuracy"])


def seeds_verdict(outcomes: Sequence[str]) -> str:
    """The every-seed verdict of one learning rate's seeds (see the module docstring)."""
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
    """The every-seed verdict of a cell over its learning-rate grid: it reaches the target when one
    learning rate's seeds all reach it, plateaus below when every learning rate's seeds all
    plateau."""
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


def existence(outcomes: Iterable[str]) -> str:
    """``"yes"`` when some run (any seed, any learning rate) reached the target, ``"no"`` when every
    run plateaued after its decay or diverged, ``"not evaluated"`` otherwise (a run at its budget
    might still have reached it)."""
    outcomes = list(outcomes)
    unknown = sorted(set(outcomes) - set(OUTCOMES))
    if unknown or not outcomes:
        raise ValueError(f"outcomes must be a non-empty list of {OUTCOMES}, got {outcomes}")
    if "reached" in outcomes:
        return EXISTS
    return UNDECIDED if "budget" in outcomes else NONE_EXISTS


def wilson_interval(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson's score interval (Wilson 1927) of a binomial fraction ``k / n``:

        (k + z^2 / 2) / (n + z^2)  -+  z sqrt(k (n - k) / n + z^2 / 4) / (n + z^2),

    which stays inside [0, 1] and keeps its coverage for few trials and fractions at 0 or 1 (its
    ends are exactly 0 at ``k = 0`` and 1 at ``k = n``, where the formula rounds)."""
    n = integer("n", n, 1)
    k = integer("k", k, 0, n)
    centre = (k + z * z / 2) / (n + z * z)
    half = z * math.sqrt(k * (n - k) / n + z * z / 4) / (n + z * z)
    return (0.0 if k == 0 else centre - half), (1.0 if k == n else centre + half)


def best_lr(runs: Iterable[Mapping]) -> float:
    """The learning rate a cell is reported at: the one at which the most seeds reach the target,
    then the fewest mean steps to it, then the highest mean final accuracy."""
    runs = list(runs)
    _check_runs(runs)
    by_lr: dict[float, list[Mapping]] = {}
    for run in runs:
        by_lr.setdefault(float(run["lr"]), []).append(run)
    if not by_lr:
        raise ValueError("no runs")

    def key(lr: float):
        rows = by_lr[lr]
        steps = [r["steps_to_target"] for r in rows if r["outcome"] == "reached"]
        return (-len(steps) / len(rows), np.mean(steps) if steps else math.inf,
                -np.mean([r["accuracy"] for r in rows]), lr)

    return min(by_lr, key=key)


def cell_summary(runs: Sequence[Mapping]) -> dict:
    """Columns that describe a cell's runs (each a dict with ``lr``, ``outcome``, ``accuracy``,
    ``steps_to_target``, ``stopped_at``, ``lr_decayed``): its every-seed verdict and its existence
    over the learning rates; the learning rate it is reported at, and there its reliability (seeds
    that reached the target, their fraction and its 95 % Wilson interval), the mean, standard
    deviation (ddof 1; 0 for one seed), minimum and maximum of the final accuracy over seeds, the
    mean, minimum and maximum steps to the target (NaN when no seed reached it), and the number of
    runs whose learning rate decayed; the longest run of the cell (steps, every learning rate) and
    the longest stall of a run that reached the target (``Monitor.longest_stall``; None without
    one), on which the windows are chosen."""
    if not runs:
        raise ValueError("a cell needs at least one run")
    by_lr: dict[float, list[str]] = {}
    for run in runs:
        by_lr.setdefault(float(run["lr"]), []).append(run["outcome"])
    lr = best_lr(runs)
    chosen = [r for r in runs if float(r["lr"]) == lr]
    acc = np.array([r["accuracy"] for r in chosen], dtype=float)
    steps = np.array([r["steps_to_target"] for r in chosen if r["outcome"] == "reached"],
                     dtype=float)
    reached = int(steps.size)
    lo, hi = wilson_interval(reached, len(chosen))
    return {
        "cell_verdict": cell_verdict(by_lr), "cell_existence": existence(r["outcome"] for r in runs),
        "cell_lr": lr, "cell_seeds": len(chosen), "cell_reached": reached,
        "cell_reliability": reached / len(chosen), "cell_reliability_lo": lo,
        "cell_reliability_hi": hi,
        "cell_accuracy_mean": float(acc.mean()),
        "cell_accuracy_sd": float(acc.std(ddof=1)) if len(acc) > 1 else 0.0,
        "cell_accuracy_min": float(acc.min()), "cell_accuracy_max": float(acc.max()),
        "cell_steps_to_target_mean": float(steps.mean()) if steps.size else math.nan,
        "cell_steps_to_target_min": float(steps.min()) if steps.size else math.nan,
        "cell_steps_to_target_max": float(steps.max()) if steps.size else math.nan,
        "cell_decayed": int(sum(bool(r.get("lr_decayed", False)) for r in chosen)),
        "cell_longest_run": max(int(r["stopped_at"]) for r in runs),
        "cell_longest_stall_reached": max((int(r["longest_stall"]) for r in runs
                                           if r["outcome"] == "reached"
                                           and r.get("longest_stall") is not None), default=None),
    }


def describe_cell(cell: Mapping) -> str:
    """A cell's row (``cell_summary``'s columns and the protocol's) in words: ``"existence yes,
    reached by 4/5 seeds (95 % interval 0.38-0.96) at lr 0.01; accuracy 0.9920 +- 0.0040, 120-480
    steps to target, 1 decayed, window 2500, budget 7500"``."""
    text = (f"existence {cell['cell_existence']}, reached by {int(cell['cell_reached'])}/"
            f"{int(cell['cell_seeds'])} seeds (95 % interval {cell['cell_reliability_lo']:.2f}-"
            f"{cell['cell_reliability_hi']:.2f}) at lr {cell['cell_lr']:g}; accuracy "
            f"{cell['cell_accuracy_mean']:.4f} +- {cell['cell_accuracy_sd']:.4f}")
    if not math.isnan(cell["cell_steps_to_target_mean"]):
        text += (f", {cell['cell_steps_to_target_min']:.0f}-{cell['cell_steps_to_target_max']:.0f}"
                 " steps to target")
    return text + (f", {int(cell['cell_decayed'])} decayed, window {int(cell['window'])}, budget "
                   f"{int(cell['budget'])}")
