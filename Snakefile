# One-command reproduction of four results on what transformer attention can express.
# Run it with `make` (see README.md); the config is validated before any job runs.
from snakemake.utils import min_version

min_version("9.0")


# config/config.yaml unless --configfile names another; a named file is used alone (not merged
# into the default), so a section missing from it is reported instead of silently inherited.
if not workflow.config_settings.configfiles:

    configfile: "config/config.yaml"


include: "workflow/rules/common.smk"
include: "workflow/rules/hardmax_vs_softmax.smk"
include: "workflow/rules/sparse_approximation.smk"
include: "workflow/rules/memorization.smk"
include: "workflow/rules/universal_approximation.smk"
include: "workflow/rules/trained_models.smk"
include: "workflow/rules/claims.smk"


# Under a cluster executor only compute jobs (the rules with a benchmark record) are submitted;
# gathers, plots and claims are cheap and run on the submitting host.
workflow.localrules(*[rule.name for rule in workflow.rules if not rule.benchmark])


report: "workflow/report/workflow.rst"


rule all:
    """Every figure, table and claim of every stage."""
    input:
        [path for outputs in STAGE_OUTPUTS.values() for path in outputs],
        "results/claims.csv",
    default_target: True


onsuccess:
    if Path("results/claims.csv").is_file():
        shell("tail -n 1 logs/claims/all.log")
