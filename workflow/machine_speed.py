"""How fast this machine runs the workflow's jobs, as a factor against the machine the cost models
were fitted on.

The cost models (``common.smk``, ``job_resources``) predict seconds on one core of one machine, the
*reference*: the 2-CPU x86_64 machine of the committed records ``config-2026-11-27b.csv``, which
their constants were fitted on. Another machine runs the same jobs faster or slower by roughly one
factor, its *speed* (2 = twice as fast); ``make plan`` divides its predictions for this machine by
it, and a record of a run (``plan.write_record``) carries the speed of the machine it ran on, so
that records from any machine check the same cost models.

``calibrate`` times, on one thread and in CPU time (so other work on the machine does not count),
one small fixed workload per kind of work the jobs do:

* ``torch``: Adam steps of a small encoder layer (the trained models: many small operators);
* ``numpy``: float64 products (the sparse search and the constructions' linear algebra);
* ``python``: the interpreter alone (mpmath, gathering tables, Snakemake's own work).

The speed is the geometric mean over the three of the reference's seconds over this machine's. It
is measured once per machine and library versions (about 4 s, most of it importing torch) and
cached in ``~/.cache/expressivity/machine-speed.json`` (under ``$XDG_CACHE_HOME`` if set);
``EXPRESSIVITY_SPEED`` overrides it (a cluster whose nodes differ from the machine that plans).

The reference machine was no longer available when this calibration was written, so its seconds
are those measured on the next machine (AMD EPYC, 2 CPUs, AVX-512 kernels; 2026-11-27) times the
median ratio of the two machines' CPU seconds over the 117 jobs both recorded with at least 0.5 s
whose code and config did not change between the two runs (``config-2026-11-27b.csv`` of eeb1d4f
against ``config-2026-11-27c.csv`` of 3aac530, without ``tm_width``, ``tm_capacity``, ``tm_copy``
and ``ua_approximation``): 2.0 (total over total 1.96). On the jobs, the speed is an estimate of
that size (per stage the ratio's median ran from 1.9 to 2.4). The tests recompute the ratio from
the two records (``test_machine_speed.py``) and hold the cost models to the latest record at its
machine's speed (``test_plan.py``).
"""

from __future__ import annotations

import json
import math
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

#: Per machine, not per clone: the user's cache folder.
CACHE = (Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "expressivity"
         / "machine-speed.json")

#: CPU seconds per workload on the AMD EPYC machine (2026-11-27; the fastest of three repeats,
#: three calibrations averaged).
MEASURED_SECONDS = {"torch": 0.2005, "numpy": 0.097, "python": 0.0965}
#: The reference machine's job seconds over those of the AMD EPYC machine: the median over the
#: jobs of both committed records that ran unchanged (``RECORDS_RATIO_SOURCE``; the module
#: docstring; ``tests/workflow/test_machine_speed.py`` recomputes it from the records).
RECORDS_RATIO = 2.0
RECORDS_RATIO_SOURCE = {"reference": "config-2026-11-27b.csv", "measured": "config-2026-11-27c.csv",
                        "changed_rules": ("tm_width", "tm_capacity", "tm_copy", "ua_approximation"),
                        "min_cpu_s": 0.5}
#: The reference machine's CPU seconds per workload.
REFERENCE_SECONDS = {name: RECORDS_RATIO * s for name, s in MEASURED_SECONDS.items()}


def machine() -> str:
    """The CPU model and the number of CPUs this process may use."""
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    usable = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else range(os.cpu_count())
    return f"{model}, {len(usable)} CPUs"


def _torch_steps() -> None:
    import torch

    gen = torch.Generator().manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(32, 4, 64, dropout=0.0, batch_first=True)
    optimiser = torch.optim.Adam(layer.parameters(), lr=1e-3)
    x = torch.randn(16, 16, 32, generator=gen)
    for _ in range(200):
        optimiser.zero_grad()
        layer(x).square().mean().backward()
        optimiser.step()


def _numpy_products() -> None:
    import numpy as np

    a = np.random.default_rng(0).standard_normal((256, 256))
    for _ in range(160):
        a = a @ a
        a /= np.abs(a).max()


def _python_loop() -> None:
    table: dict[int, int] = {}
    for i in range(1_000_000):
        table[i % 1013] = table.get(i % 1013, 0) + i * i % 7


#: The thread counts of OpenMP, the BLAS libraries and torch's intra-op pool.
THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")

WORKLOADS = {"torch": _torch_steps, "numpy": _numpy_products, "python": _python_loop}


def _measure(repeats: int) -> dict[str, float]:
    seconds = {}
    for name, work in WORKLOADS.items():
        times = []
        for _ in range(repeats):
            start = time.process_time()
            work()
            times.append(time.process_time() - start)
        seconds[name] = min(times)
    return seconds


def calibrate(repeats: int = 3) -> dict[str, float]:
    """CPU seconds of each workload on one thread (the fastest of ``repeats``), measured in a new
    process whose BLAS and torch are limited to one thread before they load."""
    env = {**os.environ, **{name: "1" for name in THREAD_VARIABLES}}
    done = subprocess.run([sys.executable, __file__, str(repeats)], env=env, capture_output=True,
                          text=True)
    if done.returncode:
        raise RuntimeError(f"the speed calibration failed ({Path(__file__).name}):\n"
                           f"{done.stderr.strip()}")
    return json.loads(done.stdout)


def speed_of(seconds: dict[str, float]) -> float:
    """Geometric mean over the workloads of the reference's seconds over ``seconds``."""
    logs = [math.log(REFERENCE_SECONDS[name] / seconds[name]) for name in WORKLOADS]
    return math.exp(sum(logs) / len(logs))


def _key() -> str:
    from importlib.metadata import version  # the versions without importing torch

    return f"{machine()}; torch {version('torch')}; numpy {version('numpy')}"


def speed(cache: Path = CACHE) -> float:
    """This machine's speed against the reference: ``EXPRESSIVITY_SPEED`` if set, else the cached
    calibration of this machine and these library versions, else a new one (cached)."""
    override = os.environ.get("EXPRESSIVITY_SPEED")
    if override is not None:
        try:
            value = float(override)
        except ValueError:
            value = math.nan
        if not value > 0:
            raise ValueError(f"EXPRESSIVITY_SPEED must be a positive number, got {override!r}")
        return value
    try:
        known = json.loads(cache.read_text())
    except (OSError, ValueError):  # none yet, or unreadable: measured again
        known = {}
    key = _key()
    if key not in known:
        known[key] = calibrate()
        try:  # written whole or not at all; a read-only home only loses the cache
            cache.parent.mkdir(parents=True, exist_ok=True)
            part = cache.with_suffix(f".{os.getpid()}")
            part.write_text(json.dumps(known, indent=1, sort_keys=True) + "\n")
            part.replace(cache)
        except OSError:
            pass
    return speed_of(known[key])


if __name__ == "__main__":
    print(json.dumps(_measure(int(sys.argv[1]))))
