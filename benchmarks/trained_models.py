"""Training speed of the trained-models stage: steps per second on CPU (and on a GPU if present).

Prints, for two workloads at the default config's sizes (``config/config.yaml``): a memorization
arm with its seeds side by side (uniform attention, which never stops early at 100 %), and the
copy task with the STRIDED pattern at depth 4, its seeds side by side. For each: steps/s on one
CPU thread, on all CPU threads, and on CUDA when torch sees a GPU, with the ratio to the
one-thread CPU reference measured in the same run and the rate the cost model assumes
(``expressivity.experiments.trained_models.cost``), so a reader sees whether the planner's
constants still hold. Then the seconds each job of the stage takes on the cases of
``config/ci.yaml`` (``tests/cases.py``). Everything runs through the functions the workflow scripts
call. Nothing is asserted. Run: ``.venv/bin/python benchmarks/trained_models.py [--steps 200]``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import torch
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from cases import (
    TM_COPY,
    TM_HEADS,
    TM_HEADS_RUN,
    TM_MEMORIZATION,
    TM_MIXERS,
    TM_RUN,
    TM_WIDTH,
    TM_WIDTH_N,
)

from expressivity.experiments.trained_models.cost import (
    START_SECONDS,
    copy_cost,
    memorization_cost,
)
from expressivity.experiments.trained_models.encoders import copy_rows, mixers_rows
from expressivity.experiments.trained_models.memorization import (
    heads_rows,
    memorization_rows,
)
from expressivity.experiments.trained_models.width import width_rows

#: The default run's settings (config/config.yaml), at which the throughput is measured.
DEFAULT = yaml.safe_load((Path(__file__).parents[1] / "config/config.yaml").read_text())[
    "trained_models"]
#: Run every step of the budget: no plateau (a window longer than the budget).
NO_STOP = {"window": 10**6}


def timed(fn, **kwargs):
    start = time.perf_counter()
    out = fn(**kwargs)
    return out, time.perf_counter() - start


def memorization_rate(steps: int, **run) -> tuple[float, float, str]:
    """Full-batch epochs per second of a memorization arm (all seeds side by side; uniform
    attention: no run stops at 100 %) and the cost model's prediction."""
    settings = {**DEFAULT["memorization"], "lr": DEFAULT["memorization"]["lr"][:1],
                "budget": steps, "record_every": steps}
    (_, rows), seconds = timed(memorization_rows, arm="uniform", seeds=DEFAULT["seeds"], **run,
                               min_gain=DEFAULT["min_gain"], **{**settings, **NO_STOP})
    predicted = memorization_cost(seeds=DEFAULT["seeds"], **{
        k: settings[k] for k in ("vocab_size", "d", "n", "n_classes", "N", "width", "lr",
                                 "budget")})[0] - START_SECONDS
    return (steps + 1) / seconds, (steps + 1) / predicted, rows[0]["device"]


def copy_rate(steps: int, **run) -> tuple[float, float, str]:
    """Adam steps per second of the copy job (STRIDED, depth 4, all seeds side by side)."""
    settings = {k: v for k, v in DEFAULT["copy"].items() if k not in ("patterns", "depths")}
    settings.update(lr=settings["lr"][:1], budget=steps, every=steps, **NO_STOP)
    rows, seconds = timed(copy_rows, pattern="strided", depth=4, seeds=DEFAULT["seeds"], **run,
                          **settings, min_gain=DEFAULT["min_gain"])
    predicted = copy_cost(depth=4, seeds=DEFAULT["seeds"], **{
        k: settings[k] for k in ("n", "vocab", "d_model", "heads", "lr", "batch", "budget",
                                 "every", "window", "eval_size")})[0] - START_SECONDS
    return steps / seconds, steps / predicted, rows[0]["device"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200, help="steps per measurement")
    args = parser.parse_args()
    settings = [("cpu, 1 thread", 1, "cpu"), (f"cpu, {os.cpu_count()} threads", os.cpu_count(),
                                              "cpu")]
    if torch.cuda.is_available():
        settings.append(("cuda", 1, "cuda"))
    print(f"torch {torch.__version__}; load average {os.getloadavg()[0]:.2f} "
          f"(the machine may be shared: compare ratios, not absolute numbers)")
    mem, copy = DEFAULT["memorization"], DEFAULT["copy"]
    for name, work in ((f"memorization ({DEFAULT['seeds']} seeds, N={mem['N']}, n={mem['n']}, "
                        f"q={mem['width']})", memorization_rate),
                       (f"copy, STRIDED depth 4 ({DEFAULT['seeds']} seeds, d_model "
                        f"{copy['d_model']}, batch {copy['batch']})", copy_rate)):
        ref = None
        for label, threads, dev in settings:
            rate, planned, device = work(args.steps, seed=TM_RUN["seed"], threads=threads,
                                         device=dev)
            ref = ref or rate
            print(f"{name:56s} {label:16s} {device:24s} {rate:8.1f} steps/s "
                  f"({rate / ref:.2f} x 1-thread CPU; cost model {planned:.1f} steps/s)")
    print(f"\nconfig/ci.yaml jobs ({TM_RUN['device']}, {TM_RUN['threads']} thread(s)):")
    h, s = TM_HEADS[0]
    jobs = [(f"memorize {arm}", memorization_rows, dict(arm=arm, **TM_MEMORIZATION))
            for arm in ("softmax", "fixed", "uniform", "hardmax", "no_attention")]
    jobs += [(f"heads h={h} s={s}", heads_rows, dict(heads=h, size=s, **TM_HEADS_RUN)),
             (f"width N={TM_WIDTH_N[0]}", width_rows, dict(N=TM_WIDTH_N[0], **TM_WIDTH)),
             ("copy dense L=2", copy_rows, dict(pattern="dense", depth=2, **TM_COPY)),
             ("mixers conv k=0", mixers_rows, dict(alternative="conv", k=0, **TM_MIXERS))]
    for name, fn, kwargs in jobs:
        print(f"  {name:24s} {timed(fn, **kwargs)[1]:6.2f} s")


if __name__ == "__main__":
    main()
