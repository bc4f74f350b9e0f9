"""The sparse stage's cost models (expressivity.experiments.sparse_approximation.cost): the
optimised-inputs plan."""

import pytest
from cases import SA_OPTIMISED

from expressivity.experiments.sparse_approximation.cost import (
    optimised_cost,
    scan_seconds,
    step_seconds,
)


def test_cost_plans_every_grid_d_failing():
    s = {key: SA_OPTIMISED[key] for key in ("R", "eps_ratio", "eps_zero", "delta", "search",
                                            "optimise")}
    one, peak = optimised_cost(n=[64], k=1, trials=1, **s)
    start = optimised_cost(n=[], k=1, trials=1, **s)[0]
    assert optimised_cost(n=[64], k=1, trials=3, **s) == (pytest.approx(3 * one - 2 * start), peak)
    assert optimised_cost(n=[32, 64], k=1, trials=1, **s)[0] == pytest.approx(
        one + optimised_cost(n=[32], k=1, trials=1, **s)[0] - start)
    assert peak >= 400 * 2**20 + 12 * 8 * 64 * 64
    o = SA_OPTIMISED["optimise"]
    plan = scan_seconds(64, 1, **{key: o[key] for key in ("d_start", "d_max", "resolution",
                                                          "restarts", "steps")})
    assert plan >= o["steps"] * step_seconds(64, 1, o["d_start"]) and one > plan


def test_frontier_plan_is_an_upper_plan_of_the_walk():
    from cases import SA_FRONTIER

    from expressivity.experiments.sparse_approximation.cost import frontier_cost
    from expressivity.optimised_inputs import BATCH_BYTES

    s = {key: SA_FRONTIER[key] for key in ("budgets", "criteria", "trials", "restarts", "d_start",
                                           "d_max", "resolution", "coarse", "steps",
                                           "check_every")}
    one, peak = frontier_cost(n=[32], k=1, **s)
    more, _ = frontier_cost(n=[32], k=1, **{**s, "steps": 2 * s["steps"]})
    start = frontier_cost(n=[], k=1, **s)[0]
    assert more - start == pytest.approx(2 * (one - start))
    # a larger batch costs more, but less than running its problems one by one
    double, _ = frontier_cost(n=[32], k=1, **{**s, "trials": 2 * s["trials"]})
    assert one < double < 2 * one - start
    assert frontier_cost(n=[16, 32], k=1, **s)[0] > one
    assert peak >= 450 * 2**20
    from expressivity.experiments.sparse_approximation import cost

    assert cost.BATCH_BYTES == BATCH_BYTES  # restated without torch: must stay equal


def test_unbounded_plan_grows_with_the_moment_curves():
    from expressivity.experiments.sparse_approximation.cost import unbounded_cost

    s = {"k": [1, 2], "trials": 1, "criteria": ["per-entry"]}
    base = unbounded_cost(n=[64], moment_k=[], **s)[0]
    assert unbounded_cost(n=[64], moment_k=[2], **s)[0] > base
    assert unbounded_cost(n=[128], moment_k=[2], **s)[0] > unbounded_cost(n=[64], moment_k=[2],
                                                                           **s)[0]
