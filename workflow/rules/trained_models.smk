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
TM_PARAMS = dict(
    seed=config["seed"], threads=TM_CFG["threads"], device=TM_CFG["device"]
)


def tm_settings(section, *keys):
    """The settings of one config section that a job uses, and no others (not its sweep lists)."""
    return {key: TM_CFG[section][key] for key in keys}


# The settings every encoder job (copy, mixers) uses.
TM_ENCODER = (
    "n",
    "vocab",
    "d_model",
    "heads",
    "steps",
    "batch",
    "lr",
    "eval_size",
    "record_every",
)

TABLES[TM] = {
    "memorization_curve": gathered(
        expand(f"{TM_RES}/memorize/{{variant}}_curve.csv", variant=TM_VARIANTS)
    ),
    "memorization_summary": gathered(
        expand(f"{TM_RES}/memorize/{{variant}}_summary.csv", variant=TM_VARIANTS)
    ),
    "heads_rank": gathered(
        expand(
            f"{TM_RES}/heads/h{{heads}}_s{{size}}.csv",
            heads=TM_CFG["heads_rank"]["heads"],
            size=TM_SIZES,
        )
    ),
    "width_vs_N": gathered(
        expand(f"{TM_RES}/width/N{{N}}.csv", N=TM_CFG["width_search"]["N"])
    ),
    "copy_accuracy": gathered(
        expand(
            f"{TM_RES}/copy/{{pattern}}_L{{depth}}.csv",
            pattern=TM_CFG["copy"]["patterns"],
            depth=TM_CFG["copy"]["depths"],
        )
    ),
    "mixers": gathered(f"{TM_RES}/mixers/{alt}_k{k}.csv" for alt, k in TM_MIXERS),
}
FIGURES[TM] = {
    "memorization_curve": plot("memorization_curve", "memorization_summary"),
    "heads_rank": plot("heads_rank"),
    "width_vs_N": plot("width_vs_N"),
    "copy_accuracy": plot("copy_accuracy"),
    "mixers": plot("mixers"),
}


rule tm_memorize:
    """One memorization run (learned w, fixed w, or no attention) with its accuracy curve."""
    input:
        lib=script_deps(TM, "memorize"),
    output:
        curve=f"{TM_RES}/memorize/{{variant}}_curve.csv",
        summary=f"{TM_RES}/memorize/{{variant}}_summary.csv",
    log:
        f"logs/{TM}/memorize_{{variant}}.log",
    benchmark:
        f"results/benchmarks/{TM}/memorize_{{variant}}.tsv"
    wildcard_constraints:
        variant="|".join(TM_VARIANTS),
    conda:
        ENV
    threads: TM_CFG["threads"]
    params:
        **TM_PARAMS,
        **TM_MEM,
    script:
        script_path(TM, "memorize")


rule tm_heads:
    """Heads/rank ablation: h heads of tied head size s on the memorization dataset."""
    input:
        lib=script_deps(TM, "heads"),
    output:
        f"{TM_RES}/heads/h{{heads}}_s{{size}}.csv",
    log:
        f"logs/{TM}/heads_h{{heads}}_s{{size}}.log",
    benchmark:
        f"results/benchmarks/{TM}/heads_h{{heads}}_s{{size}}.tsv"
    wildcard_constraints:
        heads=r"\d+",
        size=r"\d+|d",
    conda:
        ENV
    threads: TM_CFG["threads"]
    params:
        **TM_PARAMS,
        **TM_MEM,
    script:
        script_path(TM, "heads")


rule tm_width:
    """Smallest FFN width reaching 100 % training accuracy at one N."""
    input:
        lib=script_deps(TM, "width"),
    output:
        f"{TM_RES}/width/N{{N}}.csv",
    log:
        f"logs/{TM}/width_N{{N}}.log",
    benchmark:
        f"results/benchmarks/{TM}/width_N{{N}}.tsv"
    wildcard_constraints:
        N=r"\d+",
    conda:
        ENV
    threads: TM_CFG["threads"]
    params:
        **TM_PARAMS,
        **tm_settings("memorization", "vocab_size", "d", "n", "n_classes", "lr"),
        **tm_settings("width_search", "widths", "epochs"),
    script:
        script_path(TM, "width")


rule tm_copy:
    """Copying task with one sparse attention pattern at one depth."""
    input:
        lib=script_deps(TM, "copying"),
    output:
        f"{TM_RES}/copy/{{pattern}}_L{{depth}}.csv",
    log:
        f"logs/{TM}/copy_{{pattern}}_L{{depth}}.log",
    benchmark:
        f"results/benchmarks/{TM}/copy_{{pattern}}_L{{depth}}.tsv"
    wildcard_constraints:
        pattern="[a-z_]+",
        depth=r"\d+",
    conda:
        ENV
    threads: TM_CFG["threads"]
    params:
        **TM_PARAMS,
        **tm_settings("copy", *TM_ENCODER),
    script:
        script_path(TM, "copying")


rule tm_mixers:
    """One token-mixing model (alternative below k attention layers) on the counting task."""
    input:
        lib=script_deps(TM, "mixers"),
    output:
        f"{TM_RES}/mixers/{{alternative}}_k{{k}}.csv",
    log:
        f"logs/{TM}/mixers_{{alternative}}_k{{k}}.log",
    benchmark:
        f"results/benchmarks/{TM}/mixers_{{alternative}}_k{{k}}.tsv"
    wildcard_constraints:
        alternative="attention|bilinear|conv",
        k=r"\d+",
    conda:
        ENV
    threads: TM_CFG["threads"]
    params:
        **TM_PARAMS,
        **tm_settings("mixers", *TM_ENCODER, "depth", "kernel"),
    script:
        script_path(TM, "mixers")
