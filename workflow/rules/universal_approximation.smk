# Stage: universal approximation (Yun et al. 2020a/b; Fang et al. 2022; Kajitsuka & Sato 2024
# Prop. 1). Constructions are reconstructed (see shared/papers/yun_fang.md); claims say so.
import math

UA = "universal_approximation"
UA_CFG = config[UA]
UA_RES = f"results/{UA}"
UA_BUDGET = UA_CFG["grid_budget"]


# Lemma 6 grids (1/delta, d, n, size): within the budget they are checked, above it skipped.
UA_L6_ALL = [
    (m, d, n, m ** (n * d))
    for m in UA_CFG["lemma6"]["inv_delta"]
    for d in UA_CFG["lemma6"]["d"]
    for n in UA_CFG["lemma6"]["n"]
]
UA_L6_KEEP = [g for g in UA_L6_ALL if g[3] <= UA_BUDGET]
UA_L6_SKIP = [g for g in UA_L6_ALL if g[3] > UA_BUDGET]
UA_SPARSE_GRIDS = [
    (m, d, n)
    for m in UA_CFG["sparse_mapping"]["inv_delta"]
    for d in UA_CFG["sparse_mapping"]["d"]
    for n in UA_CFG["sparse_mapping"]["n"]
    if m ** (n * d) <= UA_CFG["sparse_mapping"]["grid_budget"]
]
# Refuse, before any job runs, approximation value tables over the budget (size and budget named).
for _m in UA_CFG["approximation"]["inv_delta"]:
    _n, _d = UA_CFG["approximation"]["n"], UA_CFG["approximation"]["d"]
    for _what, _size in (
        ("distinct-token classes", math.comb(_m**_d, _n)),
        ("multisets (Kajitsuka & Sato memorization)", math.comb(_m**_d + _n - 1, _n)),
        ("positional grid", _m ** (_n * _d)),
    ):
        if _size > UA_BUDGET:
            raise WorkflowError(
                f"{UA}.approximation.inv_delta contains {_m}: the {_what} table has {_size} "
                f"entries (n={_n}, d={_d}), over {UA}.grid_budget = {UA_BUDGET}. Nothing was "
                "run; lower inv_delta, n or d, or raise the budget."
            )
UA_TARGETS = UA_CFG["approximation"]["targets"] + [UA_CFG["approximation"]["positional_target"]]

STAGE_TABLES[UA] = [
    f"{UA_RES}/lemma6.csv",
    f"{UA_RES}/lemma6_softmax.csv",
    f"{UA_RES}/approximation.csv",
    f"{UA_RES}/patterns.csv",
    f"{UA_RES}/sparse_mapping.csv",
    f"{UA_RES}/polynomial_staircase.csv",
    f"{UA_RES}/polynomial_regression.csv",
]
STAGE_OUTPUTS[UA] = [
    *figure(UA, "lemma6_softmax"),
    *figure(UA, "approximation_error"),
    *figure(UA, "pattern_connections"),
    *figure(UA, "pattern_depth"),
    *figure(UA, "polynomial_staircase"),
    *figure(UA, "polynomial_regression"),
    *STAGE_TABLES[UA],
    f"results/claims/{UA}.csv",
]


rule universal_approximation:
    """Everything of the universal-approximation stage."""
    input:
        STAGE_OUTPUTS[UA],


rule ua_lemma6:
    """Lemma 6 on every input of one grid: integer reference, attention matrices, softmax."""
    input:
        lib=script_deps("universal_approximation_lemma6.py"),
    output:
        summary=temp(f"{UA_RES}/lemma6/m{{m}}_d{{d}}_n{{n}}.csv"),
        softmax=temp(f"{UA_RES}/lemma6/softmax_m{{m}}_d{{d}}_n{{n}}.csv"),
    params:
        cfg=UA_CFG["lemma6"],
        budget=UA_BUDGET,
    wildcard_constraints:
        m=r"\d+",
        d=r"\d+",
        n=r"\d+",
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    conda:
        ENV
    log:
        f"logs/{UA}/lemma6_m{{m}}_d{{d}}_n{{n}}.log",
    benchmark:
        f"results/benchmarks/{UA}/lemma6_m{{m}}_d{{d}}_n{{n}}.tsv"
    script:
        "../scripts/universal_approximation_lemma6.py"


rule ua_lemma6_gather:
    """One Lemma 6 table (skipped grids listed with their size) and one softmax table."""
    input:
        summaries=[f"{UA_RES}/lemma6/m{m}_d{d}_n{n}.csv" for m, d, n, _ in UA_L6_KEEP],
        curves=[f"{UA_RES}/lemma6/softmax_m{m}_d{d}_n{n}.csv" for m, d, n, _ in UA_L6_KEEP],
        lib=script_deps("universal_approximation_lemma6_gather.py"),
    output:
        summary=report(
            f"{UA_RES}/lemma6.csv",
            caption=f"../report/{UA}/lemma6.rst",
            category=UA,
        ),
        softmax=f"{UA_RES}/lemma6_softmax.csv",
    params:
        skipped=[list(s) for s in UA_L6_SKIP],
        budget=UA_BUDGET,
    conda:
        ENV
    log:
        f"logs/{UA}/lemma6_gather.log",
    script:
        "../scripts/universal_approximation_lemma6_gather.py"


rule ua_approximation:
    """End-to-end L^p errors against delta for one target."""
    input:
        lib=script_deps("universal_approximation_approximation.py"),
    output:
        temp(f"{UA_RES}/approximation/{{target}}.csv"),
    params:
        cfg=UA_CFG["approximation"],
        budget=UA_BUDGET,
        seed=config["seed"],
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    conda:
        ENV
    log:
        f"logs/{UA}/approximation_{{target}}.log",
    benchmark:
        f"results/benchmarks/{UA}/approximation_{{target}}.tsv"
    script:
        "../scripts/universal_approximation_approximation.py"


rule ua_approximation_gather:
    input:
        tables=expand(f"{UA_RES}/approximation/{{target}}.csv", target=UA_TARGETS),
        lib=script_deps("concat_tables.py"),
    output:
        report(
            f"{UA_RES}/approximation.csv",
            caption=f"../report/{UA}/approximation.rst",
            category=UA,
        ),
    conda:
        ENV
    log:
        f"logs/{UA}/approximation_gather.log",
    script:
        "../scripts/concat_tables.py"


rule ua_patterns:
    """Assumption 1 and connections of every pattern at every n."""
    input:
        lib=script_deps("universal_approximation_patterns.py"),
    output:
        report(
            f"{UA_RES}/patterns.csv",
            caption=f"../report/{UA}/patterns.rst",
            category=UA,
        ),
    params:
        names=UA_CFG["patterns"]["names"],
        n=UA_CFG["patterns"]["n"],
        seed=config["seed"],
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    conda:
        ENV
    log:
        f"logs/{UA}/patterns.log",
    benchmark:
        f"results/benchmarks/{UA}/patterns.tsv"
    script:
        "../scripts/universal_approximation_patterns.py"


rule ua_sparse_mapping:
    """The sparse selective-shift contextual mapping of every pattern on every small grid."""
    input:
        lib=script_deps("universal_approximation_sparse_mapping.py"),
    output:
        f"{UA_RES}/sparse_mapping.csv",
    params:
        names=UA_CFG["sparse_mapping"]["names"],
        grids=UA_SPARSE_GRIDS,
        seed=config["seed"],
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    conda:
        ENV
    log:
        f"logs/{UA}/sparse_mapping.log",
    benchmark:
        f"results/benchmarks/{UA}/sparse_mapping.tsv"
    script:
        "../scripts/universal_approximation_sparse_mapping.py"


rule ua_staircase:
    """Fang et al.: max relative error against (blocks, degree) for every dimension d."""
    input:
        lib=script_deps("universal_approximation_staircase.py"),
    output:
        report(
            f"{UA_RES}/polynomial_staircase.csv",
            caption=f"../report/{UA}/polynomial_staircase_table.rst",
            category=UA,
        ),
    params:
        cfg=UA_CFG["polynomial"],
        seed=config["seed"],
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    conda:
        ENV
    log:
        f"logs/{UA}/staircase.log",
    benchmark:
        f"results/benchmarks/{UA}/staircase.tsv"
    script:
        "../scripts/universal_approximation_staircase.py"


rule ua_regression:
    """Fang et al.: noisy regression, excess test risk against the sample size."""
    input:
        lib=script_deps("universal_approximation_regression.py"),
    output:
        f"{UA_RES}/polynomial_regression.csv",
    params:
        cfg=UA_CFG["regression"],
        seed=config["seed"],
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    conda:
        ENV
    log:
        f"logs/{UA}/regression.log",
    benchmark:
        f"results/benchmarks/{UA}/regression.tsv"
    script:
        "../scripts/universal_approximation_regression.py"


rule ua_plots:
    """Every figure of the stage from the tables (one job: plotting is cheap)."""
    input:
        lemma6_softmax=f"{UA_RES}/lemma6_softmax.csv",
        approximation=f"{UA_RES}/approximation.csv",
        patterns=f"{UA_RES}/patterns.csv",
        staircase=f"{UA_RES}/polynomial_staircase.csv",
        regression=f"{UA_RES}/polynomial_regression.csv",
        lib=script_deps("universal_approximation_plot.py"),
    output:
        lemma6_softmax=report(
            f"figures/{UA}/lemma6_softmax.png",
            caption=f"../report/{UA}/lemma6_softmax.rst",
            category=UA,
        ),
        lemma6_softmax_pdf=f"figures/{UA}/lemma6_softmax.pdf",
        approximation_error=report(
            f"figures/{UA}/approximation_error.png",
            caption=f"../report/{UA}/approximation_error.rst",
            category=UA,
        ),
        approximation_error_pdf=f"figures/{UA}/approximation_error.pdf",
        pattern_connections=report(
            f"figures/{UA}/pattern_connections.png",
            caption=f"../report/{UA}/pattern_connections.rst",
            category=UA,
        ),
        pattern_connections_pdf=f"figures/{UA}/pattern_connections.pdf",
        pattern_depth=report(
            f"figures/{UA}/pattern_depth.png",
            caption=f"../report/{UA}/pattern_depth.rst",
            category=UA,
        ),
        pattern_depth_pdf=f"figures/{UA}/pattern_depth.pdf",
        polynomial_staircase=report(
            f"figures/{UA}/polynomial_staircase.png",
            caption=f"../report/{UA}/polynomial_staircase.rst",
            category=UA,
        ),
        polynomial_staircase_pdf=f"figures/{UA}/polynomial_staircase.pdf",
        polynomial_regression=report(
            f"figures/{UA}/polynomial_regression.png",
            caption=f"../report/{UA}/polynomial_regression.rst",
            category=UA,
        ),
        polynomial_regression_pdf=f"figures/{UA}/polynomial_regression.pdf",
    params:
        tol=UA_CFG["lemma6"]["softmax_tol"],
    conda:
        ENV
    log:
        f"logs/{UA}/plots.log",
    script:
        "../scripts/universal_approximation_plot.py"
