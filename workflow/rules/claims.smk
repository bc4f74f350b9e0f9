# The claims: each stage's verdicts, each paper's (make paper), the gathered table, and the run's plan
# against its measured time. Every table a claim reads is an input, so an edited threshold re-judges it.


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
    """Predicted (the cost models, as `make plan` prints them) against measured time per job."""
    input:
        "results/claims.csv",
        script=script_deps("run", "plan_vs_measured"),
        plan=lib_deps(
            *(
                project_path(f"workflow/{name}.py")
                for name in ("plan", "device_rates", "machine_speed")
            )
        ),
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
