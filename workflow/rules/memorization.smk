# Stage: memorization with one layer, one head, rank-1 weights (Kajitsuka & Sato 2024 Thm 2 and
# Cor. 1; Zhang et al. 2017 FFN).
MEM = "memorization"
MEM_CFG = config[MEM]
MEM_RES = f"results/{MEM}"


TABLES[MEM] = {
    "theory": gathered(
        expand(
            f"{MEM_RES}/theory/d{{d}}_V{{V}}.csv",
            d=MEM_CFG["theory"]["d"],
            V=MEM_CFG["theory"]["V"],
        )
    ),
    "search": gathered(
        expand(
            f"{MEM_RES}/search/d{{d}}_V{{V}}.csv",
            d=MEM_CFG["search"]["d"],
            V=MEM_CFG["search"]["V"],
        )
    ),
    "parameter_counts": COMPUTED,
    "hardmax_contrast": COMPUTED,
    "delta_vs_lambda": COMPUTED,
    "masked": COMPUTED,
}
FIGURES[MEM] = {
    "delta_vs_lambda": plot("delta_vs_lambda"),
    "parameter_counts": plot("parameter_counts", verdict=True),
    "digits_needed": plot("theory", "search"),
    "hardmax_contrast": plot("hardmax_contrast"),
    "masked": plot("masked"),
}


rule mem_theory:
    """Regime (i): the layer at the theoretical lam in arbitrary precision, one (d, |V|)."""
    input:
        lib=script_deps(MEM, "theory"),
    output:
        f"{MEM_RES}/theory/d{{d}}_V{{V}}.csv",
    log:
        f"logs/{MEM}/theory_d{{d}}_V{{V}}.log",
    benchmark:
        f"results/benchmarks/{MEM}/theory_d{{d}}_V{{V}}.tsv"
    conda:
        ENV
    resources:
        **planned(MEM, "cost.theory_cost", "theory", supplied=["V", "d"]),
    params:
        **job_params(MEM, "regimes.theory_rows", "theory", supplied=["d", "V"]),
    script:
        script_path(MEM, "theory")


rule mem_search:
    """Regime (ii): the last crossing by search, certified separation, exact limits, memorizer;
    one (d, |V|)."""
    input:
        lib=script_deps(MEM, "search"),
    output:
        f"{MEM_RES}/search/d{{d}}_V{{V}}.csv",
    log:
        f"logs/{MEM}/search_d{{d}}_V{{V}}.log",
    benchmark:
        f"results/benchmarks/{MEM}/search_d{{d}}_V{{V}}.tsv"
    conda:
        ENV
    resources:
        **planned(MEM, "cost.search_cost", "search", supplied=["V", "d"]),
    params:
        **job_params(MEM, "regimes.search_rows", "search", supplied=["d", "V"]),
    script:
        script_path(MEM, "search")


rule mem_parameters:
    """Parameter counts and total bits against N next to the reference orders of growth."""
    input:
        search=table(MEM, "search"),
        lib=script_deps(MEM, "parameters"),
    output:
        table_output(MEM, "parameter_counts"),
    log:
        f"logs/{MEM}/parameters.log",
    conda:
        ENV
    resources:
        # a table of one row per regime (ii) dataset: seconds, and pandas' memory
        runtime=1,
        mem_mb=500,
    script:
        script_path(MEM, "parameters")


rule mem_curve:
    """Figure data: delta against lam on a random and an adversarial dataset; uniform, softmax
    (float64 versus arbitrary precision) and hardmax."""
    input:
        lib=script_deps(MEM, "curve"),
    output:
        table_output(MEM, "delta_vs_lambda"),
    log:
        f"logs/{MEM}/curve.log",
    benchmark:
        f"results/benchmarks/{MEM}/curve.tsv"
    conda:
        ENV
    resources:
        **planned(MEM, "cost.curve_cost", "curve"),
    params:
        **job_params(MEM, "curve.curve_rows", "curve"),
    script:
        script_path(MEM, "curve")


rule mem_hardmax:
    """Contrast: uniform averaging and hardmax (exact) against softmax (certified) on datasets with
    equal power sums and shared extremes."""
    input:
        lib=script_deps(MEM, "hardmax"),
    output:
        table_output(MEM, "hardmax_contrast"),
    log:
        f"logs/{MEM}/hardmax.log",
    benchmark:
        f"results/benchmarks/{MEM}/hardmax.tsv"
    conda:
        ENV
    resources:
        **planned(MEM, "cost.contrast_cost", "hardmax"),
    params:
        **job_params(MEM, "contrast.hardmax_contrast", "hardmax"),
    script:
        script_path(MEM, "hardmax")


rule mem_masked:
    """The causal (masked) layer: certified prefix separation at lam_theory and a fixed lam;
    causal uniform averaging and hardmax (exact) against softmax on prefix segment pairs.
    """
    input:
        lib=script_deps(MEM, "masked"),
    output:
        table_output(MEM, "masked"),
    log:
        f"logs/{MEM}/masked.log",
    benchmark:
        f"results/benchmarks/{MEM}/masked.tsv"
    conda:
        ENV
    resources:
        **planned(MEM, "cost.masked_cost", "masked"),
    params:
        **job_params(MEM, "masked.masked_rows", "masked"),
    script:
        script_path(MEM, "masked")
