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
