"""Speed of the trained-models stage, and what the CPU's instruction set does to its verdicts.

``steps`` (the default): milliseconds per training step, per cell and per seed, for every kind of
cell of the default config (``config/config.yaml``: memorization, heads, width, copying, the
hybrids on counting), every seed running (no early stop), on one CPU thread and on a GPU when torch sees one
(device named). Each cell is timed with the current library and with a reference implementation
(``--reference``, a git revision: the stage before issue 26, vmap over seeds and per-step host
transfers), each in its own process, alternating rounds, best of ``--rounds``. On the CPU the
process's CPU time is timed (one thread: the work, whatever else a shared machine runs), on a GPU
the wall time; the ratio, measured in the same run, is what carries over. Seeds at the
reference's default (3) and the current one (5).

``kernels``: trains the default trained-models stage twice in temporary copies of the project, with
torch's native CPU kernels and with ``ATEN_CPU_CAPABILITY=default`` (scalar kernels, available on
every CPU), and lists the cells whose existence, reliability interval or every-seed verdict differ,
and the claims whose status differs: the instruction set rounds differently, and at a plateau's
edge that can tip a seed (reported, not tested; every table records ``cpu_kernels``).

Run: ``.venv/bin/python benchmarks/trained_models.py [steps|kernels|all] [--csv-dir DIR]``. Nothing
is asserted.
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

import pandas as pd
import yaml

from expressivity.io import write_table

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from harness import Workflow, copy_project

ROOT = Path(__file__).resolve().parents[1]

#: The stage before issue 26 (seeds side by side through torch.vmap, a host transfer per step).
REFERENCE = "96c9006"
DEFAULT = yaml.safe_load((ROOT / "config/config.yaml").read_text())
TM = DEFAULT["trained_models"]

#: Times one cell in a fresh process against the library on PYTHONPATH (the current one or the
#: reference's): every seed runs ``steps`` steps (a learning rate too small to reach anything).
WORKER = r"""
import inspect, json, sys, time
import numpy as np, torch
from expressivity.datasets import token_separated_dataset
from expressivity.segment_pairs import segment_pair_dataset
from expressivity.sparse_patterns import pattern_masks
from expressivity.torch_runtime import configure_torch
from expressivity.training import memorize, train_encoders
from expressivity.training_protocol import Protocol
cell, seeds, steps, every, device = json.loads(sys.argv[1])
dev = configure_torch(1, device)
tm = json.loads(sys.argv[2])
mem = tm["memorization"]
proto = Protocol(target=1.0, budget=steps, every=every, window=steps // 2, min_gain=0.0)
def memorization(ds, **kw):
    extra = {"record_every": steps} if "record_every" in inspect.signature(memorize).parameters else {}
    return lambda: memorize(ds, seeds=tuple(range(seeds)), protocol=proto, lr=1e-9, device=dev, **kw, **extra)
def encoder(section, **kw):
    c = tm[section]
    rngs = [np.random.default_rng(i) for i in range(seeds)]
    return lambda: train_encoders(rngs, n=c["n"], vocab=c["vocab"], protocol=proto, batch=c["batch"],
                                  lr=1e-9, d_model=c["d_model"], heads=c["heads"],
                                  eval_size=c["eval_size"], device=dev, **kw)
data = {k: mem[k] for k in ("vocab_size", "d", "n", "N", "pairs", "n_classes")}
kind, _, arg = cell.partition(":")
if kind == "memorization":
    run = memorization(segment_pair_dataset(np.random.default_rng(0), **data).dataset, width=mem["width"])
elif kind == "heads":
    h, s = map(int, arg.split("x"))
    sizes = {**data, "N": tm["heads_rank"]["N"], "pairs": tm["heads_rank"]["pairs"]}
    ds = segment_pair_dataset(np.random.default_rng(0), **sizes).dataset
    run = memorization(ds, width=mem["width"], heads=h, head_size=s)
elif kind == "width":
    N, q = map(int, arg.split("x"))
    ds = token_separated_dataset(np.random.default_rng(0), mem["vocab_size"], mem["d"], mem["n"],
                                 N, mem["n_classes"])
    run = memorization(ds, width=q)
elif kind == "copy":
    pattern, _, depth = arg.rpartition("x")
    cycle = pattern_masks(pattern, tm["copy"]["n"], rng=np.random.default_rng(0))
    run = encoder("copy", task="copy", mixers=["attention"] * int(depth),
                  masks=[cycle[i % len(cycle)] for i in range(int(depth))])
else:
    mixers = arg.split("+")
    run = encoder("hybrid", task="count", mixers=mixers, kernel=max(tm["hybrid"]["count_kernels"]))
run()  # warm-up: allocations, first calls
# one CPU thread: the process's CPU time is the work, whatever else the machine runs; a GPU: wall
clock = time.process_time if dev.type == "cpu" else time.perf_counter
start = clock()
run()
if dev.type == "cuda":
    torch.cuda.synchronize()
print(json.dumps({"ms_per_step": 1000 * (clock() - start) / steps,
                  "device": torch.cuda.get_device_name(dev) if dev.type == "cuda" else "cpu",
                  "cpu_kernels": torch.backends.cpu.get_cpu_capability()}))
"""


def _rate(kind: str, job, cost_of, steps: int, section: str, cell: dict, seeds: int | None = None,
          **run) -> tuple[float, float, str]:
    """Steps per second of one default-config job of ``kind`` (``cell``: its wildcards, given to
    the job and, where it takes them, to the cost model) run in this process for ``steps`` steps (a
    learning rate too small to reach anything; evaluations at half and at the end; one width where
    the job has a grid of them), the cost model's steps per second for the same job, and the
    device it ran on. ``seeds``: side by side (the default config's when None)."""
    from expressivity.experiments.trained_models import cost

    half = max(1, steps // 2)
    settings = {k: v for k, v in TM[section].items() if k not in ("patterns", "depths", "arms")
                and k not in cell}
    settings.update(lr=[1e-9], adam_lr=[1e-9], budget=2 * half, every=half, window=half,
                    min_gain=0.0)
    for grid in ("widths", "control_widths"):
        if grid in settings:
            settings[grid] = [max(settings[grid])]
    params = inspect.signature(job).parameters
    seeds = TM["seeds"] if seeds is None else seeds
    start = time.perf_counter()
    out = job(seeds=seeds, lr_decay=TM["lr_decay"], **cell, **run,
              **{k: v for k, v in settings.items() if k in params})
    seconds = time.perf_counter() - start
    rows = out[1] if isinstance(out, tuple) else out
    wanted = inspect.signature(cost_of).parameters
    planned = cost_of(seeds=seeds, **{k: v for k, v in {**settings, **cell}.items()
                                           if k in wanted})[0]
    per_step = (planned - cost.START_SECONDS) / cost.BUDGET_USED[kind] / (2 * half)
    return 2 * half / seconds, 1 / per_step, rows[0]["device"]


def memorization_rate(steps: int, **run) -> tuple[float, float, str]:
    """Full-batch epochs per second of the uniform memorization arm (its seeds side by side) and
    the cost model's (``benchmarks/device_check.py`` measures the GPU's with it)."""
    from expressivity.experiments.trained_models.cost import memorization_cost
    from expressivity.experiments.trained_models.memorization import memorization_rows

    return _rate("memorization", memorization_rows, memorization_cost, steps, "memorization",
                 {"arm": "uniform"}, **run)


def minibatch_rate(steps: int, **run) -> tuple[float, float, str]:
    """Minibatch steps per second of the capacity experiment's SGD arm at its largest N and width
    (its seeds side by side) and the cost model's."""
    from expressivity.experiments.trained_models.capacity import capacity_rows
    from expressivity.experiments.trained_models.cost import capacity_cost

    cap = TM["capacity"]
    return _rate("capacity", capacity_rows, capacity_cost, steps, "capacity",
                 {"arm": "sgd", "N": max(cap["N"]), "a": min(cap["a"])}, **run)


def copy_rate(steps: int, graphs: bool | None = None, **run) -> tuple[float, float, str]:
    """Adam steps per second of the STRIDED copying job at depth 4 (its seeds side by side) and
    the cost model's; ``graphs``: its steps as CUDA graphs or eager (``training.ENCODER_GRAPHS``
    set for the call; None leaves the library's choice)."""
    from unittest import mock

    from expressivity import training
    from expressivity.experiments.trained_models.cost import copy_cost
    from expressivity.experiments.trained_models.encoders import copy_rows

    choice = training.ENCODER_GRAPHS if graphs is None else graphs
    with mock.patch.object(training, "ENCODER_GRAPHS", choice):
        return _rate("copy", copy_rows, copy_cost, steps, "copy",
                     {"pattern": "strided", "depth": 4}, **run)


def cells() -> list[tuple[str, str, int]]:
    """(cell, what it is, evaluation interval) for every kind of cell of the default config."""
    mem, heads, copy, hybrid = (TM[k] for k in ("memorization", "heads_rank", "copy", "hybrid"))
    widest = max(heads["heads"])
    depth = hybrid["depth"]
    return [
        ("memorization", f"memorization arm (N = {mem['N']}, q = {mem['width']})", mem["every"]),
        ("heads:1x1", f"heads h = 1, s = 1 (N = {heads['N']})", heads["every"]),
        (f"heads:{widest}x{mem['d']}", f"heads h = {widest}, s = d", heads["every"]),
        (f"width:{max(TM['width_search']['N'])}x91", f"width N = {max(TM['width_search']['N'])}, "
         "q = 91", TM["width_search"]["every"]),
        (f"copy:stridedx{max(copy['depths'])}", f"copy STRIDED, depth {max(copy['depths'])}",
         copy["every"]),
        ("hybrid:" + "+".join(["attention"] * depth), f"hybrid: {depth} attention layers",
         hybrid["every"]),
        ("hybrid:" + "+".join(["conv"] * depth), f"hybrid: {depth} convolutions", hybrid["every"]),
    ]


def reference_lib(revision: str, into: Path) -> Path | None:
    """``lib/`` of ``revision`` extracted under ``into`` (None outside a git checkout)."""
    proc = subprocess.run(["git", "archive", revision, "lib"], cwd=ROOT, capture_output=True)
    if proc.returncode != 0:
        print(f"reference {revision} not available ({proc.stderr.decode().strip()}): "
              "timing the current library only")
        return None
    with tarfile.open(fileobj=BytesIO(proc.stdout)) as tar:
        tar.extractall(into, filter="data")
    return into / "lib"


def time_cell(lib: Path, cell: str, seeds: int, steps: int, every: int, device: str) -> dict:
    env = {**os.environ, "PYTHONPATH": str(lib), "OMP_NUM_THREADS": "1"}
    proc = subprocess.run([sys.executable, "-c", WORKER, json.dumps([cell, seeds, steps, every,
                                                                      device]), json.dumps(TM)],
                          env=env, capture_output=True, text=True, check=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def steps_table(args) -> pd.DataFrame:
    devices = ["cpu"] + (["cuda"] if _has_cuda() else [])
    rows = []
    with tempfile.TemporaryDirectory(prefix="expressivity-reference-") as tmp:
        libs = {"current": ROOT / "lib"}
        ref = reference_lib(args.reference, Path(tmp))
        if ref is not None:
            libs[f"reference {args.reference}"] = ref
        print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs (shared machine: "
              "compare the ratios); one CPU thread per process")
        for cell, what, every in cells():
            for device in devices:
                steps = max(args.steps if device == "cpu" else 5 * args.steps, 2 * every)
                for seeds in (3, TM["seeds"]):
                    best: dict[str, dict] = {}
                    for _ in range(args.rounds):  # alternate: both see the same load
                        for name, lib in libs.items():
                            t = time_cell(lib, cell, seeds, steps, every, device)
                            if name not in best or t["ms_per_step"] < best[name]["ms_per_step"]:
                                best[name] = t
                    for name, t in best.items():
                        rows.append({"cell": what, "implementation": name, "device": t["device"],
                                     "seeds": seeds, "ms_per_step": t["ms_per_step"],
                                     "ms_per_seed_step": t["ms_per_step"] / seeds,
                                     "cpu_kernels": t["cpu_kernels"]})
                    print(_line(rows[-len(best):]), flush=True)
    table = pd.DataFrame(rows)
    ref = table[table["implementation"] != "current"]
    if len(ref):
        base = ref.set_index(["cell", "device", "seeds"])["ms_per_seed_step"]
        three = ref[ref["seeds"] == 3].set_index(["cell", "device"])["ms_per_seed_step"]
        table["speedup_same_seeds"] = [base.get((r.cell, r.device, r.seeds), float("nan"))
                                       / r.ms_per_seed_step for r in table.itertuples()]
        table["speedup_vs_reference_3_seeds"] = [three.get((r.cell, r.device), float("nan"))
                                                 / r.ms_per_seed_step for r in table.itertuples()]
    return table.assign(load_average=os.getloadavg()[0])


def _line(rows: list[dict]) -> str:
    text = f"{rows[0]['cell']:38s} {rows[0]['device']:10s} {rows[0]['seeds']:2d} seeds:"
    for r in rows:
        text += f"  {r['implementation']}: {r['ms_per_step']:7.2f} ms/step " \
                f"({r['ms_per_seed_step']:.2f} per seed)"
    if len(rows) == 2:
        text += f"  -> {rows[1]['ms_per_seed_step'] / rows[0]['ms_per_seed_step']:.2f}x"
    return text


def _has_cuda() -> bool:
    import torch
    return torch.cuda.is_available()


#: The columns that say what a cell shows, compared between kernel sets.
VERDICT = ["cell_existence", "cell_reliability_lo", "cell_reliability_hi", "cell_verdict"]
CELL_KEYS = {"memorization_runs": ["arm"], "heads_rank": ["heads", "head_size"],
             "width_vs_N": ["N", "width"], "copy_depth": ["pattern", "depth"],
             "sparsity": ["task", "pattern", "configuration", "level"], "star_bottleneck": ["d_model", "n"],
             "hybrid": ["task", "alternative", "kernel", "attention_layers"]}


def stage_run(capability: str | None, config: str) -> Path:
    """The default trained-models stage and its claims in a temporary copy, with torch's CPU
    kernels forced to ``capability`` (None: native)."""
    work = Path(tempfile.mkdtemp(prefix=f"expressivity-kernels-{capability or 'native'}-"))
    flow = Workflow(copy_project(work), cores="2")
    saved = os.environ.pop("ATEN_CPU_CAPABILITY", None)
    try:
        if capability:
            os.environ["ATEN_CPU_CAPABILITY"] = capability
        start = time.perf_counter()
        flow.run("trained_models", "results/claims/trained_models.csv", config=config)
        print(f"kernels {capability or 'native'}: stage and claims in "
              f"{time.perf_counter() - start:.0f} s", flush=True)
    finally:
        os.environ.pop("ATEN_CPU_CAPABILITY", None)
        if saved is not None:
            os.environ["ATEN_CPU_CAPABILITY"] = saved
    return work


def kernels_table(args) -> pd.DataFrame:
    runs = {name: stage_run(cap, args.config) for name, cap in (("native", None),
                                                                ("default", "default"))}
    rows = []
    try:
        for table, keys in CELL_KEYS.items():
            per = {}
            for name, work in runs.items():
                df = pd.concat(pd.read_csv(p) for p in sorted(
                    (work / "results/trained_models").rglob("*.csv")) if _table_of(p) == table)
                per[name] = df.groupby(keys, as_index=False).first().set_index(keys)
            both = pd.merge(per["native"], per["default"], left_index=True, right_index=True,
                            suffixes=("_native", "_default"))
            for key, r in both.iterrows():
                row = {"table": table, "cell": key if isinstance(key, str) else
                       " ".join(map(str, key if isinstance(key, tuple) else (key,)))}
                for name in runs:
                    row[f"kernels_{name}"] = r[f"cpu_kernels_{name}"]
                    for col in VERDICT:
                        row[f"{col}_{name}"] = r[f"{col}_{name}"]
                row["differs"] = any(r[f"{c}_native"] != r[f"{c}_default"] for c in VERDICT)
                rows.append(row)
        claims = {name: pd.read_csv(work / "results/claims/trained_models.csv")
                  .set_index("id")["status"] for name, work in runs.items()}
        for claim_id in claims["native"].index:
            a, b = claims["native"][claim_id], claims["default"].get(claim_id)
            rows.append({"table": "claims", "cell": claim_id, "status_native": a,
                         "status_default": b, "differs": a != b})
    finally:
        for work in runs.values():
            shutil.rmtree(work, ignore_errors=True)
    table = pd.DataFrame(rows)
    differ = table[table["differs"]]
    print(f"\n{len(differ)} of {len(table)} cells and claims differ between the native kernels "
          "and ATEN_CPU_CAPABILITY=default:" + ("" if len(differ) else " none"))
    for r in differ.itertuples():
        print(f"  {r.table} {r.cell}: " + " -> ".join(_verdicts(r, name) for name in runs))
    return table


def _verdicts(row, name: str) -> str:
    """A cell's (or claim's) verdicts under one kernel set, in words."""
    if row.table == "claims":
        return f"{name}: {getattr(row, f'status_{name}')}"
    return (f"{name} ({getattr(row, f'kernels_{name}')}): existence "
            f"{getattr(row, f'cell_existence_{name}')}, reliability "
            f"[{getattr(row, f'cell_reliability_lo_{name}'):.2f}, "
            f"{getattr(row, f'cell_reliability_hi_{name}'):.2f}], "
            f"{getattr(row, f'cell_verdict_{name}')}")


def _table_of(path: Path) -> str:
    """The gathered table a job's CSV belongs to (by its folder under results/trained_models; the
    memorization curves belong to none)."""
    if path.name.endswith("_curve.csv"):
        return ""
    return {"memorize": "memorization_runs", "masked": "masked_runs", "heads": "heads_rank",
            "width": "width_vs_N", "copy": "copy_depth", "sparsity": "sparsity",
            "star": "star_bottleneck", "hybrid": "hybrid"}.get(path.parent.name, "")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", nargs="?", default="steps", choices=["steps", "kernels", "all"])
    parser.add_argument("--steps", type=int, default=100, help="steps per timed CPU run")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds (best kept)")
    parser.add_argument("--reference", default=REFERENCE, help="git revision timed as 'before'")
    parser.add_argument("--config", default="config/config.yaml", help="config of the kernels run")
    parser.add_argument("--csv-dir", type=Path, default=None, help="write the tables here")
    args = parser.parse_args()
    if args.what in ("steps", "all"):
        table = steps_table(args)
        if args.csv_dir:
            write_table(table, args.csv_dir / "trained_models_steps.csv")
    if args.what in ("kernels", "all"):
        table = kernels_table(args)
        if args.csv_dir:
            write_table(table, args.csv_dir / "trained_models_kernels.csv")


if __name__ == "__main__":
    main()
