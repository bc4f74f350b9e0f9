# Rules generated from the stages' declarations (TABLES, FIGURES in workflow/rules/<stage>.smk):
# one gather rule per gathered table, one plot rule per figure, one rule per stage that builds all
# of it. Compute rules, where the science is, are written out in the stage files.


def _declaration_problems():
    """Tables and figures declared but read by nothing, or read but not declared."""
    problems = []
    for stage in STAGES:
        read_by_figures = {
            t for spec in FIGURES[stage].values() for t in spec["tables"]
        }
        for claim in stage_claims(stage):
            problems += [
                f"claim {claim.id} reads table {t!r}, not declared in TABLES[{stage!r}]"
                for t in claim.tables
                if t not in TABLES[stage]
            ]
            if claim.figure not in FIGURES[stage]:
                problems.append(
                    f"claim {claim.id} names figure {claim.figure!r}, not declared "
                    f"in FIGURES[{stage!r}]"
                )
        problems += [
            f"figure {stage}/{fig} has no script {script_path}"
            for fig in FIGURES[stage]
            if not Path(
                script_path := f"workflow/scripts/{stage}/plot_{fig}.py"
            ).is_file()
        ]
        problems += [
            f"figure {stage}/{fig} reads table {t!r}, not declared in TABLES[{stage!r}]"
            for fig, spec in FIGURES[stage].items()
            for t in spec["tables"]
            if t not in TABLES[stage]
        ]
        read = read_by_figures | {t for c in stage_claims(stage) for t in c.tables}
        problems += [
            f"table {table(stage, name)} is declared but read by no claim and no figure"
            for name in TABLES[stage]
            if name not in read
        ]
    declared = {table(s, n) for s in STAGES for n in TABLES[s]}
    for rule in workflow.rules:
        for path in rule.output:
            parts = Path(path).parts
            if (
                len(parts) == 3
                and parts[0] == "results"
                and parts[1] in STAGES
                and path.endswith(".csv")
                and path not in declared
            ):
                problems.append(
                    f"rule {rule.name} writes {path}, not declared in TABLES"
                )
    return problems


# Checked before any rule is generated, so a disagreement is reported as such (and nothing runs).
_problems = _declaration_problems()
if _problems:
    raise WorkflowError(
        "The stages' declarations disagree with their rules and claims:\n  "
        + "\n  ".join(_problems)
    )


#: Minutes planned for a gather, plot or claims job (seconds in practice; they run locally).
CHEAP_RUNTIME = 2


# The rules are made inside functions: a script: directive is evaluated when the job runs, so in a
# plain loop every generated rule would run the script of the loop's last iteration.
def gather_rule(stage, name, parts):
    """Concatenate a gathered table from its parts."""

    rule:
        name:
            f"{stage}_gather_{name}"
        input:
            tables=parts,
            lib=lib_deps("workflow/scripts/concat_tables.py"),
        output:
            table_output(stage, name),
        log:
            f"logs/{stage}/gather_{name}.log",
        conda:
            ENV
        resources:
            runtime=CHEAP_RUNTIME,
        script:
            "../scripts/concat_tables.py"


def plot_rule(stage, name, spec):
    """Draw one figure from its tables."""
    png, pdf = figure(stage, name)

    rule:
        name:
            f"{stage}_plot_{name}"
        input:
            **{t: table(stage, t) for t in spec["tables"]},
            lib=script_deps(stage, f"plot_{name}"),
        output:
            png=report(png, caption=caption(stage, name, "figure"), category=stage),
            pdf=pdf,
        log:
            f"logs/{stage}/plot_{name}.log",
        conda:
            ENV
        resources:
            runtime=CHEAP_RUNTIME,
        params:
            **spec["params"],
        script:
            script_path(stage, f"plot_{name}")


def stage_rule(stage):
    """Everything of one stage."""

    rule:
        name:
            stage
        input:
            stage_outputs(stage),


for _stage in STAGES:
    for _name, _spec in TABLES[_stage].items():
        if _spec is not COMPUTED:
            gather_rule(_stage, _name, _spec["parts"])
    for _name, _spec in FIGURES[_stage].items():
        plot_rule(_stage, _name, _spec)
    stage_rule(_stage)


rule stage_claims:
    """Evaluate the claims of one stage (registry: expressivity.claims.<stage>)."""
    input:
        tables=lambda wc: claim_tables(wc.stage),
        lib=lambda wc: [
            *script_deps("claims", "stage"),
            *lib_deps(str(LIB / "claims" / f"{wc.stage}.py")),
        ],
    output:
        report(
            "results/claims/{stage}.csv",
            caption="../report/claims_stage.rst",
            category="Claims",
            labels={"stage": "{stage}"},
        ),
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
    script:
        "../scripts/claims/stage.py"


rule claims:
    """Gather every stage's claims into results/claims.csv and log the pass count."""
    input:
        stages=expand("results/claims/{stage}.csv", stage=STAGES),
        lib=script_deps("claims", "gather"),
    output:
        report(
            "results/claims.csv",
            caption="../report/claims.rst",
            category="Claims",
            labels={"stage": "all"},
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


def _within_limits(job_rule, key, limit, unit, scale):
    """Make ``job_rule``'s resource ``key`` refuse, before any work, a job estimated above
    ``limit`` (Snakemake evaluates resources while it builds the DAG)."""
    resource = job_rule.resources.get(key)
    if resource is None:
        return  # the profile's default-resources apply, below every limit
    name = "job_hours" if unit == "h" else "job_memory_gb"

    def check(amount, wildcards):
        if isinstance(amount, int | float) and amount > limit * scale:
            where = dict(wildcards.items()) if wildcards else ""
            raise WorkflowError(
                f"job {job_rule.name} {where} is estimated at {amount / scale:.3g} {unit}, over "
                f"limits.{name} = {limit:g} {unit}. Nothing was run: split the job (fewer trials "
                "or points per job) or raise the limit on purpose; `make plan` shows every estimate."
            )
        return amount

    if resource.is_evaluable():
        estimate = resource._evaluator

        @functools.wraps(estimate)
        def checked(wildcards, **kwargs):
            return check(estimate(wildcards, **kwargs), wildcards)

        job_rule.resources[key] = Resource(key, checked)
    else:
        check(resource.value, None)


for _rule in workflow.rules:
    _within_limits(_rule, "runtime", config["limits"]["job_hours"], "h", 60)
    _within_limits(_rule, "mem_mb", config["limits"]["job_memory_gb"], "GB", 1024)
