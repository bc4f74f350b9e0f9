# Stage: trained models. What gradient training (PyTorch, CPU by default) reaches on the questions
# the constructions answer: Kajitsuka & Sato 2024 Sec. 6 (reconstructed, on segment pairs where
# uniform attention and hardmax provably fail), Yun et al. 2020b copying with sparse patterns, Yun
# et al. 2020a Sec. 5 (attention versus alternatives, toy scale). Every cell runs several seeds under
# one protocol (early stopping at the target, plateau detection, a budget).
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
# GPU pays for, planned at the GPU's measured rates); they then ask for one (resource gpu; under
# SLURM --gpus, locally at most one such job at a time, see workflow/profiles/default)
TM_DEVICE = TM_CFG["device"]
# each job's resources from its cost model (expressivity.experiments.trained_models.cost), its
# device param from where they place it
TM_MEMORIZE_PLAN = planned(
    TM, "cost.memorization_cost", "memorization", device=TM_DEVICE
)
TM_HEADS_PLAN = planned(
    TM,
    "cost.heads_cost",
    "heads_rank",
    "memorization",
    supplied=["heads"],
    given={"head_size": lambda wc: TM_MEM["d"] if wc.size == "d" else int(wc.size)},
    device=TM_DEVICE,
)
TM_WIDTH_PLAN = planned(
    TM,
    "cost.width_cost",
    "width_search",
    "memorization",
    supplied=["N"],
    device=TM_DEVICE,
)
TM_COPY_PLAN = planned(
    TM, "cost.copy_cost", "copy", supplied=["depth"], device=TM_DEVICE
)
TM_MIXERS_PLAN = planned(TM, "cost.mixers_cost", "mixers", device=TM_DEVICE)
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
        **TM_MEMORIZE_PLAN,
    params:
        **job_params(
            TM,
            "memorization.memorization_rows",
            "memorization",
            supplied=["arm"],
            given={"device": job_device(TM_MEMORIZE_PLAN, TM_DEVICE)},
        ),
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
        **TM_HEADS_PLAN,
    params:
        # N and pairs of heads_rank, the rest of the memorization dataset and training
        **job_params(
            TM,
            "memorization.heads_rows",
            "heads_rank",
            "memorization",
            supplied=["heads", "size"],
            given={"device": job_device(TM_HEADS_PLAN, TM_DEVICE)},
        ),
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
        **TM_WIDTH_PLAN,
    params:
        # the memorization dataset, the search's own training settings
        **job_params(
            TM,
            "width.width_rows",
            "width_search",
            "memorization",
            supplied=["N"],
            given={"device": job_device(TM_WIDTH_PLAN, TM_DEVICE)},
        ),
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
        **TM_COPY_PLAN,
    params:
        **job_params(
            TM,
            "encoders.copy_rows",
            "copy",
            supplied=["pattern", "depth"],
            given={"device": job_device(TM_COPY_PLAN, TM_DEVICE)},
        ),
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
        **TM_MIXERS_PLAN,
    params:
        **job_params(
            TM,
            "encoders.mixers_rows",
            "mixers",
            supplied=["alternative", "k"],
            given={"device": job_device(TM_MIXERS_PLAN, TM_DEVICE)},
        ),
    script:
        script_path(TM, "mixers")
