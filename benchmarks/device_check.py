"""The measurements of ``benchmarks/device_check.sh`` on a GPU machine; decisions compared, not bytes.

    python benchmarks/device_check.py search   OUT [--dry]   # half A (after the GPU unit tests)
    python benchmarks/device_check.py training OUT [--dry]   # half B

``search``: the torch search's rate against a plain float64 product on the GPU at n = 2^14 and
2^15 (``benchmarks/sparse_approximation.py``); the numpy search's against a plain numpy product on
the node's CPU at one BLAS thread and at all of them (n = 4096); one job of the default config
(``sa_sweep`` n = 64, k = 1, 16 trials) in a fresh process on the GPU, for the seconds it pays
before its first trial and per trial after it; the same job and one at n = 1024, k = 2 on the CPU
(numpy) and the GPU, their d_min and d_stable compared trial by trial (the machine's torch and
numpy differ from the pins: decisions must agree where the decision margin exceeds the rounding
bound, bytes need not). ``training``: one paper-config sweep job's trials (n = 65536, k = 1)
against the plan's prediction (at the rates the search half just measured, and at the committed
ones), seconds per step of a copying cell, a memorization arm and a capacity arm on the GPU
(``benchmarks/trained_models.py``'s workloads), and which piece of an encoder's step captures as a
CUDA graph (``benchmarks/capture_probe.py``).

Each half writes ``OUT/<half>.json`` (every figure), prints a summary against the issue's goals
and writes its measured rates into ``OUT/device_rates.csv`` (a copy of
``benchmarks/device_rates.csv`` with this GPU's rows of the day added; commit it as that file).
Intermediate files go to a temporary folder: OUT holds at most the 7 files the device tool brings
back. ``--dry`` runs the same steps on the CPU at toy sizes, to test the plumbing where there is no
GPU: its figures mean nothing and it writes no rates.
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "workflow"))
sys.path.insert(0, str(ROOT / "benchmarks"))
import capture_probe  # noqa: E402
import device_rates  # noqa: E402
import yaml  # noqa: E402

DEFAULT = yaml.safe_load((ROOT / "config/config.yaml").read_text())
PAPER = yaml.safe_load((ROOT / "config/paper.yaml").read_text())
SOURCE = device_rates.CHECK


def sweep_settings(cfg: dict) -> dict:
    """The keyword settings of ``searches.sweep_table`` from a config."""
    sa = cfg["sparse_approximation"]
    return {"seed": cfg["seed"], **{key: sa[key] for key in (
        "target", "R", "eps_ratio", "eps_zero", "delta", "search", "mass_rows")}}


def job(n: int, k: int, trials: int, device: str, cfg: str) -> None:
    """One sweep job as the workflow runs it, printing a JSON line per trial with the time it
    ended (for ``job_times``: the first line comes after imports, CUDA start and first kernels)."""
    from expressivity.experiments.sparse_approximation.searches import sweep_table

    settings = sweep_settings(PAPER if cfg == "paper" else DEFAULT)
    for t in range(trials):
        row = sweep_table(n=n, k=k, first=t, trials=1, device=device, **settings).iloc[0]
        print(json.dumps({"trial": t, "end": time.time(), "d_min": row["d_min"],
                          "d_stable": row["d_stable"], "decided": row["precision"] == "float64",
                          "row_d_min_median": row["row_d_min_median"],
                          "device": row["device"]}), flush=True)


def job_times(n: int, k: int, trials: int, device: str, cfg: str = "default") -> dict:
    """Run ``job`` in a fresh process: the seconds until its first trial ended, the median seconds
    of a trial after it, and each trial's decisions."""
    start = time.time()
    proc = subprocess.run([sys.executable, __file__, "job", str(n), str(k), str(trials), device,
                           cfg], capture_output=True, text=True, check=False,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join(
                              [str(ROOT / "lib"), os.environ.get("PYTHONPATH", "")])})
    if proc.returncode != 0:
        raise SystemExit(f"the {device} job n={n} k={k} failed:\n{proc.stderr[-3000:]}")
    lines = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    ends = [start] + [line["end"] for line in lines]
    per_trial = [b - a for a, b in zip(ends[1:], ends[2:], strict=False)]
    typical = statistics.median(per_trial) if per_trial else ends[1] - start
    return {"n": n, "k": k, "trials": trials, "device": lines[0]["device"],
            "first_trial_end_s": ends[1] - start, "trial_s": typical,
            "start_s": ends[1] - start - typical, "total_s": ends[-1] - start, "rows": lines}


def decisions_agree(cpu: dict, gpu: dict) -> dict:
    """Trials whose d_min and d_stable agree between the two runs (NaN equals NaN); a trial that
    is undecided in float64 on either side is counted apart."""
    same = lambda a, b: a == b or (math.isnan(a) and math.isnan(b))  # noqa: E731
    decided = [(c, g) for c, g in zip(cpu["rows"], gpu["rows"], strict=True)
               if c["decided"] and g["decided"]]
    agree = [same(c["d_min"], g["d_min"]) and same(c["d_stable"], g["d_stable"])
             for c, g in decided]
    return {"n": cpu["n"], "k": cpu["k"], "trials": len(cpu["rows"]), "decided": len(decided),
            "agree": sum(agree), "row_d_min_median_agree": sum(
                same(c["row_d_min_median"], g["row_d_min_median"]) for c, g in decided)}


def kernel_runs(scratch: Path, name: str, n: int, *flags: str, threads: int | None = None) -> list:
    """``benchmarks/sparse_approximation.py`` at n (k = 1) with ``flags``, in a fresh process
    (``threads``: its BLAS threads), its kernel measurements read back from a scratch file."""
    path = scratch / f"{name}.json"
    env = dict(os.environ)
    if threads is not None:
        env.update({var: str(threads) for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS",
                                                   "MKL_NUM_THREADS")})
    subprocess.run([sys.executable, str(ROOT / "benchmarks/sparse_approximation.py"), "--n",
                    str(n), "--k", "1", *flags, "--json", str(path)], check=True, env=env)
    return json.loads(path.read_text())


def search_half(out: Path, scratch: Path, dry: bool) -> dict:
    del out
    device = "cpu" if dry else "cuda"
    found: dict = {"kernel": [], "numpy_threads": []}
    for n in ([128] if dry else [16384, 32768]):
        found["kernel"] += kernel_runs(scratch, f"kernel_n{n}", n, "--skip-cpu")
    # the numpy path on the node's cores (issue 29: >= 0.7 of a plain product at every count)
    for threads in sorted({1, os.cpu_count() or 1}):
        found["numpy_threads"] += kernel_runs(scratch, f"numpy_t{threads}", 256 if dry else 4096,
                                              "--numpy-only", threads=threads)
    trials = 2 if dry else 16
    start = job_times(64, 1, trials, device)
    found["default_job"] = {key: value for key, value in start.items() if key != "rows"}
    pairs = [(start, job_times(64, 1, trials, "cpu"))]
    if not dry:
        pairs.append((job_times(1024, 2, trials, device), job_times(1024, 2, trials, "cpu")))
    found["decisions"] = [decisions_agree(cpu, gpu) for gpu, cpu in pairs]
    top = found["kernel"][-1]
    rows = [("gpu_job_start_s", start["start_s"], f"sa_sweep n=64 k=1 of config/config.yaml on "
             f"the GPU: seconds to its first trial beyond a trial's ({trials} trials)"),
            ("sweep_trial_fixed_s", start["trial_s"], "the same job: median seconds per trial "
             "after the first"),
            ("search_kernel_flops", top["flops"] / top["search_s"], f"torch search, n={top['n']} "
             "k=1, 2 n^2 d_max flops over its seconds (benchmarks/sparse_approximation.py)"),
            ("plain_fp64_flops", top["flops"] / top["plain_s"], f"plain float64 product ({top['n']}"
             " x d_max) @ (d_max x n)")]
    summary = [f"{k['path']} search on {k['device']} ({k['threads']} threads), n={k['n']}: "
               f"{k['flops'] / k['search_s'] / 1e9:.0f} GFLOP/s, {k['plain_s'] / k['search_s']:.2f}"
               f" of a plain product (goal >= {0.7 if k['path'] == 'numpy' else 0.5})"
               + (f"; {k['plain_scipy_s'] / k['search_s']:.2f} of scipy's dgemm, the BLAS of its "
                  f"products ({'; '.join(f'{lib}: {v}' for lib, v in k['blas'].items())})"
                  if k["path"] == "numpy" else "")
               for k in found["kernel"] + found["numpy_threads"]]
    summary += [f"default job n=64 k=1 on {start['device']}: {start['start_s']:.1f} s before its "
                f"first trial, {start['trial_s']:.3f} s a trial after it"]
    summary += [f"decisions n={d['n']} k={d['k']}: d_min and d_stable agree on {d['agree']} of "
                f"{d['decided']} trials decided in float64 ({d['trials']} trials); row_d_min_median"
                f" on {d['row_d_min_median_agree']}" for d in found["decisions"]]
    return {"figures": found, "rates": rows, "device": top["device"], "summary": summary}


def training_half(out: Path, scratch: Path, dry: bool) -> dict:
    from trained_models import copy_rate, memorization_rate, minibatch_rate

    from expressivity.experiments.sparse_approximation.cost import series_trial_work

    device = "cpu" if dry else "cuda"
    found: dict = {}
    n, trials = (256, 1) if dry else (65536, 2)
    del scratch
    paper = job_times(n, 1, trials, device, cfg="paper")
    work = series_trial_work(PAPER["sparse_approximation"], "sweep", n, 1)
    # the plan at the committed rates, and at those the search half just measured (if it ran)
    tables = {"committed": device_rates.TABLE, "measured": out / "device_rates.csv"}
    planned = {name: work.gpu_seconds({q: row["value"] for q, row in device_rates.rates(
        PAPER["node"]["gpu"], table).items()}) for name, table in tables.items() if table.exists()}
    found["paper_job"] = {**{key: value for key, value in paper.items() if key != "rows"},
                          "planned_trial_s": planned,
                          "measured_over_planned": {name: paper["trial_s"] / seconds
                                                    for name, seconds in planned.items()},
                          "d_min": [r["d_min"] for r in paper["rows"]], "horizons": work.horizons}
    steps = 3 if dry else 300
    for name, fn in (("memorization", memorization_rate), ("minibatch", minibatch_rate),
                     ("copy", copy_rate)):
        fn(max(2, steps // 10), seed=DEFAULT["seed"], threads=1, device=device)  # warm up
        rate, model, used = fn(steps, seed=DEFAULT["seed"], threads=1, device=device)
        found[name] = {"steps_per_s": rate, "cpu_cost_model_steps_per_s": model, "device": used}
    depth = 4  # benchmarks/trained_models.py's copying workload: STRIDED at depth 4
    rows = [("encoder_layer_step_s", 1 / (found["copy"]["steps_per_s"] * depth),
             f"copy STRIDED depth {depth}, config/config.yaml sizes, {DEFAULT['trained_models']['seeds']}"
             " seeds side by side: seconds per Adam step over the depth"),
            ("memorization_step_s", 1 / found["memorization"]["steps_per_s"],
             "memorization arm (uniform) of config/config.yaml, seeds side by side: seconds per "
             "full-batch epoch"),
            ("minibatch_step_s", 1 / found["minibatch"]["steps_per_s"],
             "capacity arm sgd of config/config.yaml at its largest N and width, seeds side by "
             "side: seconds per minibatch step (evaluations included)")]
    summary = [f"paper job n={n} k=1 on {paper['device']}: {paper['trial_s']:.2f} s a trial after "
               f"the first ({paper['start_s']:.1f} s before it); planned " + ", ".join(
                   f"{seconds:.2f} s at the {name} rates" for name, seconds in planned.items())]
    summary += [f"{name} on {found[name]['device']}: {1000 / found[name]['steps_per_s']:.1f} ms a "
                "step" for name in ("memorization", "minibatch", "copy")]
    # which piece of an encoder's step captures as a CUDA graph (one piece on the CPU: plumbing)
    found["capture"] = capture_probe.probe(capture_probe.PIECES[:1] if dry else
                                           capture_probe.PIECES)
    summary.append("CUDA-graph capture: " + "; ".join(f"{name}: {outcome}" for name, outcome
                                                      in found["capture"].items()))
    # the copying step as CUDA graphs, last (a failed capture can spoil the CUDA context), at the
    # default's seeds and at 16 (issue 26: at most 3 ms a step on an H100); eager on the CPU
    found["copy_graphs"] = {}
    for seeds in (DEFAULT["trained_models"]["seeds"], 16):
        try:
            kw = dict(seeds=seeds, graphs=not dry, seed=DEFAULT["seed"], threads=1, device=device)
            copy_rate(max(2, steps // 10), **kw)  # warm up (and capture)
            rate, _, used = copy_rate(steps, **kw)
            found["copy_graphs"][seeds] = {"ms_per_step": 1000 / rate, "device": used,
                                           "graphs": not dry}
        except Exception as err:  # the capture's error is the finding
            found["copy_graphs"][seeds] = {"error": f"{type(err).__name__}: "
                                                    f"{str(err).strip().splitlines()[0][:300]}"}
            break
    summary.append(("copy step, eager (dry run): " if dry else "copy step as CUDA graphs: ") + "; ".join(
        f"{seeds} seeds: " + (f"{got['ms_per_step']:.2f} ms" if "ms_per_step" in got
                              else got["error"]) for seeds, got in found["copy_graphs"].items()))
    return {"figures": found, "rates": rows, "device": found["copy"]["device"],
            "summary": summary}


def main() -> None:
    if sys.argv[1:2] == ["job"]:
        n, k, trials, device, cfg = sys.argv[2:7]
        job(int(n), int(k), int(trials), device, cfg)
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("half", choices=("search", "training"))
    parser.add_argument("out", type=Path)
    parser.add_argument("--dry", action="store_true", help="the CPU at toy sizes: plumbing only")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        result = (search_half if args.half == "search" else training_half)(
            args.out, Path(scratch), args.dry)
    device = result["device"].removeprefix("cuda:")
    result["date"] = datetime.date.today().isoformat()
    (args.out / f"{args.half}.json").write_text(json.dumps(result, indent=1, default=str) + "\n")
    print("\n".join(["summary:", *result["summary"]]))
    for quantity, value, what in result["rates"]:
        print(f"{device}: {quantity} = {value:.4g} ({what})")
    if args.dry:
        print("dry run on the CPU: no rates written")
        return
    table = args.out / "device_rates.csv"
    if not table.exists():
        shutil.copy(device_rates.TABLE, table)
    device_rates.write([{"device": device, "date": result["date"], "quantity": quantity,
                         "value": value, "unit": device_rates.QUANTITIES[quantity][0],
                         "measured": what, "source": SOURCE}
                        for quantity, value, what in result["rates"]], table)
    print(f"rates written to {table} (commit it as {device_rates.TABLE.relative_to(ROOT)})")


if __name__ == "__main__":
    main()
