# Stage: memorization with one layer, one head, rank-1 weights (Kajitsuka & Sato 2024 Thm 2 and
# Cor. 1; Zhang et al. 2017 FFN).
MEM = "memorization"
MEM_CFG = config[MEM]
MEM_RES = f"results/{MEM}"
MEM_COMMON = {k: MEM_CFG[k] for k in ("n_classes", "r_min", "r_max", "margin")}

TABLES[MEM] = {
    "theory": gathered(
        expand(f"{MEM_RES}/theory/d{{d}}_V{{V}}.csv", d=MEM_CFG["theory"]["d"], V=MEM_CFG["theory"]["V"])
    ),
    "search": gathered(
        expand(f"{MEM_RES}/search/d{{d}}_V{{V}}.csv", d=MEM_CFG["search"]["d"], V=MEM_CFG["search"]["V"])
    ),
    "parameter_counts": COMPUTED,
    "hardmax_contrast": COMPUTED,
    "delta_vs_lambda": COMPUTED,
}
FIGURES[MEM] = {
    "delta_vs_lambda": plot("delta_vs_lambda"),
    "parameter_counts": plot("parameter_counts"),
    "digits_needed": plot("theory", "search"),
    "hardmax_contrast": plot("hardmax_contrast"),
}


rule mem_theory:
    """Regime (i): the layer at the theoretical lam in arbitrary precision, one (d, |V|)."""
    input:
        lib=script_deps(MEM, "theory"),
    output:
        f"{MEM_RES}/theory/d{{d}}_V{{V}}.csv",
    params:
        seed=config["seed"],
        cfg=MEM_CFG["theory"],
        common=MEM_COMMON,
    conda:
        ENV
    log:
        f"logs/{MEM}/theory_d{{d}}_V{{V}}.log",
    benchmark:
        f"results/benchmarks/{MEM}/theory_d{{d}}_V{{V}}.tsv"
    script:
        script_path(MEM, "theory")


rule mem_search:
    """Regime (ii): lam_min by search, certified separation, memorizer; one (d, |V|)."""
    input:
        lib=script_deps(MEM, "search"),
    output:
        f"{MEM_RES}/search/d{{d}}_V{{V}}.csv",
    params:
        seed=config["seed"],
        cfg=MEM_CFG["search"],
        common=MEM_COMMON,
    conda:
        ENV
    log:
        f"logs/{MEM}/search_d{{d}}_V{{V}}.log",
    benchmark:
        f"results/benchmarks/{MEM}/search_d{{d}}_V{{V}}.tsv"
    script:
        script_path(MEM, "search")


rule mem_parameters:
    """Parameter counts against N next to the reference orders of growth."""
    input:
        search=table(MEM, "search"),
        lib=script_deps(MEM, "parameters"),
    output:
        table_output(MEM, "parameter_counts"),
    conda:
        ENV
    log:
        f"logs/{MEM}/parameters.log",
    script:
        script_path(MEM, "parameters")


rule mem_curve:
    """Figure data: delta against lam, float64 versus arbitrary precision, one dataset."""
    input:
        lib=script_deps(MEM, "curve"),
    output:
        table_output(MEM, "delta_vs_lambda"),
    params:
        seed=config["seed"],
        cfg=MEM_CFG["curve"],
        common=MEM_COMMON,
    conda:
        ENV
    log:
        f"logs/{MEM}/curve.log",
    benchmark:
        f"results/benchmarks/{MEM}/curve.tsv"
    script:
        script_path(MEM, "curve")


rule mem_hardmax:
    """Contrast: the same layer with hardmax on the Theorem 1 pattern, in exact arithmetic."""
    input:
        lib=script_deps(MEM, "hardmax"),
    output:
        table_output(MEM, "hardmax_contrast"),
    params:
        seed=config["seed"],
        cfg=MEM_CFG["hardmax"],
        common=MEM_COMMON,
    conda:
        ENV
    log:
        f"logs/{MEM}/hardmax.log",
    benchmark:
        f"results/benchmarks/{MEM}/hardmax.tsv"
    script:
        script_path(MEM, "hardmax")