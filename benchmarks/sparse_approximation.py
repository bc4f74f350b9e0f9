"""Speed of the one-pass d_min search (sparse_approximation stage); ratios are reported, not asserted.

    .venv/bin/python benchmarks/sparse_approximation.py [--n 4096] [--k 1] [--threads 1 2] [--big]
        [--skip-cpu | --numpy-only] [--repeats 3] [--json FILE]

Prints, measured in the same run:
* kernel: the one-pass search as the workflow runs it (the mass rows tracked at every grid point,
  the others pruned) at its achieved GFLOP/s (2 n^2 d_max flops of logits) against a plain numpy
  matmul of the same shape, (n x d_max) @ (d_max x n) (goal in issue 29: at least 0.7x at every
  BLAS thread count; ``--threads`` repeats it in a fresh process per count), and against the same
  product by scipy's dgemm, the BLAS the search's products use (numpy and scipy ship their own
  OpenBLAS builds: where only numpy's uses the threads, the search cannot), with each library's
  BLAS (name, version) and, where threadpoolctl is installed, its thread count;
* end to end, from the target to d_min, both drawing their own factors: ``search_d_min`` as the
  workflow runs it (initial horizon, extensions) against a naive bisection that recomputes the full
  logits for each probe, over the same candidate grid from d_start up to the JL bound (*), the only
  d known a priori to work (goal: at least 5x at n = 4096). For transparency it also prints the
  bisection given the one-pass search's final horizon as its bracket (an oracle the naive method
  would not have), and whether the bisection finds the same d (success is not monotone in d);
* the torch search (``torch_search``) on the CPU, and on the GPU when torch sees one, against the
  same plain product on that device (the issue's goal on a GPU: at least 50% of the fp64 product
  rate at n >= 2^14), with the d_min each finds and the grid points checked per row block;
* with --big, the wall time of one full n = 2^14, k = 1 trial (goal: under 2 minutes).
BLAS threads follow OPENBLAS_NUM_THREADS (set it to 1 to compare with one Snakemake job).
``--skip-cpu`` leaves out the numpy kernel, the end-to-end comparison (minutes at n >= 2^14 on
one core) and, where torch sees a GPU, the torch search on the CPU; ``--numpy-only`` runs the numpy
kernel alone (the threads' scaling); ``--json`` writes the kernel measurements
(``benchmarks/device_check.sh`` keeps them).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import yaml
from scipy.linalg.blas import dgemm

from expressivity.approximation_check import logit_values
from expressivity.attention_mass import sample_rows
from expressivity.d_min_search import search_d_min
from expressivity.experiments.sparse_approximation.searches import sweep_table
from expressivity.fixed_module import coupled_factors
from expressivity.one_pass_search import d_grid, one_pass_search
from expressivity.random_projection import jl_dimension
from expressivity.reference.sparse_approximation import binary_search
from expressivity.rng import generator
from expressivity.sparse_target import make_target
from expressivity.torch_search import one_pass_search_torch

#: The default run's settings (config/config.yaml), at which the README reports these ratios.
DEFAULT = yaml.safe_load((Path(__file__).parents[1] / "config/config.yaml").read_text())[
    "sparse_approximation"]
SEARCH = DEFAULT["search"]
EPS_R, EPS_Z, R, DELTA = (DEFAULT[key] for key in ("eps_ratio", "eps_zero", "R", "delta"))


def timed(fn, *args, **kwargs):
    start = time.perf_counter()
    out = fn(*args, **kwargs)
    return out, time.perf_counter() - start


def fastest(repeats: int, fn, *args, **kwargs):
    """``fn``'s output and its least wall time over ``repeats`` calls (after one untimed call
    that starts BLAS's threads): on a machine shared with other work, the closest to its speed
    alone."""
    fn(*args, **kwargs)
    runs = [timed(fn, *args, **kwargs) for _ in range(repeats)]
    return runs[-1][0], min(t for _, t in runs)


def blas_libraries() -> dict:
    """numpy's and scipy's BLAS (name and version, from their build configuration) and, where
    threadpoolctl is installed (it is not a dependency), the threads each loaded BLAS will use."""
    import scipy

    found = {lib.__name__: "{name} {version}".format(**lib.show_config(mode="dicts")[
        "Build Dependencies"]["blas"]) for lib in (np, scipy)}
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return found
    for pool in threadpool_info():
        if pool["user_api"] == "blas":
            found[Path(pool["filepath"]).name] = f"{pool['num_threads']} threads"
    return found


def kernel(target, QT, KT, grid, skip_cpu: bool, numpy_only: bool = False,
           repeats: int = 1) -> list[dict]:
    """The one-pass search over a fixed grid (the mass rows tracked, as in the workflow) against a
    plain matmul of the same shape: numpy on the CPU (unless ``skip_cpu``; each the fastest of
    ``repeats`` timed calls), then torch on each device (unless ``numpy_only``; the GPU alone with
    ``skip_cpu`` where there is one)."""
    n, d_top = target.n, int(grid[-1])
    flops = 2.0 * n * n * d_top
    rows = sample_rows(n, DEFAULT["mass_rows"])
    print(f"kernel, grid of {len(grid)} d up to {d_top}, {len(rows)} tracked rows:")
    found = []
    if not skip_cpu:
        threads = int(os.environ.get("OPENBLAS_NUM_THREADS", os.cpu_count()))
        res, t_pass = fastest(repeats, one_pass_search, target, QT, KT, grid, EPS_R, EPS_Z,
                              SEARCH["block"], tracked=rows, threads=threads)
        Q, K = np.ascontiguousarray(QT[:d_top].T), np.ascontiguousarray(KT[:d_top].T)
        _, t_plain = fastest(repeats, np.matmul, Q, K.T)
        _, t_scipy = fastest(repeats, dgemm, 1.0, Q, K.T)
        blas = blas_libraries()
        print(f"  one-pass search : {t_pass:8.2f} s  {flops / t_pass / 1e9:7.1f} GFLOP/s "
              f"({res.meta['checks']} grid points checked over all row blocks)")
        print(f"  plain matmul    : {t_plain:8.2f} s  {flops / t_plain / 1e9:7.1f} GFLOP/s "
              f"(({n} x {d_top}) @ ({d_top} x {n}))")
        print(f"  plain scipy dgemm: {t_scipy:7.2f} s  {flops / t_scipy / 1e9:7.1f} GFLOP/s (the "
              f"same product by the BLAS of the search's products)")
        print(f"  BLAS: {'; '.join(f'{lib}: {what}' for lib, what in blas.items())}")
        print(f"  ratio search / plain matmul GFLOP/s: {t_plain / t_pass:.2f} at {threads} "
              f"threads (BLAS and the checks; goal >= 0.7; fastest of {repeats}, load "
              f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs); against scipy's dgemm "
              f"{t_scipy / t_pass:.2f}")
        found.append({"device": "cpu", "path": "numpy", "threads": threads, "n": n,
                      "search_s": t_pass, "plain_s": t_plain, "plain_scipy_s": t_scipy,
                      "flops": flops, "d_min": res.d_min, "blas": blas})
    if numpy_only:
        return found
    return found + torch_kernel(target, QT, KT, grid, rows, flops, skip_cpu)


def torch_kernel(target, QT, KT, grid, rows, flops: float, skip_cpu: bool) -> list[dict]:
    """The torch search on the CPU and, when torch sees one, on the GPU (there alone with
    ``skip_cpu``), against a plain product of the same shape on that device."""
    import torch

    found = []
    devices = ["cuda"] if torch.cuda.is_available() else []
    if not (skip_cpu and devices):
        devices.insert(0, "cpu")
    for device in devices:
        # warm up (the first call imports and configures torch's deterministic mode)
        one_pass_search_torch(target, QT, KT, grid[:1], EPS_R, EPS_Z, SEARCH["block"],
                              device=device)
        res, t_search = timed(one_pass_search_torch, target, QT, KT, grid, EPS_R, EPS_Z,
                              SEARCH["block"], device=device, tracked=rows)
        d_top = int(grid[-1])
        Q = torch.from_numpy(QT[:d_top].T.copy()).to(device)
        K = torch.from_numpy(KT[:d_top].copy()).to(device)
        Q @ K  # warm up (cuBLAS handles, workspace)
        if device == "cuda":
            torch.cuda.synchronize()
        start = time.perf_counter()
        Q @ K
        if device == "cuda":
            torch.cuda.synchronize()
        t_plain = time.perf_counter() - start
        name = torch.cuda.get_device_name() if device == "cuda" else "cpu"
        print(f"  torch search on {name}: {t_search:8.2f} s  {flops / t_search / 1e9:7.1f} GFLOP/s"
              f" (d_min {res.d_min:g}, {res.meta['checks']} grid points checked); plain torch "
              f"product {flops / t_plain / 1e9:7.1f} GFLOP/s; ratio {t_plain / t_search:.2f}"
              + ("  (goal >= 0.5 at n >= 2^14)" if device == "cuda" else ""))
        found.append({"device": name, "path": "torch", "threads": torch.get_num_threads(),
                      "n": target.n, "search_s": t_search, "plain_s": t_plain, "flops": flops,
                      "d_min": res.d_min})
    return found


def bisection(target, rng, d_top: int) -> tuple[float, int]:
    """Naive: factors up to d_top, then bisection over the grid up to d_top."""
    grid = d_grid(SEARCH["d_start"], d_top, SEARCH["resolution"], SEARCH["min_step"])
    QT, KT = coupled_factors(target, logit_values(target, EPS_R, EPS_Z), rng, int(grid[-1]))
    return binary_search(target, QT, KT, grid, EPS_R, EPS_Z, SEARCH["block"])


def end_to_end(target, rng, d_jl: int) -> None:
    state = rng.bit_generator.state
    d_max = max(SEARCH["d_start"], math.ceil(SEARCH["horizon_fraction"] * d_jl))
    keys = ("d_start", "resolution", "min_step", "horizon_factor", "max_extensions", "block")
    res, t_search = timed(search_d_min, target, rng, EPS_R, EPS_Z, d_max,
                          tracked=sample_rows(target.n, DEFAULT["mass_rows"]),
                          **{key: SEARCH[key] for key in keys})
    print(f"end to end: d_min = {res.d_min:g} (d_stable = {res.d_stable:g}, final horizon "
          f"{res.grid[-1]}, {res.extensions} extensions)")
    print(f"  one-pass search_d_min        : {t_search:8.2f} s")
    for label, d_top in (("bisection up to d_JL", d_jl), ("bisection, oracle horizon", res.grid[-1])):
        rng.bit_generator.state = state  # the same G
        (d_bin, probes), t_bin = timed(bisection, target, rng, int(d_top))
        same = "same d" if d_bin == res.d_min else "a DIFFERENT d (success is not monotone in d)"
        print(f"  {label:29s}: {t_bin:8.2f} s  ({probes} probes up to d = {d_top}; {same}); "
              f"speed-up {t_bin / t_search:.2f}x" + ("  (goal >= 5x)" if d_top == d_jl else ""))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=4096)
    ap.add_argument("--k", type=int, default=1)
    ap.add_argument("--threads", type=int, nargs="*", default=None,
                    help="repeat the numpy kernel at these BLAS thread counts (fresh processes)")
    ap.add_argument("--big", action="store_true", help="also time one n = 16384, k = 1 trial")
    cpu = ap.add_mutually_exclusive_group()
    cpu.add_argument("--skip-cpu", action="store_true",
                     help="leave out the numpy kernel, the end-to-end comparison and, where there "
                          "is a GPU, the torch search on the CPU")
    cpu.add_argument("--numpy-only", action="store_true",
                     help="the numpy kernel alone (no torch, no end-to-end comparison)")
    ap.add_argument("--repeats", type=int, default=1,
                    help="time the numpy kernel and its plain product this many times each and "
                         "keep the fastest (a shared machine)")
    ap.add_argument("--json", type=Path, default=None, help="write the kernel measurements here")
    args = ap.parse_args()
    if args.threads:
        for t in args.threads:
            env = {**os.environ, **{v: str(t) for v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS",
                                                       "MKL_NUM_THREADS")}}
            print(f"--- {t} BLAS thread(s) ---", flush=True)
            subprocess.run([sys.executable, __file__, "--n", str(args.n), "--k", str(args.k),
                            "--repeats", str(args.repeats)]
                           + (["--skip-cpu"] if args.skip_cpu else [])
                           + (["--numpy-only"] if args.numpy_only else []), env=env, check=True)
        return
    n, k = args.n, args.k
    d_jl = jl_dimension(n, k, R, EPS_R, EPS_Z, DELTA)
    print(f"n = {n}, k = {k}, JL bound d_JL = {d_jl}")
    rng = generator(0, "benchmark.sparse_approximation", n=n, k=k)
    target = make_target("permutations", n, k, R, rng)
    grid = d_grid(SEARCH["d_start"], max(SEARCH["d_start"],
                                         math.ceil(SEARCH["horizon_fraction"] * d_jl)),
                  SEARCH["resolution"], SEARCH["min_step"])
    QT, KT = coupled_factors(target, logit_values(target, EPS_R, EPS_Z),
                             np.random.default_rng(rng.integers(2**63)), int(grid[-1]))
    found = kernel(target, QT, KT, grid, args.skip_cpu, args.numpy_only, args.repeats)
    if args.json:
        args.json.write_text(json.dumps(found, indent=1) + "\n")
    if not (args.skip_cpu or args.numpy_only):
        end_to_end(target, rng, d_jl)
    if args.big:
        table, t_big = timed(sweep_table, n=16384, k=1, first=0, trials=1, seed=0,
                             target="permutations", R=R, eps_ratio=EPS_R, eps_zero=EPS_Z,
                             delta=DELTA, search=SEARCH)
        row = table.iloc[0]
        print(f"one n = 16384, k = 1 sweep trial: {t_big:.1f} s (d_min = {row['d_min']:g}, d_max "
              f"= {row['d_max']}, extensions = {row['extensions']}; goal < 120 s)")


if __name__ == "__main__":
    main()
