# Stage: memorization with one layer, one head, rank-1 weights (Kajitsuka & Sato 2024 Thm 2 and
# Cor. 1; Zhang et al. 2017 FFN).
MEM = "memorization"
MEM_CFG = config[MEM]
MEM_RES = f"results/{MEM}"
MEM_COMMON = {k: MEM_CFG[k] for k in ("n_classes", "r_min", "r_max", "margin")}

STAGE_TABLES[MEM] = [
    f"{MEM_RES}/theory.csv",
    f"{MEM_RES}/search.csv",
    f"{MEM_RES}/parameter_counts.csv",
    f"{MEM_RES}/hardmax_contrast.csv",
    f"{MEM_RES}/delta_vs_lambda.csv",
]
STAGE_OUTPUTS[MEM] = [
    *figure(MEM, "delta_vs_lambda"),
    *figure(MEM, "parameter_counts"),
    *figure(MEM, "digits_needed"),
    *figure(MEM, "hardmax_contrast"),
    *STAGE_TABLES[MEM],
    "results/claims/memorization.csv",
]


rule memorization:
    """Everything of the memorization stage."""
    input:
        STAGE_OUTPUTS[MEM],


rule mem_theory:
    """Regime (i): the layer at the theoretical lam in arbitrary precision, one (d, |V|)."""
    input:
        lib=script_deps("memorization_theory.py"),
    output:
        temp(f"{MEM_RES}/theory/d{{d}}_V{{V}}.csv"),
    params:
        seed=config["seed"],
        cfg=MEM_CFG["theory"],
        common=MEM_COMMON,
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    conda:
        ENV
    log:
        f"logs/{MEM}/theory_d{{d}}_V{{V}}.log",
    benchmark:
        f"results/benchmarks/{MEM}/theory_d{{d}}_V{{V}}.tsv"
    script:
        "../scripts/memorization_theory.py"


rule mem_theory_gather:
    input:
        tables=expand(
            f"{MEM_RES}/theory/d{{d}}_V{{V}}.csv",
            d=MEM_CFG["theory"]["d"],
            V=MEM_CFG["theory"]["V"],
        ),
        lib=script_deps("concat_tables.py"),
    output:
        report(
            f"{MEM_RES}/theory.csv",
            caption="../report/memorization/theory.rst",
            category=MEM,
        ),
    conda:
        ENV
    log:
        f"logs/{MEM}/theory_gather.log",
    script:
        "../scripts/concat_tables.py"


rule mem_search:
    """Regime (ii): lam_min by search, certified separation, memorizer; one (d, |V|)."""
    input:
        lib=script_deps("memorization_search.py"),
    output:
        temp(f"{MEM_RES}/search/d{{d}}_V{{V}}.csv"),
    params:
        seed=config["seed"],
        cfg=MEM_CFG["search"],
        common=MEM_COMMON,
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    conda:
        ENV
    log:
        f"logs/{MEM}/search_d{{d}}_V{{V}}.log",
    benchmark:
        f"results/benchmarks/{MEM}/search_d{{d}}_V{{V}}.tsv"
    script:
        "../scripts/memorization_search.py"


rule mem_search_gather:
    input:
        tables=expand(
            f"{MEM_RES}/search/d{{d}}_V{{V}}.csv",
            d=MEM_CFG["search"]["d"],
            V=MEM_CFG["search"]["V"],
        ),
        lib=script_deps("concat_tables.py"),
    output:
        report(
            f"{MEM_RES}/search.csv",
            caption="../report/memorization/search.rst",
            category=MEM,
        ),
    conda:
        ENV
    log:
        f"logs/{MEM}/search_gather.log",
    script:
        "../scripts/concat_tables.py"


rule mem_parameters:
    """Parameter counts against N next to the reference orders of growth."""
    input:
        search=f"{MEM_RES}/search.csv",
        lib=script_deps("memorization_parameters.py"),
    output:
        f"{MEM_RES}/parameter_counts.csv",
    conda:
        ENV
    log:
        f"logs/{MEM}/parameters.log",
    script:
        "../scripts/memorization_parameters.py"


rule mem_curve:
    """Figure data: delta against lam, float64 versus arbitrary precision, one dataset."""
    input:
        lib=script_deps("memorization_curve.py"),
    output:
        f"{MEM_RES}/delta_vs_lambda.csv",
    params:
        seed=config["seed"],
        cfg=MEM_CFG["curve"],
        common=MEM_COMMON,
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    conda:
        ENV
    log:
        f"logs/{MEM}/curve.log",
    benchmark:
        f"results/benchmarks/{MEM}/curve.tsv"
    script:
        "../scripts/memorization_curve.py"


rule mem_hardmax:
    """Contrast: the same layer with hardmax on the Theorem 1 pattern, in exact arithmetic."""
    input:
        lib=script_deps("memorization_hardmax.py"),
    output:
        f"{MEM_RES}/hardmax_contrast.csv",
    params:
        seed=config["seed"],
        cfg=MEM_CFG["hardmax"],
        common=MEM_COMMON,
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    conda:
        ENV
    log:
        f"logs/{MEM}/hardmax.log",
    benchmark:
        f"results/benchmarks/{MEM}/hardmax.tsv"
    script:
        "../scripts/memorization_hardmax.py"


rule mem_plot_curve:
    input:
        f"{MEM_RES}/delta_vs_lambda.csv",
        lib=script_deps("memorization_plot_curve.py"),
    output:
        png=report(
            f"figures/{MEM}/delta_vs_lambda.png",
            caption="../report/memorization/delta_vs_lambda.rst",
            category=MEM,
        ),
        pdf=f"figures/{MEM}/delta_vs_lambda.pdf",
    conda:
        ENV
    log:
        f"logs/{MEM}/plot_curve.log",
    script:
        "../scripts/memorization_plot_curve.py"


rule mem_plot_parameters:
    input:
        f"{MEM_RES}/parameter_counts.csv",
        lib=script_deps("memorization_plot_parameters.py"),
    output:
        png=report(
            f"figures/{MEM}/parameter_counts.png",
            caption="../report/memorization/parameter_counts.rst",
            category=MEM,
        ),
        pdf=f"figures/{MEM}/parameter_counts.pdf",
    conda:
        ENV
    log:
        f"logs/{MEM}/plot_parameters.log",
    script:
        "../scripts/memorization_plot_parameters.py"


rule mem_plot_digits:
    input:
        theory=f"{MEM_RES}/theory.csv",
        search=f"{MEM_RES}/search.csv",
        lib=script_deps("memorization_plot_digits.py"),
    output:
        png=report(
            f"figures/{MEM}/digits_needed.png",
            caption="../report/memorization/digits_needed.rst",
            category=MEM,
        ),
        pdf=f"figures/{MEM}/digits_needed.pdf",
    conda:
        ENV
    log:
        f"logs/{MEM}/plot_digits.log",
    script:
        "../scripts/memorization_plot_digits.py"


rule mem_plot_hardmax:
    input:
        f"{MEM_RES}/hardmax_contrast.csv",
        lib=script_deps("memorization_plot_hardmax.py"),
    output:
        png=report(
            f"figures/{MEM}/hardmax_contrast.png",
            caption="../report/memorization/hardmax_contrast.rst",
            category=MEM,
        ),
        pdf=f"figures/{MEM}/hardmax_contrast.pdf",
    conda:
        ENV
    log:
        f"logs/{MEM}/plot_hardmax.log",
    script:
        "../scripts/memorization_plot_hardmax.py"
