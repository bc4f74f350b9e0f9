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
            if not (
                PROJECT / (script_path := f"workflow/scripts/{stage}/plot_{fig}.py")
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
    for written in workflow.rules:
        for path in written.output:
            parts = Path(path).parts
            if (
                len(parts) == 3
                and parts[0] == "results"
                and parts[1] in STAGES
                and path.endswith(".csv")
                and path not in declared
            ):
                problems.append(
                    f"rule {written.name} writes {path}, not declared in TABLES"
                )
    return problems


# Checked before any rule is generated, so a disagreement is reported as such (and nothing runs).
_problems = _declaration_problems()
if _problems:
    raise WorkflowError(
        "The stages' declarations disagree with their rules and claims:\n  "
        + "\n  ".join(_problems)
    )


# The rules are made inside functions: a script: directive is evaluated when the job runs, so in a
# plain loop every generated rule would run the script of the loop's last iteration.
def gather_rule(stage, name, spec):
    """Concatenate a gathered table from its parts (and summarise its cells, ``gathered``)."""

    rule:
        name:
            f"{stage}_gather_{name}"
        input:
            tables=spec["parts"],
            lib=lib_deps(project_path("workflow/scripts/concat_tables.py")),
        output:
            table_output(stage, name),
        log:
            f"logs/{stage}/gather_{name}.log",
        conda:
            ENV
        resources:
            runtime=CHEAP_RUNTIME,
        params:
            cells=spec["cells"],
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
            **({"claims": f"results/claims/{stage}.csv"} if spec["verdict"] else {}),
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
            gather_rule(_stage, _name, _spec)
    for _name, _spec in FIGURES[_stage].items():
        plot_rule(_stage, _name, _spec)
    stage_rule(_stage)
