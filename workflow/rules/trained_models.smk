# Stage: trained models. What gradient training (PyTorch, CPU by default) reaches on the questions
# the constructions answer: Kajitsuka & Sato 2024 Sec. 6 (reconstructed), Yun et al. 2020b copying
# with sparse patterns, Yun et al. 2020a Sec. 5 (attention versus alternatives, toy scale).
TM = "trained_models"
TM_CFG = config[TM]
TM_RES = f"results/{TM}"
TM_MEM = TM_CFG["memorization"]
TM_VARIANTS = ["learned", "fixed", "no_attention"]
TM_SIZES = [str(s) for s in TM_CFG["heads_rank"]["head_sizes"]] + (
    ["d"] if TM_CFG["heads_rank"]["full_rank"] else []
)
TM_MIXERS = [
    (alt, k)
    for alt in TM_CFG["mixers"]["alternatives"]
    for k in TM_CFG["mixers"]["attention_layers"]
    if k < TM_CFG["mixers"]["depth"]
] + [("attention", TM_CFG["mixers"]["depth"])]
TM_PARAMS = dict(seed=config["seed"], threads=TM_CFG["threads"], device=TM_CFG["device"])

STAGE_TABLES[TM] = [
    f"{TM_RES}/memorization_summary.csv",
    f"{TM_RES}/heads_rank.csv",
    f"{TM_RES}/width_vs_N.csv",
    f"{TM_RES}/copy_accuracy.csv",
    f"{TM_RES}/mixers.csv",
]
STAGE_OUTPUTS[TM] = [
    *figure(TM, "memorization_curve"),
    *figure(TM, "heads_rank"),
    *figure(TM, "width_vs_N"),
    *figure(TM, "copy_accuracy"),
    *figure(TM, "mixers"),
    *STAGE_TABLES[TM],
    f"{TM_RES}/memorization_curve.csv",
    "results/claims/trained_models.csv",
]


rule trained_models:
    """Everything of the trained-models stage."""
    input:
        STAGE_OUTPUTS[TM],


rule tm_memorize:
    """One memorization run (learned w, fixed w, or no attention) with its accuracy curve."""
    input:
        lib=script_deps("trained_models_memorize.py"),
    output:
        curve=temp(f"{TM_RES}/memorize/{{variant}}_curve.csv"),
        summary=temp(f"{TM_RES}/memorize/{{variant}}_summary.csv"),
    params:
        **TM_PARAMS,
        cfg=TM_MEM,
    wildcard_constraints:
        variant="|".join(TM_VARIANTS),
    threads: TM_CFG["threads"]
    resources:
        mem_mb=2000,
        runtime=30,
    conda:
        ENV
    log:
        f"logs/{TM}/memorize_{{variant}}.log",
    benchmark:
        f"results/benchmarks/{TM}/memorize_{{variant}}.tsv"
    script:
        "../scripts/trained_models_memorize.py"


rule tm_memorize_gather:
    """One table of accuracy curves and one of final results over the variants."""
    input:
        curves=expand(f"{TM_RES}/memorize/{{variant}}_curve.csv", variant=TM_VARIANTS),
        summaries=expand(f"{TM_RES}/memorize/{{variant}}_summary.csv", variant=TM_VARIANTS),
        lib=script_deps("trained_models_gather.py"),
    output:
        curve=f"{TM_RES}/memorization_curve.csv",
        summary=report(
            f"{TM_RES}/memorization_summary.csv",
            caption="../report/trained_models/memorization_summary.rst",
            category=TM,
        ),
    conda:
        ENV
    log:
        f"logs/{TM}/memorize_gather.log",
    script:
        "../scripts/trained_models_gather.py"


rule tm_heads:
    """Heads/rank ablation: h heads of tied head size s on the memorization dataset."""
    input:
        lib=script_deps("trained_models_heads.py"),
    output:
        temp(f"{TM_RES}/heads/h{{heads}}_s{{size}}.csv"),
    params:
        **TM_PARAMS,
        cfg=TM_MEM,
    wildcard_constraints:
        heads=r"\d+",
        size=r"\d+|d",
    threads: TM_CFG["threads"]
    resources:
        mem_mb=2000,
        runtime=30,
    conda:
        ENV
    log:
        f"logs/{TM}/heads_h{{heads}}_s{{size}}.log",
    benchmark:
        f"results/benchmarks/{TM}/heads_h{{heads}}_s{{size}}.tsv"
    script:
        "../scripts/trained_models_heads.py"


rule tm_heads_gather:
    input:
        tables=expand(
            f"{TM_RES}/heads/h{{heads}}_s{{size}}.csv",
            heads=TM_CFG["heads_rank"]["heads"],
            size=TM_SIZES,
        ),
        lib=script_deps("concat_tables.py"),
    output:
        report(
            f"{TM_RES}/heads_rank.csv",
            caption="../report/trained_models/heads_rank_table.rst",
            category=TM,
        ),
    conda:
        ENV
    log:
        f"logs/{TM}/heads_gather.log",
    script:
        "../scripts/concat_tables.py"


rule tm_width:
    """Smallest FFN width reaching 100 % training accuracy at one N."""
    input:
        lib=script_deps("trained_models_width.py"),
    output:
        temp(f"{TM_RES}/width/N{{N}}.csv"),
    params:
        **TM_PARAMS,
        memorization=TM_MEM,
        cfg=TM_CFG["width_search"],
    wildcard_constraints:
        N=r"\d+",
    threads: TM_CFG["threads"]
    resources:
        mem_mb=2000,
        runtime=30,
    conda:
        ENV
    log:
        f"logs/{TM}/width_N{{N}}.log",
    benchmark:
        f"results/benchmarks/{TM}/width_N{{N}}.tsv"
    script:
        "../scripts/trained_models_width.py"


rule tm_width_gather:
    input:
        tables=expand(f"{TM_RES}/width/N{{N}}.csv", N=TM_CFG["width_search"]["N"]),
        lib=script_deps("concat_tables.py"),
    output:
        f"{TM_RES}/width_vs_N.csv",
    conda:
        ENV
    log:
        f"logs/{TM}/width_gather.log",
    script:
        "../scripts/concat_tables.py"


rule tm_copy:
    """Copying task with one sparse attention pattern at one depth."""
    input:
        lib=script_deps("trained_models_copy.py"),
    output:
        temp(f"{TM_RES}/copy/{{pattern}}_L{{depth}}.csv"),
    params:
        **TM_PARAMS,
        cfg=TM_CFG["copy"],
    wildcard_constraints:
        pattern="[a-z_]+",
        depth=r"\d+",
    threads: TM_CFG["threads"]
    resources:
        mem_mb=2000,
        runtime=30,
    conda:
        ENV
    log:
        f"logs/{TM}/copy_{{pattern}}_L{{depth}}.log",
    benchmark:
        f"results/benchmarks/{TM}/copy_{{pattern}}_L{{depth}}.tsv"
    script:
        "../scripts/trained_models_copy.py"


rule tm_copy_gather:
    input:
        tables=expand(
            f"{TM_RES}/copy/{{pattern}}_L{{depth}}.csv",
            pattern=TM_CFG["copy"]["patterns"],
            depth=TM_CFG["copy"]["depths"],
        ),
        lib=script_deps("concat_tables.py"),
    output:
        report(
            f"{TM_RES}/copy_accuracy.csv",
            caption="../report/trained_models/copy_table.rst",
            category=TM,
        ),
    conda:
        ENV
    log:
        f"logs/{TM}/copy_gather.log",
    script:
        "../scripts/concat_tables.py"


rule tm_mixers:
    """One token-mixing model (alternative below k attention layers) on the counting task."""
    input:
        lib=script_deps("trained_models_mixers.py"),
    output:
        temp(f"{TM_RES}/mixers/{{alternative}}_k{{k}}.csv"),
    params:
        **TM_PARAMS,
        cfg=TM_CFG["mixers"],
    wildcard_constraints:
        alternative="attention|bilinear|conv",
        k=r"\d+",
    threads: TM_CFG["threads"]
    resources:
        mem_mb=2000,
        runtime=30,
    conda:
        ENV
    log:
        f"logs/{TM}/mixers_{{alternative}}_k{{k}}.log",
    benchmark:
        f"results/benchmarks/{TM}/mixers_{{alternative}}_k{{k}}.tsv"
    script:
        "../scripts/trained_models_mixers.py"


rule tm_mixers_gather:
    input:
        tables=[f"{TM_RES}/mixers/{alt}_k{k}.csv" for alt, k in TM_MIXERS],
        lib=script_deps("concat_tables.py"),
    output:
        f"{TM_RES}/mixers.csv",
    conda:
        ENV
    log:
        f"logs/{TM}/mixers_gather.log",
    script:
        "../scripts/concat_tables.py"


rule tm_plot_memorization:
    input:
        curve=f"{TM_RES}/memorization_curve.csv",
        summary=f"{TM_RES}/memorization_summary.csv",
        lib=script_deps("trained_models_plot_memorization.py"),
    output:
        png=report(
            f"figures/{TM}/memorization_curve.png",
            caption="../report/trained_models/memorization_curve.rst",
            category=TM,
        ),
        pdf=f"figures/{TM}/memorization_curve.pdf",
    conda:
        ENV
    log:
        f"logs/{TM}/plot_memorization.log",
    script:
        "../scripts/trained_models_plot_memorization.py"


rule tm_plot_heads:
    input:
        f"{TM_RES}/heads_rank.csv",
        lib=script_deps("trained_models_plot_heads.py"),
    output:
        png=report(
            f"figures/{TM}/heads_rank.png",
            caption="../report/trained_models/heads_rank.rst",
            category=TM,
        ),
        pdf=f"figures/{TM}/heads_rank.pdf",
    conda:
        ENV
    log:
        f"logs/{TM}/plot_heads.log",
    script:
        "../scripts/trained_models_plot_heads.py"


rule tm_plot_width:
    input:
        f"{TM_RES}/width_vs_N.csv",
        lib=script_deps("trained_models_plot_width.py"),
    output:
        png=report(
            f"figures/{TM}/width_vs_N.png",
            caption="../report/trained_models/width_vs_N.rst",
            category=TM,
        ),
        pdf=f"figures/{TM}/width_vs_N.pdf",
    conda:
        ENV
    log:
        f"logs/{TM}/plot_width.log",
    script:
        "../scripts/trained_models_plot_width.py"


rule tm_plot_copy:
    input:
        f"{TM_RES}/copy_accuracy.csv",
        lib=script_deps("trained_models_plot_copy.py"),
    output:
        png=report(
            f"figures/{TM}/copy_accuracy.png",
            caption="../report/trained_models/copy_accuracy.rst",
            category=TM,
        ),
        pdf=f"figures/{TM}/copy_accuracy.pdf",
    conda:
        ENV
    log:
        f"logs/{TM}/plot_copy.log",
    script:
        "../scripts/trained_models_plot_copy.py"


rule tm_plot_mixers:
    input:
        f"{TM_RES}/mixers.csv",
        lib=script_deps("trained_models_plot_mixers.py"),
    output:
        png=report(
            f"figures/{TM}/mixers.png",
            caption="../report/trained_models/mixers.rst",
            category=TM,
        ),
        pdf=f"figures/{TM}/mixers.pdf",
    conda:
        ENV
    log:
        f"logs/{TM}/plot_mixers.log",
    script:
        "../scripts/trained_models_plot_mixers.py"
