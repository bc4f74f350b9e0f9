# The claims ledger: each stage's claims from its tables, then one table for the whole run.


rule stage_claims:
    """Evaluate the claims of one stage (registry: expressivity.claims.<stage>)."""
    input:
        tables=lambda wc: STAGE_TABLES[wc.stage],
        lib=lambda wc: [*script_deps("claims_stage.py"), *lib_deps(claims_module(wc.stage))],
    output:
        report(
            "results/claims/{stage}.csv",
            caption="../report/claims_stage.rst",
            category="Claims",
            labels={"stage": "{stage}"},
        ),
    params:
        stage="{stage}",
    wildcard_constraints:
        stage="|".join(STAGE_TABLES),
    conda:
        ENV
    log:
        "logs/claims/{stage}.log",
    script:
        "../scripts/claims_stage.py"


rule claims:
    """Gather every stage's claims into results/claims.csv and log the pass count."""
    input:
        stages=expand("results/claims/{stage}.csv", stage=list(STAGE_TABLES)),
        lib=script_deps("claims_gather.py"),
    output:
        report(
            "results/claims.csv",
            caption="../report/claims.rst",
            category="Claims",
            labels={"stage": "all"},
        ),
    conda:
        ENV
    log:
        "logs/claims/all.log",
    script:
        "../scripts/claims_gather.py"
