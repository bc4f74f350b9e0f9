# Stage: memorization with one layer, one head, rank-1 weights (Kajitsuka & Sato 2024 Thm 2 and
# Cor. 1; Zhang et al. 2017 FFN).
MEM = "memorization"
MEM_CFG = config[MEM]
MEM_RES = f"results/{MEM}"


def mem_params(section, keys, shared=("n_classes", "r_min", "r_max", "margin")):
    """The settings one job uses, as keywords of its experiments function: ``keys`` of
    ``memorization.<section>`` and the ``shared`` stage-wide ones (sweep lists that are wildcards
    stay out, so a new point reruns only its own job)."""
    return {
        "seed": config["seed"],
        **{k: MEM_CFG[k] for k in shared},
        **{k: MEM_CFG[section][k] for k in keys},
    }


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
    log:
        f"logs/{MEM}/theory_d{{d}}_V{{V}}.log",
    benchmark:
        f"results/benchmarks/{MEM}/theory_d{{d}}_V{{V}}.tsv"
    conda:
        ENV
    params:
        **mem_params("theory", ("n", "N_max", "eps", "max_digits")),
    script:
        script_path(MEM, "theory")


rule mem_search:
    """Regime (ii): lam_min by search, certified separation, memorizer; one (d, |V|)."""
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
    params:
        **mem_params("search", ("n", "N", "eps", "lam_mem", "n_grid")),
    script:
        script_path(MEM, "search")


rule mem_parameters:
    """Parameter counts against N next to the reference orders of growth."""
    input:
        search=table(MEM, "search"),
        lib=script_deps(MEM, "parameters"),
    output:
        table_output(MEM, "parameter_counts"),
    log:
        f"logs/{MEM}/parameters.log",
    conda:
        ENV
    script:
        script_path(MEM, "parameters")


rule mem_curve:
    """Figure data: delta against lam, float64 versus arbitrary precision, one dataset."""
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
    params:
        **mem_params(
            "curve",
            ("V", "d", "n", "eps", "n_lams", "decades", "max_digits"),
            shared=("n_classes", "r_min", "r_max"),
        ),
    script:
        script_path(MEM, "curve")


rule mem_hardmax:
    """Contrast: the same layer with hardmax on the Theorem 1 pattern, in exact arithmetic."""
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
    params:
        **mem_params("hardmax", ("d", "draws"), shared=("margin",)),
    script:
        script_path(MEM, "hardmax")
