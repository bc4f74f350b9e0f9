"""Training speed of the trained-models stage: steps per second on CPU (and on a GPU if present).

Prints, for each workload, steps/s on one CPU thread, on all CPU threads, and on CUDA when torch
sees a GPU, with the ratio to the one-thread CPU reference measured in the same run. Nothing is
asserted. Run: ``.venv/bin/python benchmarks/trained_models.py [--steps 50]``.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
import torch

from expressivity.datasets import token_separated_dataset
from expressivity.sparse_patterns import pattern_masks
from expressivity.training import configure_torch, device_name, memorize, train_encoder


def _memorize(device, steps):
    ds = token_separated_dataset(np.random.default_rng(0), 256, 32, 6, 100, 2)
    t = time.perf_counter()
    memorize(ds, width=256, epochs=steps, lr=0.02, seed=0, stop_at_perfect=False,
             record_every=steps, device=device)
    return steps / (time.perf_counter() - t)


def _copy(device, steps):
    rng = np.random.default_rng(0)
    masks = pattern_masks("strided", 32)
    t = time.perf_counter()
    train_encoder(rng, task="copy", n=32, vocab=16, mixers=["attention"] * 4,
                  masks=[masks[i % 2] for i in range(4)], d_model=64, steps=steps, batch=32,
                  lr=0.003, eval_size=32, record_every=steps, device=device)
    return steps / (time.perf_counter() - t)


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
    for name, work in (("memorization (N=100, n=6, q=256, full batch)", _memorize),
                       ("copy, STRIDED depth 4 (d_model 64, batch 32)", _copy)):
        ref = None
        for label, threads, dev in settings:
            device = configure_torch(threads, dev)
            rate = work(device, args.steps)
            ref = ref or rate
            print(f"{name:48s} {label:16s} {device_name(device):24s} {rate:9.1f} steps/s "
                  f"({rate / ref:.2f} x 1-thread CPU)")


if __name__ == "__main__":
    main()
