# Shared helpers: config validation, paths, library dependencies of scripts, and the declarations
# every stage fills in (TABLES, FIGURES), from which workflow/rules/outputs.smk generates the
# gather, plot, stage and claims rules.
import functools
import importlib
import math
import os
import sys
from pathlib import Path

#: The project's folder (this file's grandparent), also when the workflow is used as a Snakemake
#: module from another folder: library, scripts and schemas are found from here, never from the
#: working directory.
PROJECT = Path(str(workflow.current_basedir)).resolve().parents[1]


def project_path(path):
    """``path`` (relative to the project) as rules name it: relative to the working directory,
    so ``lib/...`` where the project is the working directory and the same on every clone.
    """
    return os.path.normpath(os.path.relpath(PROJECT / path))


sys.path.insert(0, str(PROJECT / "workflow"))
# The library, also where Snakemake runs without the project installed (a module, --sdm conda):
# job scripts inherit this process's sys.path.
sys.path.insert(0, str(PROJECT / "lib"))
from config_schema import ConfigError, check_config  # noqa: E402
from expressivity.claims import PAPERS, STAGES, paper_claims, stage_claims  # noqa: E402
from expressivity.experiments import trial_chunks  # noqa: E402
from expressivity.io import damaged_tables  # noqa: E402
from job_params import find, job_settings, keywords, scopes, what_lowers  # noqa: E402
from library_imports import library_closure  # noqa: E402
from scheduler_timer import install as one_pending_reevaluation  # noqa: E402
from snakemake.logging import logger  # noqa: E402
from snakemake.resources import Resource  # noqa: E402

# Snakemake's scheduler wakes up once more per round it ran (workflow/scheduler_timer.py): one
# pending wake-up instead, so that its rounds follow the jobs and leave the cores to them.
one_pending_reevaluation()

LIB = Path(project_path("lib/expressivity"))
#: The software of every job (relative to workflow/rules/): the pinned packages, for --use-conda.
ENV = "../../environment.yml"

try:
    _checked = check_config(
        config,
        PROJECT / "workflow/schemas/config.schema.yaml",
        workflow.configfiles,
    )
except ConfigError as err:
    raise WorkflowError(
        f"{err}\nNothing was run; fix the config and start again."
    ) from None


def _canonical(node):
    """The config with keys sorted at every level: params compare equal whatever the key order."""
    if isinstance(node, dict):
        return {k: _canonical(node[k]) for k in sorted(node)}
    return node


config.clear()
config.update(_canonical(_checked))


def set_aside_damaged_tables(root="results", aside="results/.damaged"):
    """Move every table that no longer matches the checksum recorded when its job wrote it (cut,
    edited, overwritten) to ``aside``, so that Snakemake rebuilds it (and what reads it) instead of
    a consumer failing on it; nothing is deleted. Runs before the DAG is built."""
    for path, reason in damaged_tables(root):
        target = Path(aside) / path.relative_to(root)
        target.parent.mkdir(parents=True, exist_ok=True)
        path.replace(target)
        logger.warning(
            f"{reason}.\nMoved to {target}; it will be rebuilt with what depends on it."
        )


if workflow.is_main_process:
    set_aside_damaged_tables()


# ---- paths -----------------------------------------------------------------------------------


def table(stage, name):
    """``results/<stage>/<name>.csv``: a stage's table, as claims and figures name it."""
    return f"results/{stage}/{name}.csv"


def figure(stage, name):
    """PNG and PDF paths of one figure."""
    return [f"figures/{stage}/{name}.png", f"figures/{stage}/{name}.pdf"]


def caption(stage, name, kind):
    """The report caption of a figure or table (relative to workflow/rules/), or None."""
    path = (
        f"report/{stage}/{name}.rst"
        if kind == "figure"
        else f"report/{stage}/tables/{name}.rst"
    )
    return f"../{path}" if (PROJECT / "workflow" / path).is_file() else None


def table_output(stage, name):
    """A table as a rule's output: in the HTML report when it has a caption."""
    text = caption(stage, name, "table")
    path = table(stage, name)
    return report(path, caption=text, category=stage) if text else path


def front_page(template):
    """The report's front page: ``template`` with the run's claims summary, its claims table and
    config file(s) filled in (written under .snakemake/, where Snakemake keeps its own state).
    """
    from expressivity.claims import KINDS, summary_line
    from expressivity.io import TableError, read_table
    from report_page import front_page_text

    try:
        table = read_table("results/claims.csv")
        summary = summary_line(table) + "."
    except TableError:
        table, summary = (
            None,
            "No claims table yet (results/claims.csv is built by a full run).",
        )
    files = ", ".join(f"``{os.path.relpath(f)}``" for f in workflow.configfiles)
    text = front_page_text(
        Path(template).read_text(), summary, table, KINDS, f"Run with {files}"
    )
    page = Path(".snakemake/report/workflow.rst")
    page.parent.mkdir(parents=True, exist_ok=True)
    page.write_text(text)
    return str(page.resolve())


# ---- library dependencies --------------------------------------------------------------------


def lib_deps(*paths):
    """The given files and the library files they use, followed transitively
    (``library_imports.library_closure``).

    A rule lists them as inputs, so an edit to the mathematics reruns exactly the jobs that use it.
    """
    return library_closure(paths, LIB)


def script_deps(folder, step):
    """``workflow/scripts/<folder>/<step>.py`` itself and the library files it uses.

    The script is an input so that its checksum, not its modification time, decides whether an
    edit reruns the job (the default profile drops Snakemake's mtime-based ``code`` trigger, which
    would rerun everything after a fresh ``git clone``)."""
    return lib_deps(project_path(f"workflow/scripts/{folder}/{step}.py"))


def script_path(folder, step):
    """The ``script:`` path of ``workflow/scripts/<folder>/<step>.py`` (relative to workflow/rules/)."""
    return f"../scripts/{folder}/{step}.py"


# ---- what a job uses and what it asks for -------------------------------------------------------


def job_params(stage, function, *sections, supplied=(), keys=None, given=None):
    """The params of a job calling ``expressivity.experiments.<stage>.<function>``: every keyword
    of its signature, looked up in ``<stage>.<section>`` for each section named, then the stage,
    then the top level (``job_params.job_settings``); ``supplied`` are passed by the script (the
    wildcards, the tables it reads). A job's params hold only what it uses, so a value added to
    another setting (or a sweep list that is a wildcard) does not rerun it."""
    return job_settings(
        config,
        stage,
        function,
        *sections,
        supplied=supplied,
        keys=keys,
        given=given,
    ).values


def numeric(wildcards):
    """A job's wildcards as keywords of a cost model, digits as integers."""
    return {k: int(v) if v.isdigit() else v for k, v in wildcards.items()}


#: Minutes planned for a gather, plot or claims job (seconds in practice), the least any job asks.
CHEAP_RUNTIME = 2


#: The runtime a job asks for: RUNTIME_MARGIN times its predicted time, plus START_MINUTES.
RUNTIME_MARGIN, START_MINUTES = 1.5, 1
#: The GPU node a run is planned for: its CPU cores and its GPU (named as in the measured rates).
NODE = config["node"]


def plannable_seconds(job_hours):
    """The longest predicted time whose runtime (``job_resources``) stays within ``job_hours``."""
    return (60 * job_hours - START_MINUTES) * 60 / RUNTIME_MARGIN


@functools.cache
def gpu_rates():
    """``{quantity: value}``: the latest measured rates of the node's GPU (``node.gpu``) in
    benchmarks/device_rates.csv (workflow/device_rates.py), for the cost models' GPU plans.
    """
    from device_rates import rates

    try:
        return {quantity: row["value"] for quantity, row in rates(NODE["gpu"]).items()}
    except ValueError as err:
        raise WorkflowError(f"{err}\nNothing was run.") from None


def placement(device, seconds, gpu_seconds):
    """Where a job with a GPU path runs, from the stage's ``device`` and its predicted seconds on
    one CPU core and on the node's GPU (None: no GPU cost model): "cpu", or ``device`` itself.
    ``cuda`` puts every such job on the GPU; ``auto`` only those the GPU finishes before the
    node's cores together would (``gpu_seconds * node.cores < seconds``), so that GPU jobs, which
    run one at a time, never make a GPU node slower than its CPUs alone; the rest run on a core
    (device "cpu", gpu=0), also on a machine with a GPU."""
    if device == "cuda":
        return device
    if (
        device == "auto"
        and gpu_seconds is not None
        and gpu_seconds * NODE["cores"] < seconds
    ):
        return device
    return "cpu"


#: The resources ``job_resources`` gives every compute job.
JOB_RESOURCES = ("runtime", "mem_mb", "gpu", "cpu_ms", "gpu_ms")


def job_resources(seconds, peak_bytes, gpu_seconds=None, whole=None, device="cpu"):
    """The resources of a job from its cost model's predicted seconds on one CPU core, peak bytes
    and (for a job with a GPU path, whose stage's ``device`` is given) predicted seconds on the
    node's GPU: where it runs (``gpu``: 1 on the GPU, see ``placement``), the predictions
    ``cpu_ms`` and ``gpu_ms`` (0 for a job planned on a core) that `make plan` sums and schedules,
    and what a cluster is asked for: ``runtime`` (minutes), half again the longest the job can run
    on its device plus a minute to start (at least CHEAP_RUNTIME), and ``mem_mb``, a quarter more
    than the predicted memory (at least 500 MB). The longest is the prediction, or for a job whose
    length is not known before it runs (a training that stops at its target or plateau) ``whole``:
    its (CPU, GPU) seconds at its whole budget, so that a cluster never kills it before its end.
    """
    on_gpu = placement(device, seconds, gpu_seconds) != "cpu"
    gpu_planned = on_gpu and gpu_seconds is not None
    planned = gpu_seconds if gpu_planned else seconds
    longest = planned if whole is None else whole[1 if gpu_planned else 0]
    return {
        "runtime": max(
            CHEAP_RUNTIME, START_MINUTES + math.ceil(RUNTIME_MARGIN * longest / 60)
        ),
        "mem_mb": max(500, math.ceil(1.25 * peak_bytes / 2**20)),
        "gpu": int(on_gpu),
        "cpu_ms": math.ceil(1000 * seconds),
        "gpu_ms": math.ceil(1000 * planned) if on_gpu else 0,
    }


def per_job(cost, device="cpu"):
    """``job_resources`` of every job of a rule with wildcards; ``cost(wildcards)`` gives the
    job's (CPU seconds, peak bytes) or (CPU seconds, peak bytes, GPU seconds), ``device`` the
    stage's for a rule with a GPU path."""
    return {
        key: (lambda wc, key=key: job_resources(*cost(wc), device=device)[key])
        for key in JOB_RESOURCES
    }


def chunked_jobs(points, cost, device):
    """``{(*point, first, last): (CPU seconds, peak bytes, GPU seconds)}``: the jobs of a section
    run in chunks of trials, one per point and chunk of its trials; ``points`` are ``(*point,
    trials)`` (a sweep's ``(n, k, trials)``, BigBird's ``(n, trials)``), ``cost(*point, trials)``
    is a chunk's cost model (GPU seconds None without a GPU path), ``trial_chunks`` its
    chunking. Each point's trials go where all of them together are placed
    (``placement``) and are split so that no job, its start included, is planned there longer
    than node.job_minutes (nor its runtime over limits.job_hours)."""
    jobs = {}
    chunk_seconds = min(
        60 * NODE["job_minutes"], plannable_seconds(config["limits"]["job_hours"])
    )
    for *point, trials in points:
        cpu_s, _, gpu_s = cost(*point, trials)
        on_gpu = placement(device, cpu_s, gpu_s) != "cpu" and gpu_s is not None
        # the job's start (trials = 0) on that device, and each trial's seconds after it
        start = cost(*point, 0)[2 if on_gpu else 0]
        total = gpu_s if on_gpu else cpu_s
        for first, last in trial_chunks(
            trials, (total - start) / trials, (chunk_seconds - start) / 3600
        ):
            jobs[(*point, first, last)] = cost(*point, last - first + 1)
    return jobs


#: Added to the priority of a job placed on the GPU: above any CPU job's (the sparse searches'
#: priorities are predicted minutes), so that on a GPU node a free core goes first to the next GPU
#: job, and the GPU, which runs one job at a time, does not wait behind long CPU jobs.
GPU_FIRST = 100_000


def gpu_first(resources, priority=lambda wildcards: 0):
    """The ``priority`` of the jobs of a rule with a GPU path, from its ``resources``
    (``per_job``'s or ``planned``'s): the rule's own ``priority`` (0 by default), plus
    ``GPU_FIRST`` where the job's ``gpu`` is 1."""
    on_gpu = resources["gpu"]
    return lambda wildcards: priority(wildcards) + GPU_FIRST * on_gpu(wildcards)


def job_device(resources, device):
    """The ``device`` param of every job of a rule with a GPU path, from its ``resources``
    (``per_job``'s or ``planned``'s, for the stage's ``device``): ``device`` where the job's
    ``gpu`` is 1, else "cpu" (``placement``), so that a job planned on a core never takes the GPU.
    """
    return lambda wildcards: device if resources["gpu"](wildcards) else "cpu"


def planned(
    stage, function, *sections, supplied=(), keys=None, given=None, device="cpu"
):
    """``job_resources`` of each job of a rule from the cost model
    ``expressivity.experiments.<stage>.<function>``, its settings derived as ``job_params``'s
    (``supplied`` from the job's wildcards; a ``given`` callable is called with them), read from
    the config when a job is sized, so that a refusal can say which settings lower the estimate.
    ``device``: the stage's, for a job with a GPU path; a cost model that takes ``rates`` then gets
    the node GPU's measured rates (``gpu_rates``; None for "cpu") and gives its GPU seconds third,
    and the job goes where ``placement`` puts it (``job_device`` gives its device param); a
    training's cost model gives its whole budget fourth (``job_resources``: the runtime).
    """
    declared = dict(supplied=supplied, keys=keys, given=given)
    job = job_settings(config, stage, function, *sections, **declared)
    path, name = job.function.rsplit(".", 1)
    cost = getattr(importlib.import_module(path), name)
    where = scopes(stage, sections)
    gpu_plan = {}
    if "rates" in dict(keywords(job.function)):
        gpu_plan["rates"] = None if device == "cpu" else gpu_rates()

    def resource(key):
        def amount(wildcards):
            values = job_settings(config, stage, function, *sections, **declared).values
            settings = {
                k: v(wildcards) if callable(v) else v for k, v in values.items()
            }
            wc = numeric(wildcards)
            estimate = cost(**settings, **{k: wc[k] for k in supplied}, **gpu_plan)
            return job_resources(*estimate, device=device)[key]

        amount.wildcard_keys = {k: find(config, k, where) for k in supplied}
        return amount

    return {key: resource(key) for key in JOB_RESOURCES}


# ---- declarations: each stage's tables and figures, stated once ---------------------------------


def gathered(parts, cells=()):
    """A table concatenated, rows in order, from the tables of parallel jobs (``parts``); with
    ``cells`` (the columns that name a trained cell), parts that each hold some of a cell's
    learning rates, whose cell summary is then recomputed over the whole cell
    (``expressivity.experiments.trained_models.runs.cells_summarised``)."""
    return {"parts": list(parts), "cells": list(cells)}


#: A table written by a compute rule of the stage (whose output is ``table_output(stage, name)``).
COMPUTED = None


def plot(*tables, verdict=False, **params):
    """A figure drawn by ``workflow/scripts/<stage>/plot_<figure>.py`` from the stage's ``tables``
    (inputs named after them) with figure-only ``params``; with ``verdict``, also from the stage's
    claims table (input ``claims``), whose verdicts on this figure its title states."""
    return {"tables": list(tables), "params": params, "verdict": verdict}


#: {stage: {table name: COMPUTED or gathered(parts)}}, filled by workflow/rules/<stage>.smk.
TABLES = {stage: {} for stage in STAGES}
#: {stage: {figure name: plot(...)}}, filled by workflow/rules/<stage>.smk.
FIGURES = {stage: {} for stage in STAGES}


def claim_tables(stage):
    """The tables the stage's claims read (expressivity.claims.<stage>), as paths."""
    names = sorted({name for claim in stage_claims(stage) for name in claim.tables})
    return [table(stage, name) for name in names]


def paper_inputs(paper):
    """What one paper's claims need (``make paper PAPER=<key>``): the tables they read, the
    figures they name, and the claims modules of their stages (every stage they come from).
    """
    claims = paper_claims(paper)
    return {
        "tables": sorted({table(c.stage, name) for c in claims for name in c.tables}),
        "figures": sorted({path for c in claims for path in figure(c.stage, c.figure)}),
        "lib": sorted(
            {dep for c in claims for dep in lib_deps(claims_module(c.stage))}
        ),
    }


def claims_module(stage):
    """The file of a stage's claims: ``claims/<stage>.py`` or the package's ``__init__.py`` (whose
    imports of its topic modules lib_deps follows)."""
    package = LIB / "claims" / stage / "__init__.py"
    return str(package if package.is_file() else LIB / "claims" / f"{stage}.py")


def stage_outputs(stage):
    """Every table and figure of a stage, its claims table and its power simulations."""
    figures = [path for name in FIGURES[stage] for path in figure(stage, name)]
    tables = [table(stage, name) for name in TABLES[stage]]
    return [
        *figures,
        *tables,
        f"results/claims/{stage}.csv",
        f"results/claims/power/{stage}.csv",
    ]


def within_limits(job_rule, key, limit, unit, scale):
    """Make ``job_rule``'s resource ``key`` refuse, before any work, a job estimated above
    ``limit`` (Snakemake evaluates resources while it builds the DAG). The message names the job,
    and, for an estimate from ``planned``, the config keys to lower: those whose lowered value
    (``job_params.lowered``) lowers the estimate, and the config lists its wildcards come from.
    """
    resource = job_rule.resources.get(key)
    if resource is None:
        return  # the profile's default-resources apply, below every limit
    name = "job_hours" if unit == "h" else "job_memory_gb"

    stage = Path(job_rule.snakefile).stem

    def hints(estimate, wildcards):
        """What to lower: every setting of the rule's stage whose lowered value lowers the job's
        estimate (a resource computed when the job is sized), and its wildcards' config lists.
        """
        lower = []
        if estimate is not None and stage in config:
            lower = [
                f"{dotted} = {value!r} (lowered: {amount / scale:.3g} {unit})"
                for dotted, value, amount in what_lowers(
                    config[stage], stage, lambda: estimate(wildcards)
                )
            ]
        lower += [
            f"this job's {k} = {wildcards[k]}, an entry of {dotted}"
            for k, dotted in getattr(estimate, "wildcard_keys", {}).items()
            if dotted is not None
        ]
        return "lower one of " + "; ".join(lower) if lower else "split the job"

    def check(amount, wildcards, estimate=None):
        if isinstance(amount, int | float) and amount > limit * scale:
            where = dict(wildcards.items()) if wildcards else ""
            raise WorkflowError(
                f"job {job_rule.name} {where} is estimated at {amount / scale:.3g} {unit}, over "
                f"limits.{name} = {limit:g} {unit}. Nothing was run: "
                f"{hints(estimate, wildcards)}; or raise the limit on purpose. `make plan` "
                "shows every estimate."
            )
        return amount

    if resource.is_evaluable():
        estimate = resource._evaluator

        @functools.wraps(estimate)
        def checked(wildcards, **kwargs):
            return check(estimate(wildcards, **kwargs), wildcards, estimate)

        job_rule.resources[key] = Resource(key, checked)
    else:
        check(resource.value, None)


# ---- the run's last line ---------------------------------------------------------------------

#: The run's summary line and what it covers, written by ``onsuccess`` (``make`` prints it last).
RUN_SUMMARY = "results/run/summary.json"


def judged_stages(dag):
    """The stages whose claims table this run built or found up to date: those with a claims job
    in the run's DAG (Snakemake keeps an up-to-date job in it, marked as not needing to run).
    """
    outputs = {str(f) for job in dag.jobs for f in job.output}
    return [s for s in STAGES if f"results/claims/{s}.csv" in outputs]


def judged_papers(dag):
    """The papers whose claims table (``make paper``) this run built or found up to date."""
    outputs = {str(f) for job in dag.jobs for f in job.output}
    return [p for p in PAPERS if f"results/papers/{p}.csv" in outputs]


def run_summary(stages, papers):
    """The run's last line and each paper's line. After ``make paper`` (``papers`` judged), the
    lines of those papers, from their own tables (a stage's claims table such a run builds only
    feeds a figure's title). Otherwise the line of the claims tables of ``stages`` (never from a
    results/claims.csv this run did not rebuild), naming the stages it covers after a partial run,
    with every paper's line after a full one."""
    import pandas as pd
    from expressivity.claims import paper_summary, summary_line
    from expressivity.io import read_table

    if papers:
        lines = {
            p: paper_summary(read_table(f"results/papers/{p}.csv"), p) for p in papers
        }
        return "\n".join(lines.values()), lines
    if not stages:
        return (
            "No claims judged: this run's targets include no stage's or paper's claims table "
            "(`make`, `make ARGS=<stage>` or `make paper PAPER=<key>` judge them).",
            {},
        )
    table = pd.concat([read_table(f"results/claims/{s}.csv") for s in stages])
    line = summary_line(table)
    if len(stages) < len(STAGES):
        named = ", ".join(stages)
        line += (
            f" (stage{'s' if len(stages) > 1 else ''} {named} only: "
            f"{len(stages)} of {len(STAGES)} stages)"
        )
        return line, {}
    return line, {p: paper_summary(table, p) for p in PAPERS}


def write_run_summary(dag):
    """Print the run's summary line and record it, with each paper's line, the stages and papers
    and the config files it covers."""
    import hashlib
    import json
    from datetime import datetime, timezone

    stages, papers = judged_stages(dag), judged_papers(dag)
    line, lines = run_summary(stages, papers)
    record = {
        "summary": line,
        "stages": stages,
        "all_stages": len(stages) == len(STAGES),
        "papers": lines,
        "configfiles": [os.path.relpath(f) for f in workflow.configfiles],
        "config_sha256": [
            hashlib.sha256(Path(f).read_bytes()).hexdigest()
            for f in workflow.configfiles
        ],
        "finished": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }
    Path(RUN_SUMMARY).parent.mkdir(parents=True, exist_ok=True)
    Path(RUN_SUMMARY).write_text(json.dumps(record, indent=1) + "\n")
    print(line)
