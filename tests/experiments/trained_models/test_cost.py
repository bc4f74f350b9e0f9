"""The trained-models cost model (expressivity.experiments.trained_models.cost)."""

import pytest
import yaml
from cases import ROOT

from expressivity.experiments.trained_models import cost


def test_costs_grow_with_the_budget_and_stay_under_the_paper_cap():
    """The planner's (seconds, bytes) grow with the work; every job of config/paper.yaml stays
    under the SLURM profile's one-day cap."""
    short = cost.copy_cost(depth=4, seeds=3, n=16, vocab=8, d_model=32, heads=2, lr=[0.003],
                           batch=32, budget=100, every=50, window=100, min_gain=0.01,
                           eval_size=256)
    long = cost.copy_cost(depth=4, seeds=3, n=16, vocab=8, d_model=32, heads=2, lr=[0.003, 0.01],
                          batch=32, budget=1000, every=50, window=100, min_gain=0.01,
                          eval_size=256)
    assert long[0] > 10 * (short[0] - cost.START_SECONDS) and long[1] >= short[1]
    paper = yaml.safe_load((ROOT / "config/paper.yaml").read_text())["trained_models"]
    m, w = paper["memorization"], paper["width_search"]
    data = {k: m[k] for k in ("vocab_size", "d", "n", "n_classes")}
    widest = cost.width_cost(N=max(w["N"]), seeds=paper["seeds"], **data, widths=w["widths"],
                             lr=w["lr"], budget=w["budget"], window=w["window"],
                             min_gain=w["min_gain"], every=w["every"])
    assert 1.5 * widest.whole[0] < 24 * 3600  # its runtime covers its whole budget


def test_a_training_is_planned_at_its_share_and_asked_for_its_whole_budget():
    """A job's prediction counts the share of its budget its kind used (``BUDGET_USED``); its
    ``whole`` is the same job at its whole budget, on each device, with the same start and the
    work before the steps (the capacity experiment's dataset): what a runtime must cover."""
    rates = {"encoder_layer_step_s": 5e-3, "minibatch_step_s": 2e-4, "gpu_job_start_s": 10.0}
    hybrid = cost.hybrid_cost(task="recall", seeds=5, n=16, count_n=8, vocab=8, d_model=32,
                              heads=2, lr=[0.003], batch=32, budget=16000, every=50, window=5800,
                              min_gain=0.01, eval_size=256, depth=4, rates=rates)
    used = cost.BUDGET_USED["hybrid"]
    assert hybrid.whole[0] - cost.START_SECONDS == pytest.approx(
        (hybrid.seconds - cost.START_SECONDS) / used)
    assert hybrid.whole[1] - 10.0 == pytest.approx((hybrid.gpu - 10.0) / used)
    cap = dict(arm="sgd", N=64, seeds=5, d=16, n=8, V=200, widths=[2, 8], control_widths=[8],
               widths_side_by_side=True, batch=8, lr=[0.1], adam_lr=[0.01], budget=9000,
               every=20)
    planned, whole = cost.capacity_cost(**cap), cost.capacity_cost(**cap).whole
    dataset = 0.01 * 200 * 16 / 1000
    assert whole[1] is None and planned.gpu is None
    assert whole[0] - dataset - cost.START_SECONDS == pytest.approx(
        (planned.seconds - dataset - cost.START_SECONDS) / cost.BUDGET_USED["capacity"])


def test_the_evaluation_chunk_is_the_training_loops():
    from expressivity import training

    assert cost.EVAL_CHUNK == training.EVAL_CHUNK


def test_a_grid_of_rates_side_by_side_costs_one_rates_steps_on_a_gpu():
    """The encoders and the capacity experiment train a grid's rates side by side: on a GPU
    (launch-bound steps) three rates cost one rate's steps; on a core they share each step's
    overhead, so they cost less than three jobs, more than one."""
    rates = {"encoder_layer_step_s": 5e-3, "minibatch_step_s": 2e-4, "gpu_job_start_s": 10.0}
    copy = dict(depth=4, seeds=16, n=32, vocab=16, d_model=64, heads=2, batch=32, budget=1000,
                every=50, window=100, min_gain=0.01, eval_size=512, rates=rates)
    one, three = (cost.copy_cost(lr=lr, **copy) for lr in ([0.003], [0.001, 0.003, 0.01]))
    assert three[2] == one[2]
    assert one[0] < three[0] < 3 * one[0] and three[1] > one[1]
    cap = dict(arm="sgd", N=256, seeds=16, d=32, n=8, V=1000, widths=[16, 64],
               control_widths=[64], widths_side_by_side=False, batch=32, adam_lr=[0.01],
               budget=1000, every=100, rates=rates)
    one, three = (cost.capacity_cost(lr=lr, **cap) for lr in ([0.1], [0.03, 0.1, 0.3]))
    assert three[2] == one[2] and one[0] < three[0] < 3 * one[0]
    # the widths side by side: one training on the GPU (half the launches of two), and on a core
    # less than the two apart while a step costs its overhead (a small model), more when the
    # padding's products dominate (widths 16 and 4096)
    small = {**cap, "N": 32, "seeds": 5, "d": 16, "widths": [2, 8, 64], "batch": 8}
    apart, side = (cost.capacity_cost(lr=[0.1], **{**small, "widths_side_by_side": s})
                   for s in (False, True))
    assert side[2] < apart[2] and side[0] < apart[0]
    wide = {**cap, "widths": [16, 4096], "N": 14000}
    apart, padded = (cost.capacity_cost(lr=[0.1], **{**wide, "widths_side_by_side": s})
                     for s in (False, True))
    assert padded[0] > apart[0]


def test_a_copy_cell_its_masks_cannot_route_is_planned_to_its_plateau():
    """A copy-table cell below full reach (STRIDED at depth 1: no source reaches its copy) cannot
    stop at the target: planned at ``PLATEAU_WINDOWS`` windows of its steps, at most the budget;
    a cell that can (depth 2) as ``copy_cost`` plans it, at the share of its budget the default's
    copying cells used."""
    cell = dict(seeds=5, n=16, vocab=8, d_model=32, heads=2, lr=[0.003], batch=32, every=50,
                window=2500, min_gain=0.01, eval_size=512)

    def work(seconds):  # the job's steps, as a share of its whole budget's
        return (seconds - cost.START_SECONDS) / cost.BUDGET_USED["copy"]

    for budget, share in ((7500, cost.PLATEAU_WINDOWS * 2500 / 7500), (5000, 1.0)):
        below = cost.copy_cell_cost(pattern="strided", depth=1, seed=7, budget=budget, **cell)
        whole = work(cost.copy_cost(depth=1, budget=budget, **cell)[0])
        assert abs(below[0] - cost.START_SECONDS - share * whole) < 1e-9
    reachable = cost.copy_cell_cost(pattern="strided", depth=2, seed=7, budget=7500, **cell)
    assert reachable == cost.copy_cost(depth=2, budget=7500, **cell)
