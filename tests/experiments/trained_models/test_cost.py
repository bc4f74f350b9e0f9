"""The trained-models cost model (expressivity.experiments.trained_models.cost)."""

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
    assert widest[0] < 24 * 3600


def test_the_evaluation_chunk_is_the_training_loops():
    from expressivity import training

    assert cost.EVAL_CHUNK == training.EVAL_CHUNK
