# The claims: each stage's verdicts, the gathered table, and the run's plan against its measured
# time. Every table a claim reads is an input, so an edited threshold re-judges its stage.


rule stage_claims:
    """Evaluate the claims of one stage (registry: expressivity.claims.<stage>) and simulate the
    power of its statistical findings."""
    input:
        tables=lambda wc: claim_tables(wc.stage),
        lib=lambda wc: [
            *script_deps("claims", "stage"),
            *lib_deps(claims_module(wc.stage)),
        ],
    output:
        claims=report(
            "results/claims/{stage}.csv",
            caption="../report/claims_stage.rst",
            category="Claims",
            labels={"stage": "{stage}"},
        ),
        power="results/claims/power/{stage}.csv",
    log:
        "logs/claims/{stage}.log",
    wildcard_constraints:
        stage="|".join(STAGES),
    conda:
        ENV
    resources:
        runtime=CHEAP_RUNTIME,
    params:
        stage="{stage}",
        seed=config["seed"],
    script:
        "../scripts/claims/stage.py"


rule claims:
    """Gather every stage's claims into results/claims.csv and their power simulations into
    results/claims/power.csv, and log the pass count."""
    input:
        stages=expand("results/claims/{stage}.csv", stage=STAGES),
        power=expand("results/claims/power/{stage}.csv", stage=STAGES),
        lib=script_deps("claims", "gather"),
    output:
        claims=report(
            "results/claims.csv",
            caption="../report/claims.rst",
            category="Claims",
            labels={"stage": "all"},
        ),
        power=report(
            "results/claims/power.csv",
            caption="../report/claims_power.rst",
            category="Claims",
            labels={"stage": "power"},
        ),
    log:
        "logs/claims/all.log",
    conda:
        ENV
    resources:
        runtime=CHEAP_RUNTIME,
    script:
        "../scripts/claims/gather.py"


rule paper_claims:
    """Evaluate one paper's claims (registry: expressivity.claims.PAPERS), joint ones included,
    from the tables they read, and draw the figures they name: `make paper PAPER=<key>` runs
    only the jobs these need (a figure whose title states its claims' verdicts also needs its
    stage's claims table). Each row is the one its stage's claims table has."""
    input:
        tables=lambda wc: paper_inputs(wc.paper)["tables"],
        figures=lambda wc: paper_inputs(wc.paper)["figures"],
        lib=lambda wc: [
            *script_deps("claims", "paper"),
            *paper_inputs(wc.paper)["lib"],
        ],
    output:
        "results/papers/{paper}.csv",
    log:
        "logs/papers/{paper}.log",
    wildcard_constraints:
        paper="|".join(PAPERS),
    conda:
        ENV
    resources:
        runtime=CHEAP_RUNTIME,
    params:
        paper="{paper}",
        seed=config["seed"],
    script:
        "../scripts/claims/paper.py"


rule plan_vs_measured:
    """Planned (the rules' runtime, as `make plan` prints it) against measured time per job."""
    input:
        "results/claims.csv",
        script=script_deps("run", "plan_vs_measured"),
        plan=lib_deps(project_path("workflow/plan.py")),
    output:
        table="results/run/plan_vs_measured.csv",
        png=report(
            "figures/run/plan_vs_measured.png",
            caption="../report/plan_vs_measured.rst",
            category="Run",
        ),
        pdf="figures/run/plan_vs_measured.pdf",
    log:
        "logs/run/plan_vs_measured.log",
    conda:
        ENV
    resources:
        runtime=CHEAP_RUNTIME,
    params:
        config=os.path.relpath(workflow.configfiles[-1]) if workflow.configfiles else "",
    script:
        "../scripts/run/plan_vs_measured.py"


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
