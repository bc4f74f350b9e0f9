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


def run_summary(stages):
    """The run's last line, from the claims tables of ``stages`` (never from a results/claims.csv
    this run did not rebuild); after a partial run it names the stages it covers."""
    if not stages:
        return (
            "No claims judged: this run's targets include no stage's claims table "
            "(`make` or `make ARGS=<stage>` judge them)."
        )
    import pandas as pd
    from expressivity.claims import summary_line
    from expressivity.io import read_table

    line = summary_line(
        pd.concat([read_table(f"results/claims/{s}.csv") for s in stages])
    )
    if len(stages) < len(STAGES):
        named = ", ".join(stages)
        line += (
            f" (stage{'s' if len(stages) > 1 else ''} {named} only: "
            f"{len(stages)} of {len(STAGES)} stages)"
        )
    return line


def write_run_summary(dag):
    """Print the run's summary line and record it, with the stages and config files it covers."""
    import hashlib
    import json
    from datetime import datetime, timezone

    stages = judged_stages(dag)
    line = run_summary(stages)
    record = {
        "summary": line,
        "stages": stages,
        "all_stages": len(stages) == len(STAGES),
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
