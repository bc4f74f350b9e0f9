"""The training protocol: when a run stops (a learning-rate decay and a second window before any
plateau), what a cell of seeds (and learning rates) shows under each quantifier."""

import math
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from expressivity.training_protocol import (
    EXISTS,
    MIXED,
    NONE_EXISTS,
    PLATEAUS,
    REACHES,
    UNDECIDED,
    Monitor,
    Protocol,
    cell_summary,
    cell_verdict,
    curve_value,
    encode_curve,
    evaluation_steps,
    existence,
    seeds_verdict,
    wilson_interval,
)

P = Protocol(target=0.99, budget=1000, every=10, window=100, min_gain=0.01)


def run(monitor, points):
    """Feed (step, loss, accuracy) until the monitor stops; return its result and the learning-rate
    factor at each evaluation."""
    factors = []
    for step, loss, acc in points:
        stopped = monitor.observe(step, loss, acc)
        factors.append(monitor.lr_factor)
        if stopped:
            return monitor.result(), factors
    raise AssertionError("the run did not stop")


def test_stops_at_the_target():
    res, factors = run(Monitor(P), [(s, 1.0 / (s + 1), min(1.0, s / 500))
                                    for s in range(0, 1001, 10)])
    assert res["outcome"] == "reached" and res["steps_to_target"] == 500 == res["stopped_at"]
    assert not res["lr_decayed"] and set(factors) == {1.0}


def test_the_longest_stall_is_the_longest_span_without_a_gain_of_min_gain():
    """Gains of 0.02 at steps 100 and 450, the accuracy wobbling below min_gain in between, then
    the target at 490: stalls over [0, 90], [100, 440] and [450, 480]; the longest is 340 steps
    (a window of 340 would have decayed the run at step 440)."""
    acc = {s: 0.5 + 0.02 * (s >= 100) + 0.02 * (s >= 450) + 0.005 * (s % 20 == 0)
           for s in range(0, 481, 10)}
    res, _ = run(Monitor(replace(P, window=400)),
                 [(s, 1.0, a) for s, a in acc.items()] + [(490, 1.0, 1.0)])
    assert res["outcome"] == "reached" and res["longest_stall"] == 340
    single = Monitor(P)
    single.observe(0, 1.0, 1.0)
    assert single.result()["longest_stall"] == 0


def test_a_stalled_run_decays_its_learning_rate_once_before_it_is_a_plateau():
    flat = [(s, 0.5 * 0.999**s, 0.6) for s in range(0, 1001, 10)]  # the loss still falls
    res, factors = run(Monitor(P), flat)
    # stalled over [0, 100]: decay; stalled again over the second window [100, 200]: plateau
    assert res["outcome"] == "plateau" and res["stopped_at"] == 200
    assert res["lr_decayed"] and res["decayed_at"] == 100 and res["steps_to_target"] is None
    assert factors[9] == 1.0 and factors[10] == factors[-1] == pytest.approx(0.1)
    # accuracy gains above min_gain per window keep it going until the budget
    rising = [(s, 0.5, 0.5 + 0.0002 * s) for s in range(0, 1001, 10)]
    assert run(Monitor(P), rising)[0]["outcome"] == "budget"
    # noise below the best so far is no gain
    noisy = [(s, 0.5, 0.6 + 0.05 * (s % 20 == 0)) for s in range(0, 1001, 10)]
    assert run(Monitor(P), noisy)[0]["stopped_at"] == 200


def test_a_run_that_improves_after_the_decay_goes_on_and_can_reach_the_target():
    """The situation the decay is for: a run stalled at a high learning rate learns again."""
    points = [(s, 0.5, 0.6) for s in range(0, 101, 10)]
    points += [(s, 0.4, min(1.0, 0.6 + 0.002 * (s - 100))) for s in range(110, 1001, 10)]
    res, factors = run(Monitor(P), points)
    assert res["outcome"] == "reached" and res["decayed_at"] == 100 and res["lr_decayed"]
    assert res["steps_to_target"] == 300 and factors[-1] == pytest.approx(0.1)


def test_a_late_improvement_restarts_the_window():
    points = [(s, 0.5, 0.6) for s in range(0, 90, 10)] + [(90, 0.4, 0.7)]
    points += [(s, 0.4, 0.7) for s in range(100, 1001, 10)]
    res, _ = run(Monitor(P), points)
    assert res["decayed_at"] == 190 and res["stopped_at"] == 290


def test_a_run_stalled_at_the_budget_without_its_second_window_decides_nothing():
    short = Protocol(target=0.99, budget=200, every=10, window=100, min_gain=0.01)
    points = [(s, 0.5, 0.6 + 0.02 * (s >= 50)) for s in range(0, 201, 10)]
    res, _ = run(Monitor(short), points)
    assert res["outcome"] == "budget" and res["decayed_at"] == 150


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="window"):
        Protocol(target=1.0, budget=10, every=5, window=2, min_gain=0.0)
    with pytest.raises(ValueError, match="target"):
        Protocol(target=1.5, budget=10, every=1, window=2, min_gain=0.0)
    with pytest.raises(ValueError, match="budget"):
        Protocol(target=1.0, budget=3, every=1, window=2, min_gain=0.0)
    with pytest.raises(ValueError, match="decay"):
        Protocol(target=1.0, budget=4, every=1, window=2, min_gain=0.0, decay=1.0)
    with pytest.raises(TypeError, match="protocol"):
        Monitor({"budget": 4})
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
    assert existence(["diverged", "plateau"]) == NONE_EXISTS


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


def test_existence_needs_one_run_and_its_absence_every_run_decided():
    assert existence(["plateau", "plateau", "reached"]) == EXISTS
    assert existence(["budget", "reached"]) == EXISTS
    assert existence(["plateau", "diverged"]) == NONE_EXISTS
    assert existence(["plateau", "budget"]) == UNDECIDED
    with pytest.raises(ValueError, match="outcomes"):
        existence([])


def test_wilson_interval_known_values():
    """Wilson (1927): 0 of 5 gives [0, 0.4345], 5 of 5 [0.5655, 1], 3 of 5 [0.2307, 0.8824]."""
    assert wilson_interval(0, 5) == pytest.approx((0.0, 0.43448), abs=1e-5)
    assert wilson_interval(5, 5) == pytest.approx((0.56552, 1.0), abs=1e-5)
    assert wilson_interval(3, 5) == pytest.approx((0.23072, 0.88238), abs=1e-5)
    with pytest.raises(ValueError, match="k must"):
        wilson_interval(6, 5)
    with pytest.raises(ValueError, match="n must"):
        wilson_interval(0, 0)


@given(n=st.integers(1, 200), data=st.data())
def test_wilson_interval_holds_the_fraction_and_narrows_with_trials(n, data):
    k = data.draw(st.integers(0, n))
    lo, hi = wilson_interval(k, n)
    assert 0 <= lo <= k / n <= hi <= 1
    lo4, hi4 = wilson_interval(4 * k, 4 * n)
    assert hi4 - lo4 < hi - lo


def test_wilson_interval_covers_95_percent():
    """Coverage of the true fraction over binomial draws (5 and 16 seeds, p in 0.2..0.8): close to
    0.95 (Wilson's interval is known to hold its level for small n, unlike the Wald interval)."""
    rng = np.random.default_rng(0)
    for n in (5, 16):
        for p in (0.2, 0.5, 0.8):
            ks = rng.binomial(n, p, size=4000)
            covered = np.mean([lo <= p <= hi for lo, hi in (wilson_interval(int(k), n)
                                                            for k in ks)])
            assert covered > 0.9, (n, p, covered)


def test_cell_summary_reports_existence_and_reliability_at_the_best_learning_rate():
    runs = [{"lr": 0.1, "outcome": "plateau", "accuracy": 0.9, "steps_to_target": None,
             "stopped_at": 400, "lr_decayed": True},
            {"lr": 0.01, "outcome": "reached", "accuracy": 1.0, "steps_to_target": 200,
             "stopped_at": 200, "lr_decayed": False},
            {"lr": 0.01, "outcome": "reached", "accuracy": 0.995, "steps_to_target": 300,
             "stopped_at": 300, "lr_decayed": True},
            {"lr": 0.01, "outcome": "plateau", "accuracy": 0.8, "steps_to_target": None,
             "stopped_at": 900, "lr_decayed": True}]
    s = cell_summary(runs)
    assert s["cell_verdict"] == MIXED and s["cell_existence"] == EXISTS
    assert s["cell_lr"] == 0.01 and s["cell_seeds"] == 3 and s["cell_reached"] == 2
    assert s["cell_reliability"] == pytest.approx(2 / 3)
    assert (s["cell_reliability_lo"], s["cell_reliability_hi"]) == wilson_interval(2, 3)
    assert s["cell_accuracy_mean"] == pytest.approx(0.93166667)
    assert (s["cell_steps_to_target_min"], s["cell_steps_to_target_max"]) == (200, 300)
    assert s["cell_longest_run"] == 900 and s["cell_decayed"] == 2


def test_evaluation_steps_are_those_the_protocol_evaluates():
    proto = Protocol(target=0.99, budget=125, every=10, window=60, min_gain=0.01)
    assert evaluation_steps(10, 125) == [s for s in range(126) if proto.evaluates(s)]
    assert evaluation_steps(10, 125)[-2:] == [120, 125]
    assert evaluation_steps(50, 1500)[-1] == 1500 and len(evaluation_steps(50, 1500)) == 31


def test_a_curve_cell_gives_the_value_at_each_evaluation_and_refuses_others():
    curve = encode_curve([0.1, 0.25, 1 / 3])
    assert curve == "0.100000 0.250000 0.333333"
    assert curve_value(curve, 10, 125, 10) == 0.25
    assert curve_value(curve, 10, 125, 20) == pytest.approx(1 / 3, abs=1e-6)
    with pytest.raises(ValueError, match="no evaluation at step 30"):
        curve_value(curve, 10, 125, 30)  # past the run's stop
    with pytest.raises(ValueError, match="no evaluation at step 15"):
        curve_value(curve, 10, 125, 15)
