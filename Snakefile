# One-command reproduction of four results on what transformer attention can express.
# Run it with `make` (see README.md); the config is validated before any job runs.
from snakemake.utils import min_version

min_version("9.0")


# config/config.yaml unless --configfile names another; a named file is used alone (not merged
# into the default), so a section missing from it is reported instead of silently inherited.
if not workflow.config_settings.configfiles:

    configfile: "config/config.yaml"


include: "workflow/rules/common.smk"


# One rules file per stage (the stage list: expressivity.claims.STAGES), each declaring its tables
# and figures (TABLES, FIGURES) and writing out its compute rules; outputs.smk generates the rest.
for _stage in STAGES:

    include: f"workflow/rules/{_stage}.smk"


include: "workflow/rules/outputs.smk"
include: "workflow/rules/claims.smk"


# Every job's estimated runtime and memory within the config's limits, checked before any work.
for _rule in workflow.rules:
    within_limits(_rule, "runtime", config["limits"]["job_hours"], "h", 60)
    within_limits(_rule, "mem_mb", config["limits"]["job_memory_gb"], "GB", 1024)


# Under a cluster executor only compute jobs (the rules with a benchmark record) are submitted;
# gathers, plots and claims are cheap and run on the submitting host.
workflow.localrules(*[rule.name for rule in workflow.rules if not rule.benchmark])


report: front_page(PROJECT / "workflow/report/workflow.rst")


rule all:
    """Every figure, table and claim of every stage."""
    default_target: True
    input:
        [path for stage in STAGES for path in stage_outputs(stage)],
        "results/claims.csv",
        "figures/run/plan_vs_measured.png",


# The last line: the claims of the stages this run built or confirmed up to date.
onsuccess:
    write_run_summary(workflow.dag)
