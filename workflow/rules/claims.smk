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
    """Predicted (the cost models, as `make plan` prints them) against measured time per job."""
    input:
        "results/claims.csv",
        script=script_deps("run", "plan_vs_measured"),
        plan=lib_deps("workflow/plan.py"),
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
        config=os.path.relpath(workflow.configfiles[-1]),
    script:
        "../scripts/run/plan_vs_measured.py"
