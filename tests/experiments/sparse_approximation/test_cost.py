"""The sparse stage's cost models (expressivity.experiments.sparse_approximation.cost): the passes
of a search trial on a CPU core and on a GPU, the optimised-inputs plan and the exact-rule
reference's."""

import pytest
from cases import SA_OPTIMISED, SA_SWEEP, SA_SWEEP_POINTS

from expressivity.experiments.sparse_approximation.cost import (
    JOB_BASE_BYTES,
    START_SECONDS,
    chunk_cost,
    optimised_cost,
    planned_d_min,
    reference_cost,
    scan_seconds,
    series_trial_work,
    step_seconds,
    trial_work,
)


def test_the_cost_model_plans_the_passes_a_trial_makes():
    """A trial's planned work: one pass when the first horizon holds 1.1 d_min (planned_d_min),
    one more at 1.5 times the horizon when it does not; 2 n^2 d flops a pass; on a GPU the same
    products at the GPU's rate after its start; no GPU plan without rates."""
    s = {key: SA_SWEEP[key] for key in ("R", "eps_ratio", "eps_zero", "delta", "search",
                                        "mass_rows", "target")}
    n, k, _ = SA_SWEEP_POINTS[-1]
    roomy = trial_work(n=n, k=k, horizon_fraction=1.0, **s)
    short = trial_work(n=n, k=k, horizon_fraction=0.01, **s)
    d_min = planned_d_min(n=n, k=k, **{key: s[key] for key in ("R", "eps_ratio", "eps_zero")})
    assert len(roomy.horizons) == 1 and roomy.horizons[0] >= 1.1 * d_min
    assert len(short.horizons) > 1 and short.horizons[-2] < 1.1 * d_min
    assert short.search_flops == 2.0 * n * n * sum(short.horizons)
    rates = {"gpu_job_start_s": 10.0, "sweep_trial_fixed_s": 0.05, "search_kernel_flops": 1e13}
    cfg = {**SA_SWEEP, "mass": {"eps": 0.1, "horizon_fraction": 0.25}}
    cpu, nbytes, gpu = chunk_cost(cfg, "sweep", n, k, 3, rates)
    assert cpu == pytest.approx(START_SECONDS + 3 * series_trial_work(cfg, "sweep", n, k).cpu_seconds())
    assert gpu == pytest.approx(10.0 + 3 * series_trial_work(cfg, "sweep", n, k).gpu_seconds(rates))
    assert nbytes > 16 * n * roomy.horizons[0] // 10 and chunk_cost(cfg, "sweep", n, k, 3)[2] is None
    with pytest.raises(ValueError, match="unknown series"):
        series_trial_work(cfg, "sweeps", n, k)


def test_cost_plans_the_scan_up_to_the_planned_d_opt():
    s = {key: SA_OPTIMISED[key] for key in ("R", "eps_ratio", "eps_zero", "delta", "search",
                                            "optimise")}
    one, peak = optimised_cost(n=[64], k=1, trials=1, **s)
    start = optimised_cost(n=[], k=1, trials=1, **s)[0]
    assert optimised_cost(n=[64], k=1, trials=3, **s) == (pytest.approx(3 * one - 2 * start), peak)
    assert optimised_cost(n=[32, 64], k=1, trials=1, **s)[0] == pytest.approx(
        one + optimised_cost(n=[32], k=1, trials=1, **s)[0] - start)
    assert peak >= 400 * 2**20 + 12 * 8 * 64 * 64
    o = SA_OPTIMISED["optimise"]
    keys = ("d_start", "d_max", "resolution", "restarts", "steps", "patience", "check_every")
    plan = scan_seconds(64, 1, **{key: o[key] for key in keys})
    attempt = min(o["steps"], o["patience"] + o["check_every"])
    assert plan >= attempt * step_seconds(64, 1, o["d_start"]) and one > plan
    # a larger n scans further (d_opt ~ sqrt(n)); no plateau shorter than the steps allow
    assert scan_seconds(128, 1, **{key: o[key] for key in keys}) > plan
    assert scan_seconds(64, 1, **{**{key: o[key] for key in keys}, "patience": 10**6}) \
        == pytest.approx(plan * o["steps"] / attempt)


def test_the_reference_plan_counts_every_point_of_both_series():
    """The exact-rule reference job: the same work for a point whichever series holds it, a k > 1
    point (its eta draws) far dearer than a k = 1 one, memory for the model's arrays."""
    points = {"n": [64, 1024], "k": [1, 2], "n_max": [], "trials": 4, "trials_at_largest_n": []}
    none = {**points, "k": []}
    one, peak = reference_cost(sweep=points, mass=none)
    assert reference_cost(sweep=points, mass=points)[0] - START_SECONDS == pytest.approx(
        2 * (one - START_SECONDS))
    assert reference_cost(sweep=none, mass=points) == (pytest.approx(one), peak)
    k1 = reference_cost(sweep={**points, "k": [1]}, mass=none)[0] - START_SECONDS
    k2 = reference_cost(sweep={**points, "k": [2]}, mass=none)[0] - START_SECONDS
    assert k2 > 30 * k1 and reference_cost(sweep=none, mass=none)[0] == START_SECONDS
    assert peak > JOB_BASE_BYTES + 8 * 32 * 64 * 256 * 2


def test_frontier_plan_walks_each_budget_to_its_planned_d():
    from cases import SA_FRONTIER

    from expressivity.experiments.sparse_approximation import cost
    from expressivity.experiments.sparse_approximation.cost import frontier_cost
    from expressivity.optimised_inputs import BATCH_BYTES

    s = {key: SA_FRONTIER[key] for key in ("budgets", "criteria", "trials", "restarts", "d_start",
                                           "d_max", "resolution", "coarse", "steps", "patience",
                                           "check_every")}
    one, peak = frontier_cost(n=[32], k=1, **s)
    start = frontier_cost(n=[], k=1, **s)[0]
    # attempts stop at their plateau: longer plateaus cost more, up to all the steps
    longer, _ = frontier_cost(n=[32], k=1, **{**s, "patience": 2 * s["patience"]})
    assert one < longer
    assert frontier_cost(n=[32], k=1, **{**s, "patience": 10**6})[0] == pytest.approx(
        frontier_cost(n=[32], k=1, **{**s, "patience": 10**6, "steps": s["steps"]})[0])
    # a larger batch costs more, but less than running its problems one by one
    double, _ = frontier_cost(n=[32], k=1, **{**s, "trials": 2 * s["trials"]})
    assert one < double < 2 * one - start
    # a smaller budget needs a larger d: a longer walk
    assert frontier_cost(n=[32], k=1, **{**s, "budgets": [min(s["budgets"]) / 1.5]})[0] > \
        frontier_cost(n=[32], k=1, **{**s, "budgets": [min(s["budgets"])]})[0]
    assert frontier_cost(n=[16, 32], k=1, **s)[0] > one and peak >= 450 * 2**20
    assert cost.BATCH_BYTES == BATCH_BYTES  # restated without torch: must stay equal


def test_unbounded_plan_grows_with_the_moment_curves():
    from expressivity.experiments.sparse_approximation.cost import unbounded_cost

    s = {"k": [1, 2], "trials": 1, "criteria": ["per-entry"]}
    base = unbounded_cost(n=[64], moment_k=[], **s)[0]
    assert unbounded_cost(n=[64], moment_k=[2], **s)[0] > base
    assert unbounded_cost(n=[128], moment_k=[2], **s)[0] > unbounded_cost(n=[64], moment_k=[2],
                                                                           **s)[0]
