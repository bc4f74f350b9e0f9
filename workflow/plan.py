"""The plan of a run before any work: what each stage costs, and how long the run takes where.

``python workflow/plan.py CONFIG`` (``make plan CONFIG=...``) asks Snakemake for a dry run of the
whole workflow (``--forceall``: what a clean run does) and reads each job's resources, set in the
rules from each stage's cost model (``common.smk``, ``job_resources``): the predicted seconds on
one CPU core (``cpu_ms``) and, for a job placed on the GPU, on the node's GPU (``gpu_ms``, ``gpu``),
and what a cluster is asked for (``runtime``, the prediction padded; ``mem_mb``). It prints per
stage the jobs, the predicted CPU- and GPU-hours, the hours requested from a cluster, the peak
memory and the longest job, then the wall time of the whole run

* on this machine (its cores, no GPU: every job on a core), the predictions divided by its speed
  against the machine the cost models were fitted on (``machine_speed``: measured once, cached),
* on one GPU node (``node.cores`` cores and one ``node.gpu``: jobs on cores in parallel, GPU jobs
  one at a time and before any waiting CPU job, their priority), at the GPU's measured rates
  (``benchmarks/device_rates.csv``),
* under SLURM with as many nodes as jobs: the critical path, the longest chain of jobs,

each by replaying the dependency graph with its predicted times (``schedule``). A job without a
cost model (gathering, plotting, claims) is planned at ``UNPLANNED_SECONDS``. A plan with a job
requested over the wall-time cap (the config's ``limits.job_hours``, or ``--cap-hours``) is refused.

``--measured`` adds, for a finished run, each compute job's measured time against the prediction:
the job's CPU time over its threads (its time on an idle core, whatever else the machine ran), from
the end line of its log (``expressivity.joblog``: the process's own count; Snakemake's ``benchmark:``
record samples it and misses up to 30 s at the end, so it serves only for a log without the line),
and its wall time (the benchmark record), as ratios measured / predicted on this machine (median,
and total over total), per stage and per rule (what a cost model's constants are refitted from).
``--record FILE`` writes those records (``benchmarks/records/``), with the machine's speed, for
the test that checks the cost models.
"""

from __future__ import annotations

import argparse
import csv
import heapq
import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from expressivity.claims import STAGES
from expressivity.joblog import logged_cpu_seconds

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "workflow"))
from device_rates import rates  # noqa: E402
from machine_speed import machine, speed  # noqa: E402

#: Predicted seconds of a job without a cost model (a gather, plot or claims job: Python, pandas or
#: matplotlib, a table or a figure), on this machine and on a node's core.
UNPLANNED_SECONDS = 3.0


@dataclass(frozen=True)
class PlannedJob:
    rule: str
    stage: str
    wildcards: str
    runtime_min: float
    mem_mb: float
    threads: int
    benchmark: str | None
    log: str | None = None
    cpu_s: float | None = None
    gpu_s: float = 0.0
    gpu: bool = False
    priority: float = 0.0
    inputs: tuple[str, ...] = field(default=(), repr=False)
    outputs: tuple[str, ...] = field(default=(), repr=False)

    @property
    def cpu_hours(self) -> float:
        """Predicted core-hours of the job on CPU cores (every job on this machine)."""
        return self.seconds(on_node=False) * self.threads / 3600

    @property
    def requested_hours(self) -> float:
        """Core-hours (GPU-hours for a GPU job) requested from a cluster: its runtime."""
        return self.runtime_min * (1 if self.gpu else self.threads) / 60

    def seconds(self, on_node: bool) -> float:
        """Predicted wall seconds: on a GPU node (a GPU job on the GPU) or on a machine
        without a GPU (every job on its cores)."""
        if on_node and self.gpu:
            return self.gpu_s
        if not self.outputs:  # a target rule (``all``): nothing to run
            return 0.0
        return UNPLANNED_SECONDS if self.cpu_s is None else self.cpu_s


def _stage(outputs: str) -> str:
    for path in outputs.split(", "):
        parts = Path(path).parts
        if len(parts) >= 2 and parts[0] in ("results", "figures") and parts[1] in STAGES:
            return parts[1]
        if len(parts) >= 3 and parts[:2] == ("results", "claims"):
            return "claims"
    return "claims"


def _paths(text: str | None) -> tuple[str, ...]:
    return tuple(p for p in (text or "").split(", ") if p)


def parse_dry_run(text: str) -> list[PlannedJob]:
    """The jobs of a Snakemake dry run's output (one block per job)."""
    jobs = []
    for block in re.split(r"\n(?=(?:local)?rule \w+:\n)", text):
        head = re.match(r"(?:local)?rule (\w+):\n", block)
        if not head:
            continue
        fields = dict(re.findall(r"^    (\w+): (.*)$", block, re.M))
        resources = dict(re.findall(r"(\w+)=([^,]+)", fields.get("resources", "")))
        jobs.append(PlannedJob(
            rule=head[1], stage=_stage(fields.get("output", "")),
            wildcards=fields.get("wildcards", ""),
            runtime_min=float(resources.get("runtime", 0)),
            mem_mb=float(resources.get("mem_mb", 0)),
            threads=int(fields.get("threads", 1)),
            benchmark=fields.get("benchmark"),
            log=next(iter(_paths(fields.get("log"))), None),
            cpu_s=float(resources["cpu_ms"]) / 1000 if "cpu_ms" in resources else None,
            gpu_s=float(resources.get("gpu_ms", 0)) / 1000,
            gpu=int(resources.get("gpu", 0)) > 0,
            priority=float(fields.get("priority", 0)),
            inputs=_paths(fields.get("input")),
            outputs=_paths(fields.get("output")),
        ))
    return jobs


def dry_run(config: str, cwd: Path = ROOT) -> list[PlannedJob]:
    """The jobs of a clean run of ``config`` (``snakemake -n --forceall``; nothing is run)."""
    env = {**os.environ, "PYTHONPATH": str(cwd / "lib")}
    snakemake = Path(sys.executable).parent / "snakemake"
    proc = subprocess.run([str(snakemake), "-n", "--forceall", "--nolock", "--cores", "1",
                           "--configfile", config], cwd=cwd, env=env, capture_output=True,
                          text=True)
    if proc.returncode != 0:
        raise SystemExit(f"the dry run of {config} failed:\n{proc.stdout[-3000:]}{proc.stderr[-3000:]}")
    return parse_dry_run(proc.stdout)


@dataclass(frozen=True)
class Schedule:
    """The replay of a run: its wall seconds and the chain of jobs that ended last."""

    seconds: float
    chain: list[PlannedJob]


def schedule(jobs: list[PlannedJob], cores: int | None, gpus: int, on_node: bool,
             speed: float = 1.0) -> Schedule:
    """Replay the dependency graph with each job's predicted seconds (``PlannedJob.seconds``,
    divided by the ``speed`` of the machine against the reference, ``machine_speed``): a job
    starts when its inputs exist and, unless ``cores`` is None (as many as wanted: the critical
    path), its threads (at most ``cores``) are free, and for a GPU job one of ``gpus`` GPUs; ready
    jobs start by priority, then longest first (Snakemake's order, roughly)."""
    producer = {path: i for i, job in enumerate(jobs) for path in job.outputs}
    needs = [{producer[p] for p in job.inputs if p in producer} - {i} for i, job in enumerate(jobs)]
    users: list[list[int]] = [[] for _ in jobs]
    for i, deps in enumerate(needs):
        for d in deps:
            users[d].append(i)
    waiting = [len(deps) for deps in needs]
    duration = [job.seconds(on_node) / speed for job in jobs]
    threads = [min(job.threads, cores or job.threads) for job in jobs]
    uses_gpu = [on_node and job.gpu for job in jobs]
    ready = [i for i, w in enumerate(waiting) if w == 0]
    running: list[tuple[float, int]] = []
    end, last = [0.0] * len(jobs), [-1] * len(jobs)
    now, free_cores, free_gpus = 0.0, cores, gpus
    while ready or running:
        ready.sort(key=lambda i: (-jobs[i].priority, -duration[i]))
        for i in list(ready):
            if (cores is None or threads[i] <= free_cores) and (not uses_gpu[i] or free_gpus > 0):
                ready.remove(i)
                if cores is not None:
                    free_cores -= threads[i]
                free_gpus -= uses_gpu[i]
                heapq.heappush(running, (now + duration[i], i))
        now, i = heapq.heappop(running)
        end[i] = now
        if cores is not None:
            free_cores += threads[i]
        free_gpus += uses_gpu[i]
        for u in users[i]:
            waiting[u] -= 1
            if last[u] < 0 or end[i] > end[last[u]]:
                last[u] = i
            if waiting[u] == 0:
                ready.append(u)
    i, chain = max(range(len(jobs)), key=lambda j: end[j]), []
    while i >= 0:
        chain.append(jobs[i])
        i = last[i]
    return Schedule(max(end, default=0.0), chain[::-1])


def _hours(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.0f} s"
    return f"{seconds / 60:.0f} min" if seconds < 3600 else f"{seconds / 3600:.1f} h"


def _job(job: PlannedJob, on_node: bool) -> str:
    return f"{job.rule} {job.wildcards}".strip() + f" ({_hours(job.seconds(on_node))})"


def describe(jobs: list[PlannedJob], cap_hours: float,
             node_cores: int) -> tuple[str, list[PlannedJob]]:
    """Per stage and in total: jobs, predicted CPU-hours (every job on cores) and GPU-hours (the
    GPU jobs of a GPU node), hours requested from a cluster, peak memory, the stage's wall time
    alone on one GPU node (``schedule``) and its longest job there; and the jobs requested over
    the cap."""
    lines = [f"{'stage':<24}{'jobs':>5}{'CPU-hours':>10}{'GPU-hours':>10}{'requested':>11}"
             f"{'memory':>9}{'GPU node':>10}  longest job on the GPU node (predicted)"]
    groups = [s for s in (*STAGES, "claims") if any(j.stage == s for j in jobs)]
    for stage, part in [(s, [j for j in jobs if j.stage == s]) for s in groups] + [("total", jobs)]:
        big = max(part, key=lambda j: j.seconds(True))
        wall = schedule(part, node_cores, 1, on_node=True).seconds
        lines.append(f"{stage:<24}{len(part):>5}{sum(j.cpu_hours for j in part):>10.2f}"
                     f"{sum(j.gpu_s for j in part if j.gpu) / 3600:>10.2f}"
                     f"{sum(j.requested_hours for j in part):>9.1f} h"
                     f"{max(j.mem_mb for j in part) / 1024:>6.1f} GB{_hours(wall):>10}  "
                     f"{_job(big, True)}")
    over = [j for j in jobs if j.runtime_min > cap_hours * 60]
    return "\n".join(lines), over


#: The stages that evaluate constructions (every stage but the trained models), planned together.
CONSTRUCTIONS = tuple(s for s in STAGES if s != "trained_models")


def wall_times(jobs: list[PlannedJob], cores: int, node: dict, gpu: str, here_speed: float) -> str:
    """The wall time of the run on this machine (at its ``here_speed``, ``machine_speed``), on one
    GPU node (its cores at the reference's speed; also the construction stages together and the
    trained models alone, each with its GPU jobs' hours: what the GPU does not explain, the cores
    do) and under SLURM."""
    here = schedule(jobs, cores, 0, on_node=False, speed=here_speed)
    node_run = schedule(jobs, node["cores"], 1, on_node=True)
    groups = {"constructions": [j for j in jobs if j.stage in CONSTRUCTIONS],
              "trained models": [j for j in jobs if j.stage == "trained_models"]}
    # each group alone on the node, and its GPU jobs' share: the rest of its time is its cores'
    parts = {name: f"{_hours(schedule(part, node['cores'], 1, on_node=True).seconds)} (its GPU "
                   f"jobs {_hours(sum(j.gpu_s for j in part if j.gpu))})"
             for name, part in groups.items()}
    slurm = schedule(jobs, None, len(jobs), on_node=True)
    on_gpu = [j for j in jobs if j.gpu]
    gpu_note = (f"{len(on_gpu)} jobs on the GPU, {_hours(sum(j.gpu_s for j in on_gpu))} of it"
                if on_gpu else "no job placed on the GPU (every stage's device is cpu)")
    return "\n".join([
        f"wall time on this machine ({cores} cores, no GPU: every job on a core; {here_speed:.2f} "
        "times the speed of the machine the cost models were fitted on, workflow/machine_speed.py):"
        f" {_hours(here.seconds)}",
        f"one GPU node ({node['cores']} cores + 1 {gpu}; CPU jobs in parallel on the cores, GPU "
        f"jobs one at a time, first): {_hours(node_run.seconds)} ({gpu_note}); the "
        f"{len(CONSTRUCTIONS)} construction stages together {parts['constructions']}, the "
        f"trained models {parts['trained models']}",
        f"SLURM critical path (a node for every job; the longest chain of jobs): "
        f"{_hours(slurm.seconds)}: " + " -> ".join(_job(j, True) for j in slurm.chain
                                                   if j.seconds(True) >= 60 or j is slurm.chain[-1]),
    ])


def measured(jobs: list[PlannedJob], cwd: Path = ROOT, speed: float = 1.0) -> list[dict]:
    """For every job with a benchmark record on disk: its predicted seconds on a core of a machine
    of this ``speed`` (``machine_speed``) against its measured wall seconds and CPU seconds
    (``job_cpu_seconds``)."""
    rows = []
    for job in jobs:
        path = cwd / job.benchmark if job.benchmark else None
        if path is None or not path.is_file():
            continue
        with path.open() as handle:
            record = next(csv.DictReader(handle, delimiter="\t"))
        rows.append({"rule": job.rule, "stage": job.stage, "wildcards": job.wildcards,
                     "threads": job.threads, "predicted_s": job.seconds(on_node=False) / speed,
                     "speed": speed,
                     "wall_s": float(record["s"]),
                     "cpu_s": job_cpu_seconds(cwd / job.log if job.log else None, record),
                     "mean_load": float(record["mean_load"]),
                     "max_rss_mb": float(record["max_rss"])})
    return rows


def job_cpu_seconds(log: Path | None, record: dict) -> float:
    """A finished job's CPU seconds: the end line of its log (``joblog.logged_cpu_seconds``), else
    its benchmark ``record``'s sampled ``cpu_time`` (a lower bound: an older log)."""
    logged = logged_cpu_seconds(log.read_text()) if log is not None and log.is_file() else None
    return float(record["cpu_time"]) if logged is None else logged


def busy_seconds(row: dict) -> float:
    """A job's time on an idle core: its CPU time per thread (its wall time when no CPU time was
    recorded)."""
    return row["cpu_s"] / row["threads"] if row["cpu_s"] > 0 else row["wall_s"]


def agreement(rows: list[dict], key) -> tuple[float, float]:
    """Median over jobs of measured / predicted seconds, and total measured over total predicted."""
    ratios = sorted(key(r) / r["predicted_s"] for r in rows)
    mid = len(ratios) // 2
    median = ratios[mid] if len(ratios) % 2 else (ratios[mid - 1] + ratios[mid]) / 2
    return median, sum(key(r) for r in rows) / sum(r["predicted_s"] for r in rows)


#: Measured records of default runs (``make plan ARGS="--measured --record ..."``), committed.
RECORDS = ROOT / "benchmarks" / "records"


def recorded_agreement(jobs: list[PlannedJob]) -> tuple[Path, int, float, float, list]:
    """The latest committed records of a default run (``RECORDS``) against the predictions of
    ``jobs`` (a dry run of ``config/config.yaml``), each prediction divided by the ``speed`` of the
    machine that recorded it (``machine_speed``; 1, the reference, for records without the column):
    the file, its record count, ``agreement`` on an idle core, and the records that name no job of
    ``jobs`` (as ``(rule, wildcards)``)."""
    path = sorted(RECORDS.glob("config-*.csv"))[-1]
    with path.open() as handle:
        records = list(csv.DictReader(handle))
    planned = {(j.rule, j.wildcards): j for j in jobs}
    missing = [(r["rule"], r["wildcards"]) for r in records
               if (r["rule"], r["wildcards"]) not in planned]
    rows = [{"predicted_s": planned[r["rule"], r["wildcards"]].seconds(on_node=False)
             / float(r.get("speed") or 1),
             "cpu_s": float(r["cpu_s"]), "wall_s": float(r["wall_s"]),
             "threads": int(r["threads"])} for r in records
            if (r["rule"], r["wildcards"]) in planned]
    return path, len(records), *agreement(rows, busy_seconds), missing


def _agreement_line(rows: list[dict]) -> str:
    """``agreement`` of ``rows`` on an idle core, with their measured and predicted seconds (what
    a cost model's constants are refitted from: per rule, as ``make plan ARGS=--measured``
    prints it)."""
    median, total = agreement(rows, busy_seconds)
    return (f"median {median:.2f}, total {total:.2f} ({sum(busy_seconds(r) for r in rows):.0f} s "
            f"measured, {sum(r['predicted_s'] for r in rows):.0f} s predicted)")


def write_record(rows: list[dict], path: Path, config: str) -> None:
    """The measured records of a run (not the predictions), with the machine they ran on and its
    speed (``measured``'s)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="") as handle:
        columns = ["config", "machine", "speed", "rule", "wildcards", "threads", "wall_s", "cpu_s",
                   "mean_load", "max_rss_mb"]
        writer = csv.DictWriter(handle, columns, lineterminator="\n", extrasaction="ignore")
        writer.writeheader()
        for row in rows:
            writer.writerow({**row, "config": config, "machine": machine(),
                             "speed": f"{row['speed']:.3g}"})


def node_settings(cfg: dict) -> dict:
    """The GPU node a config plans for: its ``node`` section over 16 cores and an H100."""
    return {"cores": 16, "gpu": "H100", **(cfg.get("node") or {})}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("config", help="the config file, e.g. config/paper.yaml")
    parser.add_argument("--cap-hours", type=float, default=None,
                        help="refuse a plan with a job requested longer than this (default: the "
                             "config's limits.job_hours)")
    parser.add_argument("--cores", type=int, default=os.cpu_count(),
                        help="cores of this machine for its wall time (default: all)")
    parser.add_argument("--speed", type=float, default=None,
                        help="this machine's speed against the machine the cost models were "
                             "fitted on (default: measured once and cached, "
                             "workflow/machine_speed.py)")
    parser.add_argument("--measured", action="store_true",
                        help="also compare with the measured time of a finished run")
    parser.add_argument("--record", type=Path, default=None,
                        help="with --measured: write the run's measured records to this CSV")
    args = parser.parse_args(argv)
    if args.speed is not None and not args.speed > 0:
        parser.error(f"--speed must be a positive number, got {args.speed}")
    cfg = yaml.safe_load(Path(args.config).read_text())
    if args.cap_hours is None:
        args.cap_hours = float(cfg["limits"]["job_hours"])
    node = node_settings(cfg)
    gpu_rows = rates(node["gpu"])
    gpu = gpu_rows["search_kernel_flops"]["device"]
    jobs = dry_run(args.config)
    text, over = describe(jobs, args.cap_hours, node["cores"])
    print(f"Plan of a clean run of {args.config}: hours predicted by the cost models (CPU-hours on "
          f"one core per job; GPU-hours on one {gpu}, rates measured "
          f"{gpu_rows['search_kernel_flops']['date']} in benchmarks/device_rates.csv), and "
          "requested from a cluster (padded):")
    print(text)
    here_speed = speed() if args.speed is None else args.speed
    print(wall_times(jobs, args.cores, node, gpu, here_speed))
    if args.measured:
        rows = measured(jobs, speed=here_speed)
        if rows:
            busy, wall = agreement(rows, busy_seconds), agreement(rows, lambda r: r["wall_s"])
            print(f"measured / predicted over {len(rows)} finished compute jobs: on an idle core "
                  f"(CPU time per thread) median {busy[0]:.2f}, total {busy[1]:.2f}; wall time "
                  f"median {wall[0]:.2f}, total {wall[1]:.2f} (the jobs' CPU time was "
                  f"{100 * sum(r['cpu_s'] for r in rows) / sum(r['wall_s'] * r['threads'] for r in rows):.0f}"
                  " % of their wall time on their threads: other work on the machine stretches "
                  "wall time)")
            for stage in [s for s in STAGES if any(r["stage"] == s for r in rows)]:
                part = [r for r in rows if r["stage"] == stage]
                print(f"  {stage:<24}{len(part):>4} jobs: {_agreement_line(part)}")
                for rule in sorted({r["rule"] for r in part}):
                    print(f"    {rule:<22}{sum(r['rule'] == rule for r in part):>4} jobs: "
                          f"{_agreement_line([r for r in part if r['rule'] == rule])}")
            if args.record:
                write_record(rows, args.record, args.config)
                print(f"records written to {args.record}")
    if over:
        for job in over:
            print(f"job {job.rule} {job.wildcards} is requested at "
                  f"{_hours(job.runtime_min * 60)}, over the cap of {args.cap_hours:g} h",
                  file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
