# Stage: universal approximation (Yun et al. 2020a/b; Fang et al. 2022; Kajitsuka & Sato 2024
# Prop. 1). Constructions are reconstructed (see shared/papers/yun_fang.md); claims say so.
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
UA_TARGETS = UA_CFG["approximation"]["targets"] + [
    UA_CFG["approximation"]["positional_target"]
]
UA_APPROX = UA_CFG["approximation"]
# the approximation series (d, n, largest 1/delta): one job per target and series
UA_SERIES = list(zip(UA_APPROX["d"], UA_APPROX["n"], UA_APPROX["inv_delta_max"]))
# the 1/delta of a job's series
ua_series_deltas = lambda wc: next(
    [m for m in UA_APPROX["inv_delta"] if m <= top]
    for d, n, top in UA_SERIES
    if (d, n) == (int(wc.d), int(wc.n))
)

# imported under the stage's prefix: every rules file shares one namespace
from expressivity.experiments.universal_approximation.polynomial import (
    trained_cells as ua_trained_cells,
    trained_cost as ua_trained_cost,
)

UA_TRAINED = UA_CFG["polynomial_trained"]
# the trained blocks' jobs: one per (L, run of consecutive cells of trained_cells), each planned
# within node.job_minutes (see chunked_jobs); a job's rows are those of its cells in one job of
# all of them, and the jobs in this order give the table's rows in order
UA_TRAINED_JOBS = chunked_jobs(
    [
        (L, len(ua_trained_cells(L, UA_TRAINED["variants"])))
        for L in UA_TRAINED["blocks"]
    ],
    lambda L, cells: (
        *ua_trained_cost(
            L=L,
            cells=cells,
            **job_params(
                UA,
                "polynomial.trained_cost",
                "polynomial_trained",
                supplied=["L", "cells"],
            ),
        ),
        None,  # no GPU path
    ),
    "cpu",
)
# a trained job's number of cells, from its wildcards
ua_trained_count = lambda wc: int(wc.last) - int(wc.first) + 1

TABLES[UA] = {
    "lemma6": COMPUTED,
    "lemma6_softmax": COMPUTED,
    "approximation": gathered(
        f"{UA_RES}/approximation/{target}_d{d}_n{n}.csv"
        for target in UA_TARGETS
        for d, n, _ in UA_SERIES
    ),
    "patterns": COMPUTED,
    "sparse_mapping": COMPUTED,
    "polynomial_staircase": COMPUTED,
    "polynomial_ablation": COMPUTED,
    "polynomial_trained": gathered(
        f"{UA_RES}/trained/L{L}_cells{first}-{last}.csv"
        for L, first, last in UA_TRAINED_JOBS
    ),
    "polynomial_regression": COMPUTED,
}
FIGURES[UA] = {
    "lemma6_softmax": plot("lemma6_softmax", "lemma6"),
    "approximation_error": plot("approximation"),
    "approximation_depth": plot("approximation"),
    "pattern_connections": plot("patterns", verdict=True),
    "pattern_depth": plot("patterns"),
    "polynomial_staircase": plot("polynomial_staircase", verdict=True),
    "polynomial_ablation": plot("polynomial_ablation", verdict=True),
    "polynomial_trained": plot("polynomial_trained", verdict=True),
    "polynomial_regression": plot("polynomial_regression", verdict=True),
}


rule ua_lemma6:
    """Lemma 6 on every input of one grid: integer reference, attention matrices, softmax."""
    input:
        lib=script_deps(UA, "lemma6"),
    output:
        summary=f"{UA_RES}/lemma6/m{{m}}_d{{d}}_n{{n}}.csv",
        softmax=f"{UA_RES}/lemma6/softmax_m{{m}}_d{{d}}_n{{n}}.csv",
    log:
        f"logs/{UA}/lemma6_m{{m}}_d{{d}}_n{{n}}.log",
    benchmark:
        f"results/benchmarks/{UA}/lemma6_m{{m}}_d{{d}}_n{{n}}.tsv"
    wildcard_constraints:
        m=r"\d+",
        d=r"\d+",
        n=r"\d+",
    conda:
        ENV
    resources:
        **planned(UA, "lemma6.lemma6_cost", "lemma6", supplied=["m", "d", "n"]),
    params:
        **job_params(UA, "lemma6.lemma6_check", "lemma6", supplied=["m", "d", "n"]),
    script:
        script_path(UA, "lemma6")


rule ua_lemma6_gather:
    """One Lemma 6 table (skipped grids listed with their size) and one softmax table."""
    input:
        summaries=[f"{UA_RES}/lemma6/m{m}_d{d}_n{n}.csv" for m, d, n, _ in UA_L6_KEEP],
        curves=[
            f"{UA_RES}/lemma6/softmax_m{m}_d{d}_n{n}.csv" for m, d, n, _ in UA_L6_KEEP
        ],
        lib=script_deps(UA, "lemma6_gather"),
    output:
        summary=table_output(UA, "lemma6"),
        softmax=table_output(UA, "lemma6_softmax"),
    log:
        f"logs/{UA}/lemma6_gather.log",
    conda:
        ENV
    params:
        **job_params(
            UA,
            "lemma6.lemma6_tables",
            supplied=["summaries", "curves"],
            given={"skipped": [list(s) for s in UA_L6_SKIP]},
        ),
    script:
        script_path(UA, "lemma6_gather")


rule ua_approximation:
    """End-to-end L^p errors against delta for one target and one series (d, n)."""
    input:
        lib=script_deps(UA, "approximation"),
    output:
        f"{UA_RES}/approximation/{{target}}_d{{d}}_n{{n}}.csv",
    log:
        f"logs/{UA}/approximation_{{target}}_d{{d}}_n{{n}}.log",
    benchmark:
        f"results/benchmarks/{UA}/approximation_{{target}}_d{{d}}_n{{n}}.tsv"
    wildcard_constraints:
        d=r"\d+",
        n=r"\d+",
    conda:
        ENV
    resources:
        **planned(
            UA,
            "approximation.approximation_cost",
            "approximation",
            supplied=["target", "d", "n"],
            given={"inv_delta": ua_series_deltas},
        ),
    params:
        **job_params(
            UA,
            "approximation.approximation_table",
            "approximation",
            supplied=["target", "d", "n"],
            given={"inv_delta": ua_series_deltas},
        ),
    script:
        script_path(UA, "approximation")


rule ua_patterns:
    """Assumption 1 and connections of every pattern at every n."""
    input:
        lib=script_deps(UA, "patterns"),
    output:
        table_output(UA, "patterns"),
    log:
        f"logs/{UA}/patterns.log",
    benchmark:
        f"results/benchmarks/{UA}/patterns.tsv"
    conda:
        ENV
    resources:
        **planned(UA, "patterns.assumption_cost", "patterns"),
    params:
        **job_params(UA, "patterns.assumption_table", "patterns"),
    script:
        script_path(UA, "patterns")


rule ua_sparse_mapping:
    """The sparse selective-shift contextual mapping of every pattern on every small grid."""
    input:
        lib=script_deps(UA, "sparse_mapping"),
    output:
        table_output(UA, "sparse_mapping"),
    log:
        f"logs/{UA}/sparse_mapping.log",
    benchmark:
        f"results/benchmarks/{UA}/sparse_mapping.tsv"
    conda:
        ENV
    resources:
        **planned(UA, "patterns.sparse_mapping_cost", "sparse_mapping"),
    params:
        **job_params(UA, "patterns.sparse_mapping_table", "sparse_mapping"),
    script:
        script_path(UA, "sparse_mapping")


rule ua_staircase:
    """Fang et al.: max relative error against (blocks, degree) for every dimension d."""
    input:
        lib=script_deps(UA, "staircase"),
    output:
        table_output(UA, "polynomial_staircase"),
    log:
        f"logs/{UA}/staircase.log",
    benchmark:
        f"results/benchmarks/{UA}/staircase.tsv"
    conda:
        ENV
    resources:
        **planned(UA, "polynomial.staircase_cost", "polynomial"),
    params:
        **job_params(UA, "polynomial.staircase_table", "polynomial"),
    script:
        script_path(UA, "staircase")


rule ua_ablation:
    """Fang et al.'s adaptations ablated: the staircase of every block variant, with the floor."""
    input:
        lib=script_deps(UA, "ablation"),
    output:
        table_output(UA, "polynomial_ablation"),
    log:
        f"logs/{UA}/ablation.log",
    benchmark:
        f"results/benchmarks/{UA}/ablation.tsv"
    conda:
        ENV
    resources:
        **planned(UA, "polynomial.ablation_cost", "polynomial_ablation"),
    params:
        **job_params(UA, "polynomial.ablation_table", "polynomial_ablation"),
    script:
        script_path(UA, "ablation")


rule ua_trained:
    """Fang et al.'s blocks trained (random weights, Adam) with and without softmax: the cells
    first..last (degree, variant) of L blocks."""
    input:
        lib=script_deps(UA, "trained"),
    output:
        f"{UA_RES}/trained/L{{L}}_cells{{first}}-{{last}}.csv",
    log:
        f"logs/{UA}/trained_L{{L}}_cells{{first}}-{{last}}.log",
    benchmark:
        f"results/benchmarks/{UA}/trained_L{{L}}_cells{{first}}-{{last}}.tsv"
    wildcard_constraints:
        L=r"\d+",
        first=r"\d+",
        last=r"\d+",
    conda:
        ENV
    resources:
        **planned(
            UA,
            "polynomial.trained_cost",
            "polynomial_trained",
            supplied=["L"],
            given={"cells": ua_trained_count},
        ),
    params:
        **job_params(
            UA,
            "polynomial.trained_table",
            "polynomial_trained",
            supplied=["log", "L", "first", "last"],
        ),
    script:
        script_path(UA, "trained")


rule ua_regression:
    """Fang et al.: noisy regression, excess test risk against the sample size."""
    input:
        lib=script_deps(UA, "regression"),
    output:
        table_output(UA, "polynomial_regression"),
    log:
        f"logs/{UA}/regression.log",
    benchmark:
        f"results/benchmarks/{UA}/regression.tsv"
    conda:
        ENV
    resources:
        **planned(UA, "polynomial.regression_cost", "regression"),
    params:
        **job_params(UA, "polynomial.regression_table", "regression", supplied=["log"]),
    script:
        script_path(UA, "regression")
