# Stage: trained models. What gradient training (PyTorch, CPU by default) reaches on the questions
# the constructions answer: Kajitsuka & Sato 2024 Sec. 6 (reconstructed, on segment pairs where
# uniform attention and hardmax provably fail), Yun et al. 2020b copying with sparse patterns, Yun
# et al. 2020a Sec. 5 (hybrids of attention and its alternatives). Every cell runs several seeds under
# one protocol (early stopping at the target, one learning-rate decay and a second window before a
# plateau, a budget; each task family has its own budget, window and evaluation interval).
from expressivity.experiments.trained_models import ARMS as TM_ARMS
from expressivity.experiments.trained_models.runs import learning_rates, lr_name

TM = "trained_models"
TM_CFG = config[TM]
TM_RES = f"results/{TM}"
TM_MEM = TM_CFG["memorization"]
TM_MASKED = TM_CFG["masked"]
TM_HEADS = TM_CFG["heads_rank"]
TM_SIZES = [str(s) for s in TM_HEADS["head_sizes"]] + (
    ["d"] if TM_HEADS["full_rank"] else []
)
# jobs run torch on a GPU where `placement` puts them (device cuda: every job; auto: those the
# GPU pays for, planned at the GPU's measured rates); they then ask for one (resource gpu; under
# SLURM --gpus, locally at most one such job at a time, see workflow/profiles/default)
TM_DEVICE = TM_CFG["device"]
# each job's resources from its cost model (expressivity.experiments.trained_models.cost), its
# device param from where they place it
TM_MEMORIZE_PLAN = planned(
    TM, "cost.memorization_cost", "memorization", device=TM_DEVICE
)
# the causal arms: the masked section's dataset, the memorization section's training
TM_MASKED_PLAN = planned(
    TM, "cost.memorization_cost", "masked", "memorization", device=TM_DEVICE
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
    TM, "cost.copy_cell_cost", "copy", supplied=["pattern", "depth"], device=TM_DEVICE
)
TABLES[TM] = {
    "memorization_curve": gathered(
        expand(f"{TM_RES}/memorize/{{arm}}_curve.csv", arm=TM_ARMS)
    ),
    "memorization_runs": gathered(
        expand(f"{TM_RES}/memorize/{{arm}}_runs.csv", arm=TM_ARMS)
    ),
    "masked_curve": gathered(
        expand(f"{TM_RES}/masked/{{arm}}_curve.csv", arm=TM_MASKED["arms"])
    ),
    "masked_runs": gathered(
        expand(f"{TM_RES}/masked/{{arm}}_runs.csv", arm=TM_MASKED["arms"])
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
    "copy_depth": gathered(
        expand(
            f"{TM_RES}/copy/{{pattern}}_L{{depth}}.csv",
            pattern=TM_CFG["copy"]["patterns"],
            depth=TM_CFG["copy"]["depths"],
        )
    ),
}
FIGURES[TM] = {
    "memorization_curve": plot(
        "memorization_curve", "memorization_runs", "masked_curve", "masked_runs"
    ),
    "heads_rank": plot("heads_rank", verdict=True),
    "width_vs_N": plot("width_vs_N", verdict=True),
    "copy_depth": plot("copy_depth", verdict=True),
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
    priority: gpu_first(TM_MEMORIZE_PLAN)
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


rule tm_masked:
    """One causal arm of the memorization experiment on prefix segment pairs (masked attention)."""
    input:
        lib=script_deps(TM, "memorize"),
    output:
        curve=f"{TM_RES}/masked/{{arm}}_curve.csv",
        runs=f"{TM_RES}/masked/{{arm}}_runs.csv",
    log:
        f"logs/{TM}/masked_{{arm}}.log",
    benchmark:
        f"results/benchmarks/{TM}/masked_{{arm}}.tsv"
    wildcard_constraints:
        arm="|".join(TM_ARMS),
    priority: gpu_first(TM_MASKED_PLAN)
    conda:
        ENV
    threads: TM_CFG["threads"]
    resources:
        **TM_MASKED_PLAN,
    params:
        **job_params(
            TM,
            "memorization.memorization_rows",
            "masked",
            "memorization",
            supplied=["arm"],
            given={
                "causal": True,
                "device": job_device(TM_MASKED_PLAN, TM_DEVICE),
            },
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
    priority: gpu_first(TM_HEADS_PLAN)
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
    """Smallest FFN width at which training reaches 100 % (some seed) at one N."""
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
    priority: gpu_first(TM_WIDTH_PLAN)
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
    priority: gpu_first(TM_COPY_PLAN)
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


# ---- the papers' own experiments (Yun et al. 2020b's sparsity sweep and STAR's relay, Yun et al.
# 2020a's hybrid curve): sparsity and star_relay hold what differs from the copy family, hybrid is a family
# of its own
TM_SPARSE = TM_CFG["sparsity"]
TM_SPARSE_CELLS = [
    (task, *cell)
    for task in TM_SPARSE["tasks"]
    for cell in (
        [
            (pattern, conf, level)
            for level in TM_SPARSE["levels"]
            for pattern in TM_SPARSE["patterns"]
            for conf in TM_SPARSE["configurations"]
        ]
        + [
            ("random", conf, level)
            for level in TM_SPARSE["levels"]
            for conf in TM_SPARSE["configurations"]
        ]
        + [("dense", "full", 0)]
    )
]
TM_HYBRID = TM_CFG["hybrid"]
TM_HYBRID_CELLS = (
    [
        ("recall", alt, kernel, k)
        for alt in TM_HYBRID["recall_alternatives"]
        for kernel in (TM_HYBRID["recall_kernels"] if alt == "conv" else [0])
        for k in TM_HYBRID["attention_layers"]
        if k < TM_HYBRID["depth"]
    ]
    # all attention on recall beside the alternatives (none without them: recall left out)
    + [("recall", "attention", 0, TM_HYBRID["depth"])]
    * bool(TM_HYBRID["recall_alternatives"])
    + [("count", "conv", kernel, 0) for kernel in TM_HYBRID["count_kernels"]]
)
TABLES[TM]["sparsity"] = gathered(
    f"{TM_RES}/sparsity/{t}_{p}_{c}_w{w}.csv" for t, p, c, w in TM_SPARSE_CELLS
)
TABLES[TM]["star_bottleneck"] = gathered(
    expand(
        f"{TM_RES}/star/d{{d_model}}_n{{n}}.csv",
        d_model=TM_CFG["star_relay"]["d_models"],
        n=TM_CFG["star_relay"]["ns"],
    )
)
# each learning rate of a hybrid cell is a job of its own (the cell's summary is made when the
# table is gathered): the paper config's hybrids are its longest CPU jobs, and split this way they
# pack onto a node's cores and shorten the SLURM critical path by the length of the grid
TM_HYBRID_LRS = [lr_name(lr) for lr in learning_rates(TM_HYBRID["lr"])]
TABLES[TM]["hybrid"] = gathered(
    (
        f"{TM_RES}/hybrid/{t}_{a}{kern}_k{k}_lr{lr}.csv"
        for t, a, kern, k in TM_HYBRID_CELLS
        for lr in TM_HYBRID_LRS
    ),
    cells=["task", "alternative", "kernel", "attention_layers"],
)
TM_SPARSE_PLAN = planned(TM, "cost.copy_cost", "sparsity", "copy", device=TM_DEVICE)
TM_STAR_PLAN = planned(
    TM,
    "cost.copy_cost",
    "star_relay",
    "copy",
    supplied=["d_model", "n"],
    device=TM_DEVICE,
)
TM_HYBRID_PLAN = planned(
    TM, "cost.hybrid_cost", "hybrid", supplied=["task", "lr"], device=TM_DEVICE
)
FIGURES[TM]["sparsity"] = plot("sparsity", verdict=True)
FIGURES[TM]["star_bottleneck"] = plot("star_bottleneck", verdict=True)
FIGURES[TM]["hybrid"] = plot("hybrid", verdict=True)


rule tm_sparsity:
    """One cell of Yun et al. 2020b's sparsity sweep on one task."""
    input:
        lib=script_deps(TM, "sparsity"),
    output:
        f"{TM_RES}/sparsity/{{task}}_{{pattern}}_{{configuration}}_w{{level}}.csv",
    log:
        f"logs/{TM}/sparsity_{{task}}_{{pattern}}_{{configuration}}_w{{level}}.log",
    benchmark:
        f"results/benchmarks/{TM}/sparsity_{{task}}_{{pattern}}_{{configuration}}_w{{level}}.tsv"
    wildcard_constraints:
        task="[a-z]+",
        pattern="[a-z]+",
        configuration="[a-z]+",
        level=r"\d+",
    priority: gpu_first(TM_SPARSE_PLAN)
    conda:
        ENV
    threads: TM_CFG["threads"]
    resources:
        **TM_SPARSE_PLAN,
    params:
        **job_params(
            TM,
            "papers.sparsity_rows",
            "sparsity",
            "copy",
            supplied=["task", "pattern", "configuration", "level"],
            given={"device": job_device(TM_SPARSE_PLAN, TM_DEVICE)},
        ),
    script:
        script_path(TM, "sparsity")


rule tm_star:
    """STAR on the copying task at one width and length (its relay's load)."""
    input:
        lib=script_deps(TM, "star"),
    output:
        f"{TM_RES}/star/d{{d_model}}_n{{n}}.csv",
    log:
        f"logs/{TM}/star_d{{d_model}}_n{{n}}.log",
    benchmark:
        f"results/benchmarks/{TM}/star_d{{d_model}}_n{{n}}.tsv"
    wildcard_constraints:
        d_model=r"\d+",
        n=r"\d+",
    priority: gpu_first(TM_STAR_PLAN)
    conda:
        ENV
    threads: TM_CFG["threads"]
    resources:
        **TM_STAR_PLAN,
    params:
        **job_params(
            TM,
            "papers.star_rows",
            "star_relay",
            "copy",
            supplied=["d_model", "n"],
            given={"device": job_device(TM_STAR_PLAN, TM_DEVICE)},
        ),
    script:
        script_path(TM, "star")


rule tm_hybrid:
    """One hybrid of Yun et al. 2020a, Sec. 5: k attention layers on top of an alternative, at one
    learning rate."""
    input:
        lib=script_deps(TM, "hybrid"),
    output:
        f"{TM_RES}/hybrid/{{task}}_{{alternative}}{{kernel}}_k{{k}}_lr{{lr}}.csv",
    log:
        f"logs/{TM}/hybrid_{{task}}_{{alternative}}{{kernel}}_k{{k}}_lr{{lr}}.log",
    benchmark:
        f"results/benchmarks/{TM}/hybrid_{{task}}_{{alternative}}{{kernel}}_k{{k}}_lr{{lr}}.tsv"
    wildcard_constraints:
        task="recall|count",
        alternative="attention|bilinear|conv",
        kernel=r"\d+",
        k=r"\d+",
        lr=r"[0-9.e+-]+",
    priority: gpu_first(TM_HYBRID_PLAN)
    conda:
        ENV
    threads: TM_CFG["threads"]
    resources:
        **TM_HYBRID_PLAN,
    params:
        **job_params(
            TM,
            "papers.hybrid_rows",
            "hybrid",
            supplied=["task", "alternative", "kernel", "k", "lr"],
            given={"device": job_device(TM_HYBRID_PLAN, TM_DEVICE)},
        ),
    script:
        script_path(TM, "hybrid")


# ---- Kajitsuka & Sato 2024's memorization at CoNLL shape (capacity of the rank-1 model): one job
# per arm, number of sentences N and ambiguous share a, every width of the arm's grid inside
from expressivity.experiments.trained_models.capacity import CAPACITY_ARMS

TM_CAP = TM_CFG["capacity"]
TABLES[TM]["capacity"] = gathered(
    expand(
        f"{TM_RES}/capacity/{{arm}}_N{{N}}_a{{a}}.csv",
        arm=TM_CAP["arms"],
        N=TM_CAP["N"],
        a=TM_CAP["a"],
    )
)
TM_CAP_PLAN = planned(
    TM,
    "cost.capacity_cost",
    "capacity",
    supplied=["arm", "N"],
    device=TM_DEVICE,
)
FIGURES[TM]["capacity"] = plot("capacity", verdict=True)


rule tm_capacity:
    """One arm of the capacity experiment at one N and a (every width of its grid)."""
    input:
        lib=script_deps(TM, "capacity"),
    output:
        f"{TM_RES}/capacity/{{arm}}_N{{N}}_a{{a}}.csv",
    log:
        f"logs/{TM}/capacity_{{arm}}_N{{N}}_a{{a}}.log",
    benchmark:
        f"results/benchmarks/{TM}/capacity_{{arm}}_N{{N}}_a{{a}}.tsv"
    wildcard_constraints:
        arm="|".join(CAPACITY_ARMS),
        N=r"\d+",
        a=r"[0-9.]+",
    priority: gpu_first(TM_CAP_PLAN)
    conda:
        ENV
    threads: TM_CFG["threads"]
    resources:
        **TM_CAP_PLAN,
    params:
        **job_params(
            TM,
            "capacity.capacity_rows",
            "capacity",
            supplied=["arm", "N", "a"],
            given={"device": job_device(TM_CAP_PLAN, TM_DEVICE)},
        ),
    script:
        script_path(TM, "capacity")
