# Stage: trained models. What gradient training (PyTorch, CPU by default) reaches on the questions
# the constructions answer: Kajitsuka & Sato 2024 Sec. 6 (reconstructed, on segment pairs where
# uniform attention and hardmax provably fail), Yun et al. 2020b copying with sparse patterns, Yun
# et al. 2020a Sec. 5 (attention versus alternatives, toy scale). Every cell runs several seeds under
# one protocol (early stopping at the target, plateau detection, a budget).
from expressivity.experiments.trained_models.cost import (
    copy_cost,
    heads_cost,
    memorization_cost,
    mixers_cost,
    width_cost,
)
from expressivity.experiments.trained_models import ARMS as TM_ARMS

TM = "trained_models"
TM_CFG = config[TM]
TM_RES = f"results/{TM}"
TM_MEM = TM_CFG["memorization"]
TM_HEADS = TM_CFG["heads_rank"]
TM_SIZES = [str(s) for s in TM_HEADS["head_sizes"]] + (
    ["d"] if TM_HEADS["full_rank"] else []
)
TM_MIXERS = [
    (alt, k)
    for alt in TM_CFG["mixers"]["alternatives"]
    for k in TM_CFG["mixers"]["attention_layers"]
    if k < TM_CFG["mixers"]["depth"]
] + [("attention", TM_CFG["mixers"]["depth"])]
# jobs run torch on a GPU where `placement` puts them (device cuda: every job; auto: those the
# GPU pays for); they then ask for one (resource gpu; under SLURM --gpus, locally at most one such
# job at a time, see workflow/profiles/default), planned at the GPU's measured rates
TM_DEVICE = TM_CFG["device"]
TM_RATES = None if TM_DEVICE == "cpu" else gpu_rates()
# what every job gets: the root seed, torch threads, seeds and the plateau rule (and its device)
TM_PARAMS = dict(
    seed=config["seed"],
    threads=TM_CFG["threads"],
    seeds=TM_CFG["seeds"],
    min_gain=TM_CFG["min_gain"],
)


# the settings of one config section that a job uses, and no others (not its sweep lists)
tm_settings = lambda section, *keys: settings(TM, section, *keys)


# the settings every encoder job (copy, mixers) uses
TM_ENCODER = (
    "n",
    "vocab",
    "d_model",
    "heads",
    "lr",
    "batch",
    "budget",
    "every",
    "window",
    "eval_size",
)
TM_DATA = ("vocab_size", "d", "n", "n_classes")
# (seconds, peak bytes) of each job from the cost model: the rules' runtime and mem_mb
tm_memorize_cost = memorization_cost(
    seeds=TM_CFG["seeds"],
    **tm_settings("memorization", *TM_DATA, "N", "width", "lr", "budget"),
    rates=TM_RATES,
)
tm_heads_cost = lambda wc: heads_cost(
    heads=int(wc.heads),
    head_size=TM_MEM["d"] if wc.size == "d" else int(wc.size),
    seeds=TM_CFG["seeds"],
    N=TM_HEADS["N"],
    **tm_settings("memorization", *TM_DATA, "width", "lr", "budget"),
    rates=TM_RATES,
)
tm_width_cost = lambda wc: width_cost(
    N=int(wc.N),
    seeds=TM_CFG["seeds"],
    **tm_settings("memorization", *TM_DATA),
    **tm_settings("width_search", "widths", "lr", "budget"),
    rates=TM_RATES,
)
tm_copy_cost = lambda wc: copy_cost(
    depth=int(wc.depth),
    seeds=TM_CFG["seeds"],
    **tm_settings("copy", *TM_ENCODER),
    rates=TM_RATES,
)
tm_mixers_cost = mixers_cost(
    seeds=TM_CFG["seeds"],
    **tm_settings("mixers", *TM_ENCODER, "depth"),
    rates=TM_RATES,
)

TABLES[TM] = {
    "memorization_curve": gathered(
        expand(f"{TM_RES}/memorize/{{arm}}_curve.csv", arm=TM_ARMS)
    ),
    "memorization_runs": gathered(
        expand(f"{TM_RES}/memorize/{{arm}}_runs.csv", arm=TM_ARMS)
    ),
    "heads_rank": gathered(
        expand(
            f"{TM_RES}/heads/h{{heads}}_s{{size}}.csv",
            heads=TM_HEADS["heads"],
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
    "memorization_curve": plot("memorization_curve", "memorization_runs"),
    "heads_rank": plot("heads_rank"),
    "width_vs_N": plot("width_vs_N"),
    "copy_accuracy": plot("copy_accuracy"),
    "mixers": plot("mixers"),
}


rule tm_memorize:
    """One arm of the memorization experiment (softmax, fixed w, uniform, hardmax, no attention)."""
    input:
        lib=script_deps(TM, "memorize"),
    output:
        curve=f"{TM_RES}/memorize/{{arm}}_curve.csv",
        runs=f"{TM_RES}/memorize/{{arm}}_runs.csv",
    log:
        f"logs/{TM}/memorize_{{arm}}.log",
    benchmark:
        f"results/benchmarks/{TM}/memorize_{{arm}}.tsv"
    wildcard_constraints:
        arm="|".join(TM_ARMS),
    conda:
        ENV
    threads: TM_CFG["threads"]
    resources:
        **job_resources(*tm_memorize_cost, device=TM_DEVICE),
    params:
        **TM_PARAMS,
        device=job_device(lambda wc: tm_memorize_cost, TM_DEVICE),
        **tm_settings("memorization", *TM_DATA, "N", "pairs", "width", "lr", "budget"),
        **tm_settings("memorization", "window", "record_every"),
    script:
        script_path(TM, "memorize")


rule tm_heads:
    """Heads/rank ablation: h heads of tied head size s on the heads/rank dataset."""
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
    resources:
        **per_job(tm_heads_cost, TM_DEVICE),
    params:
        **TM_PARAMS,
        device=job_device(tm_heads_cost, TM_DEVICE),
        **tm_settings("memorization", *TM_DATA, "width", "lr", "budget", "window"),
        **tm_settings("heads_rank", "N", "pairs"),
    script:
        script_path(TM, "heads")


rule tm_width:
    """Smallest FFN width reaching 100 % training accuracy (every seed) at one N."""
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
    resources:
        **per_job(tm_width_cost, TM_DEVICE),
    params:
        **TM_PARAMS,
        device=job_device(tm_width_cost, TM_DEVICE),
        **tm_settings("memorization", *TM_DATA),
        **tm_settings("width_search", "widths", "lr", "budget", "window"),
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
    resources:
        **per_job(tm_copy_cost, TM_DEVICE),
    params:
        **TM_PARAMS,
        device=job_device(tm_copy_cost, TM_DEVICE),
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
    resources:
        **job_resources(*tm_mixers_cost, device=TM_DEVICE),
    params:
        **TM_PARAMS,
        device=job_device(lambda wc: tm_mixers_cost, TM_DEVICE),
        **tm_settings("mixers", *TM_ENCODER, "depth", "kernel"),
    script:
        script_path(TM, "mixers")
