"""Training speed of the trained-models stage: steps per second on CPU (and on a GPU if present).

Prints, for two workloads at the default config's sizes (``config/config.yaml``: the memorization
run, and the copy task with the STRIDED pattern at depth 4), steps/s on one CPU thread, on all CPU
threads, and on CUDA when torch sees a GPU, with the ratio to the one-thread CPU reference measured
in the same run; then the seconds each job of the stage takes on the cases of ``config/ci.yaml``
(``tests/cases.py``). Everything runs through the functions the workflow scripts call
(``expressivity.experiments.trained_models``). Nothing is asserted. Run:
``.venv/bin/python benchmarks/trained_models.py [--steps 50]``.
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

from cases import (  # noqa: E402
    TM_COPY,
    TM_HEADS,
    TM_MEMORIZATION,
    TM_MIXERS,
    TM_RUN,
    TM_WIDTH,
    TM_WIDTH_N,
)

from expressivity.experiments.trained_models import (  # noqa: E402
    copy_rows,
    heads_rows,
    memorization_rows,
    mixers_rows,
    width_rows,
)

#: The default run's settings (config/config.yaml), at which the throughput is measured.
DEFAULT = yaml.safe_load((Path(__file__).parents[1] / "config/config.yaml").read_text())[
    "trained_models"]


def timed(fn, **kwargs):
    start = time.perf_counter()
    out = fn(**kwargs)
    return out, time.perf_counter() - start


def memorization_rate(steps: int, **run) -> tuple[float, str]:
    """Full-batch Adam epochs per second of the ``learned`` memorization job."""
    (_, [row]), seconds = timed(memorization_rows, variant="learned", **run,
                                **{**DEFAULT["memorization"], "epochs": steps,
                                   "record_every": steps})
    ran = steps if row["epochs_to_perfect"] is None else row["epochs_to_perfect"]
    return ran / seconds, row["device"]


def copy_rate(steps: int, **run) -> tuple[float, str]:
    """Adam steps per second of the copy job (STRIDED, depth 4)."""
    settings = {k: v for k, v in DEFAULT["copy"].items() if k not in ("patterns", "depths")}
    [row], seconds = timed(copy_rows, pattern="strided", depth=4, **run,
                           **{**settings, "steps": steps, "record_every": steps})
    return steps / seconds, row["device"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=50, help="steps per measurement")
    args = parser.parse_args()
    settings = [("cpu, 1 thread", 1, "cpu"), (f"cpu, {os.cpu_count()} threads", os.cpu_count(),
                                              "cpu")]
    if torch.cuda.is_available():
        settings.append(("cuda", 1, "cuda"))
    print(f"torch {torch.__version__}; load average {os.getloadavg()[0]:.2f} "
          f"(the machine may be shared: compare ratios, not absolute numbers)")
    mem = DEFAULT["memorization"]
    copy = DEFAULT["copy"]
    for name, work in ((f"memorization (N={mem['N']}, n={mem['n']}, q={mem['width']}, full "
                        "batch)", memorization_rate),
                       (f"copy, STRIDED depth 4 (d_model {copy['d_model']}, batch "
                        f"{copy['batch']})", copy_rate)):
        ref = None
        for label, threads, dev in settings:
            rate, device = work(args.steps, seed=TM_RUN["seed"], threads=threads, device=dev)
            ref = ref or rate
            print(f"{name:48s} {label:16s} {device:24s} {rate:9.1f} steps/s "
                  f"({rate / ref:.2f} x 1-thread CPU)")
    print(f"\nconfig/ci.yaml jobs ({TM_RUN['device']}, {TM_RUN['threads']} thread(s)):")
    h, s = TM_HEADS[0]
    jobs = [(f"memorize {v}", memorization_rows, dict(variant=v, **TM_MEMORIZATION))
            for v in ("learned", "fixed", "no_attention")]
    jobs += [(f"heads h={h} s={s}", heads_rows, dict(heads=h, size=s, **TM_MEMORIZATION)),
             (f"width N={TM_WIDTH_N[0]}", width_rows, dict(N=TM_WIDTH_N[0], **TM_WIDTH)),
             ("copy dense L=2", copy_rows, dict(pattern="dense", depth=2, **TM_COPY)),
             ("mixers conv k=0", mixers_rows, dict(alternative="conv", k=0, **TM_MIXERS))]
    for name, fn, kwargs in jobs:
        print(f"  {name:24s} {timed(fn, **kwargs)[1]:6.2f} s")


if __name__ == "__main__":
    main()
