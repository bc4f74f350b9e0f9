"""The measurements of ``benchmarks/device_check.sh`` on a GPU machine; decisions compared, not bytes.

    python benchmarks/device_check.py search   OUT [--dry]   # half A (after the GPU unit tests)
    python benchmarks/device_check.py training OUT [--dry]   # half B

``search``: the torch search's rate against a plain float64 product at n = 2^14 and 2^15
(``benchmarks/sparse_approximation.py``); one job of the default config (``sa_sweep`` n = 64,
k = 1, 16 trials) in a fresh process on the GPU, for the seconds it pays before its first trial and
per trial after it; the same job and one at n = 1024, k = 2 on the CPU (numpy) and the GPU, their
d_min and d_stable compared trial by trial (the machine's torch and numpy differ from the pins:
decisions must agree where the decision margin exceeds the rounding bound, bytes need not).
``training``: one paper-config sweep job's trials (n = 65536, k = 1) against the plan's
prediction, and seconds per step of a copying cell and a memorization arm on the GPU
(``benchmarks/trained_models.py``'s workloads).

Each half writes ``OUT/<half>.json`` (every figure) and its measured rates into
``OUT/device_rates.csv`` (a copy of ``benchmarks/device_rates.csv`` with this GPU's rows of the
day added; commit it as that file). ``--dry`` runs the same steps on the CPU at toy sizes, to test
the plumbing where there is no GPU: its figures mean nothing and it writes no rates.
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
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "workflow"))
sys.path.insert(0, str(ROOT / "benchmarks"))
import device_rates  # noqa: E402
import yaml  # noqa: E402

DEFAULT = yaml.safe_load((ROOT / "config/config.yaml").read_text())
PAPER = yaml.safe_load((ROOT / "config/paper.yaml").read_text())
SOURCE = "benchmarks/device_check.sh"


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


def search_half(out: Path, dry: bool) -> dict:
    device = "cpu" if dry else "cuda"
    found: dict = {"kernel": []}
    for n in ([128] if dry else [16384, 32768]):
        path = out / f"kernel_n{n}.json"
        subprocess.run([sys.executable, str(ROOT / "benchmarks/sparse_approximation.py"), "--n",
                        str(n), "--k", "1", "--skip-cpu", "--json", str(path)], check=True)
        found["kernel"] += json.loads(path.read_text())
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
    return {"figures": found, "rates": rows, "device": top["device"]}


def training_half(out: Path, dry: bool) -> dict:
    from trained_models import copy_rate, memorization_rate

    from expressivity.experiments.sparse_approximation.cost import series_trial_work

    device = "cpu" if dry else "cuda"
    found: dict = {}
    n, trials = (256, 1) if dry else (65536, 2)
    paper = job_times(n, 1, trials, device, cfg="paper")
    rates = device_rates.rates(PAPER["node"]["gpu"])
    work = series_trial_work(PAPER["sparse_approximation"], "sweep", n, 1)
    planned = work.gpu_seconds({q: row["value"] for q, row in rates.items()})
    found["paper_job"] = {**{key: value for key, value in paper.items() if key != "rows"},
                          "planned_trial_s": planned, "measured_over_planned":
                          paper["trial_s"] / planned, "d_min": [r["d_min"] for r in paper["rows"]],
                          "horizons": work.horizons}
    steps = 3 if dry else 300
    for name, fn in (("memorization", memorization_rate), ("copy", copy_rate)):
        fn(max(2, steps // 10), seed=DEFAULT["seed"], threads=1, device=device)  # warm up
        rate, model, used = fn(steps, seed=DEFAULT["seed"], threads=1, device=device)
        found[name] = {"steps_per_s": rate, "cpu_cost_model_steps_per_s": model, "device": used}
    depth = 4  # benchmarks/trained_models.py's copying workload: STRIDED at depth 4
    rows = [("encoder_layer_step_s", 1 / (found["copy"]["steps_per_s"] * depth),
             f"copy STRIDED depth {depth}, config/config.yaml sizes, {DEFAULT['trained_models']['seeds']}"
             " seeds side by side: seconds per Adam step over the depth"),
            ("memorization_step_s", 1 / found["memorization"]["steps_per_s"],
             "memorization arm (uniform) of config/config.yaml, seeds side by side: seconds per "
             "full-batch epoch")]
    return {"figures": found, "rates": rows, "device": found["copy"]["device"]}


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
    result = (search_half if args.half == "search" else training_half)(args.out, args.dry)
    device = result["device"].removeprefix("cuda:")
    result["date"] = datetime.date.today().isoformat()
    (args.out / f"{args.half}.json").write_text(json.dumps(result, indent=1, default=str) + "\n")
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
