# Stage: memorization with one layer, one head, rank-1 weights (Kajitsuka & Sato 2024 Thm 2 and
# Cor. 1; Zhang et al. 2017 FFN).
# the module, not its names: every rules file shares one namespace (sparse_approximation.smk has a
# search_cost of its own)
from expressivity.experiments.memorization import cost as mem_cost

MEM = "memorization"
MEM_CFG = config[MEM]
MEM_RES = f"results/{MEM}"


# The settings one job uses, as keywords of its experiments function: `keys` of
# memorization.<section> and the `shared` stage-wide ones (sweep lists that are wildcards stay out,
# so a new point reruns only its own job).
mem_params = lambda section, keys, shared=("n_classes", "r_min", "r_max", "margin"): {
    "seed": config["seed"],
    **{k: MEM_CFG[k] for k in shared},
    **settings(MEM, section, *keys),
}


# runtime and mem_mb of each job from the cost model of the experiments layer (seconds, peak
# bytes), so that `make plan` shows a config's cost before any work
MEM_THEORY_RES = per_job(
    lambda wc: mem_cost.theory_cost(
        V=int(wc.V),
        d=int(wc.d),
        r_min=MEM_CFG["r_min"],
        r_max=MEM_CFG["r_max"],
        **settings(MEM, "theory", "n", "N_max", "eps", "max_digits"),
    )
)
MEM_SEARCH_RES = per_job(
    lambda wc: mem_cost.search_cost(
        V=int(wc.V), d=int(wc.d), **settings(MEM, "search", "n", "N", "n_grid")
    )
)
MEM_CURVE_RES = job_resources(
    *mem_cost.curve_cost(
        **settings(
            MEM,
            "curve",
            "V",
            "d",
            "n",
            "n_lams",
            "zoom_points",
            "max_digits",
            "adversarial_k",
        )
    )
)
MEM_CONTRAST_RES = job_resources(
    *mem_cost.contrast_cost(
        **settings(MEM, "hardmax", "d", "degrees", "draws", "extra_shared")
    )
)

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
    "parameter_counts": plot("parameter_counts", verdict=True),
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
    resources:
        **MEM_THEORY_RES,
    params:
        **mem_params("theory", ("n", "N_max", "eps", "max_digits")),
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
        **MEM_SEARCH_RES,
    params:
        **mem_params("search", ("n", "N", "eps", "lam_mem", "n_grid")),
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
        **MEM_CURVE_RES,
    params:
        **mem_params(
            "curve",
            (
                "V",
                "d",
                "n",
                "eps",
                "n_lams",
                "lam_small",
                "zoom_max",
                "zoom_points",
                "max_digits",
                "adversarial_k",
            ),
            shared=("n_classes", "r_min", "r_max"),
        ),
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
        **MEM_CONTRAST_RES,
    params:
        **mem_params(
            "hardmax",
            ("d", "degrees", "draws", "extra_shared", "lam"),
            shared=("n_classes",),
        ),
    script:
        script_path(MEM, "hardmax")
