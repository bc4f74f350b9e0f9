"""The training protocol: when a run stops, what a cell of seeds (and learning rates) shows."""

import math

import pytest

from expressivity.training_protocol import (
    MIXED,
    PLATEAUS,
    REACHES,
    UNDECIDED,
    Monitor,
    Protocol,
    cell_summary,
    cell_verdict,
    seeds_verdict,
)

P = Protocol(target=0.99, budget=1000, every=10, window=100, min_gain=0.01)


def run(monitor, points):
    """Feed (step, loss, accuracy) until the monitor stops; return its result."""
    for step, loss, acc in points:
        if monitor.observe(step, loss, acc):
            return monitor.result()
    raise AssertionError("the run did not stop")


def test_stops_at_the_target():
    res = run(Monitor(P), [(s, 1.0 / (s + 1), min(1.0, s / 500)) for s in range(0, 1001, 10)])
    assert res["outcome"] == "reached" and res["steps_to_target"] == 500 == res["stopped_at"]


def test_stops_on_a_plateau_of_the_accuracy_whatever_the_loss():
    flat = [(s, 0.5 * 0.999**s, 0.6) for s in range(0, 1001, 10)]  # the loss still falls
    res = run(Monitor(P), flat)
    assert res["outcome"] == "plateau" and res["stopped_at"] == 100
    assert res["steps_to_target"] is None
    # accuracy gains above min_gain per window keep it going until the budget
    rising = [(s, 0.5, 0.5 + 0.0002 * s) for s in range(0, 1001, 10)]
    assert run(Monitor(P), rising)["outcome"] == "budget"
    # noise below the best so far is no gain
    noisy = [(s, 0.5, 0.6 + 0.05 * (s % 20 == 0)) for s in range(0, 1001, 10)]
    assert run(Monitor(P), noisy)["stopped_at"] == 100


def test_a_late_improvement_restarts_the_window():
    points = [(s, 0.5, 0.6) for s in range(0, 90, 10)] + [(90, 0.4, 0.7)]
    points += [(s, 0.4, 0.7) for s in range(100, 1001, 10)]
    assert run(Monitor(P), points)["stopped_at"] == 190


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="window"):
        Protocol(target=1.0, budget=10, every=5, window=2, min_gain=0.0)
    with pytest.raises(ValueError, match="target"):
        Protocol(target=1.5, budget=10, every=1, window=2, min_gain=0.0)
    with pytest.raises(ValueError, match="budget"):
        Protocol(target=1.0, budget=0, every=1, window=2, min_gain=0.0)
    m = Monitor(P)
    m.observe(0, 1.0, 0.5)
    with pytest.raises(ValueError, match="increase"):
        m.observe(0, 1.0, 0.5)
    with pytest.raises(RuntimeError, match="not stopped"):
        m.result()


def test_a_diverged_run_stops_and_counts_as_not_reaching():
    m = Monitor(P)
    assert m.observe(0, 1.0, 0.5) is False and m.observe(10, math.nan, 0.1) is True
    assert m.result()["outcome"] == "diverged"
    assert seeds_verdict(["diverged", "plateau"]) == PLATEAUS
    assert seeds_verdict(["diverged", "reached"]) == MIXED


def test_verdicts():
    assert seeds_verdict(["reached"] * 3) == REACHES
    assert seeds_verdict(["plateau"] * 3) == PLATEAUS
    assert seeds_verdict(["reached", "plateau", "budget"]) == MIXED
    assert seeds_verdict(["reached", "budget"]) == UNDECIDED
    assert seeds_verdict(["plateau", "budget"]) == UNDECIDED
    assert cell_verdict({0.1: ["plateau"], 0.01: ["reached", "reached"]}) == REACHES
    assert cell_verdict({0.1: ["plateau"], 0.01: ["plateau"]}) == PLATEAUS
    assert cell_verdict({0.1: ["plateau"], 0.01: ["budget"]}) == UNDECIDED
    assert cell_verdict({0.1: ["plateau"], 0.01: ["reached", "plateau"]}) == MIXED
    with pytest.raises(ValueError, match="outcomes"):
        seeds_verdict(["won"])


def test_cell_summary_reports_the_best_learning_rate():
    runs = [{"lr": 0.1, "outcome": "plateau", "accuracy": 0.9, "steps_to_target": None,
             "stopped_at": 400},
            {"lr": 0.01, "outcome": "reached", "accuracy": 1.0, "steps_to_target": 200,
             "stopped_at": 200},
            {"lr": 0.01, "outcome": "reached", "accuracy": 0.995, "steps_to_target": 300,
             "stopped_at": 300}]
    s = cell_summary(runs)
    assert s["cell_verdict"] == REACHES and s["cell_lr"] == 0.01 and s["cell_seeds"] == 2
    assert s["cell_accuracy_mean"] == pytest.approx(0.9975)
    assert s["cell_accuracy_sd"] == pytest.approx(0.0035355339, rel=1e-6)
    assert (s["cell_steps_to_target_min"], s["cell_steps_to_target_max"]) == (200, 300)
    assert s["cell_longest_run"] == 400 and s["cell_reached"] == 2
