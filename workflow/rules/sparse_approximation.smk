# Stage: sparse-pattern approximation with a fixed self-attention module (Likhosherstov,
# Choromanski & Weller 2021/2023). The construction and the precision notion are our
# reconstruction (shared/papers/likhosherstov.md); the mathematics is in lib/expressivity/
# (sparse_target, approximation_check, fixed_module, random_projection, one_pass_search,
# torch_search, attention_mass, growth_models, optimised_inputs, norm_bounds), the rows of each
# job in lib/expressivity/experiments/sparse_approximation/.
import math

# imported under the stage's prefix: every rules file shares one namespace
from expressivity.experiments.sparse_approximation.searches import (
    PLAN_FLOPS as SA_PLAN_FLOPS,
    VARIED as SA_VARIED_KEYS,
    chunk_cost as sa_chunk_cost,
    series_jobs as sa_series_jobs,
)
from expressivity.experiments.sparse_approximation.cost import (
    OPTIMISE_KEYS as SA_OPTIMISE_KEYS,
    optimised_cost as sa_optimised_plan,
)

SA = "sparse_approximation"
SA_CFG = config[SA]
SA_RES = f"results/{SA}"
SA_BENCH = f"results/benchmarks/{SA}"
SA_SWEEP = SA_CFG["sweep"]
SA_MASS = SA_CFG["mass"]
# the values of each varied setting (the config lists the forms under "forms")
SA_VARIED = {
    key: SA_CFG["vary"]["forms" if key == "form" else key] for key in SA_VARIED_KEYS
}
# jobs that can use a GPU ask for one unless the device is the CPU (under SLURM: --gpus)
SA_GPU = 0 if SA_CFG["device"] == "cpu" else 1
SA_RATE = SA_PLAN_FLOPS["cpu" if SA_GPU == 0 else "gpu"]

# the stage's top-level settings `keys` (a job's params hold only those it uses)
sa_settings = lambda *keys: {key: SA_CFG[key] for key in keys}
# the config's value named by a vary job's wildcard, with its type (it keys the random stream)
sa_vary_value = lambda wc: {str(v): v for v in SA_VARIED[wc.varied]}[wc.value]


# the jobs of the sweep-like sections: one per (n, k, chunk of trials), every n up to the n_max of
# its k, trials split so that no job's runtime exceeds limits.job_hours
SA_SWEEP_JOBS, SA_MASS_JOBS = (
    sa_series_jobs(
        SA_CFG, series, SA_RATE, plannable_seconds(config["limits"]["job_hours"])
    )
    for series in ("sweep", "mass")
)
# (seconds, peak bytes) of a job of a sweep-like section: its trials first..last
sa_job_cost = lambda series: lambda wc: sa_chunk_cost(
    SA_CFG, series, int(wc.n), int(wc.k), int(wc.last) - int(wc.first) + 1, SA_RATE
)

SA_OPT = SA_CFG["optimised"]
SA_OPT_SETTINGS = {key: SA_OPT[key] for key in SA_OPTIMISE_KEYS}


# (CPU seconds, peak bytes) of one optimised-inputs job (every n at one k): an upper plan in which
# every grid d fails after all its steps, on one CPU core
sa_optimised_cost = lambda wc: sa_optimised_plan(
    n=SA_OPT["n"],
    k=int(wc.k),
    trials=SA_OPT["trials"],
    search=SA_CFG["search"],
    optimise=SA_OPT_SETTINGS,
    **sa_settings("R", "eps_ratio", "eps_zero", "delta"),
)


TABLES[SA] = {
    "sweep": gathered(
        f"{SA_RES}/sweep/n{n}_k{k}_t{first}-{last}.csv"
        for n, k, first, last in SA_SWEEP_JOBS
    ),
    "mass": gathered(
        f"{SA_RES}/mass/n{n}_k{k}_t{first}-{last}.csv"
        for n, k, first, last in SA_MASS_JOBS
    ),
    "vary": gathered(
        f"{SA_RES}/vary/{varied}_{value}.csv"
        for varied, values in SA_VARIED.items()
        for value in values
    ),
    "jl_check": COMPUTED,
    "logit_error": gathered(
        expand(f"{SA_RES}/logit_error/k{{k}}.csv", k=SA_SWEEP["k"])
    ),
    "optimised_inputs": gathered(
        expand(f"{SA_RES}/optimised/k{{k}}.csv", k=SA_OPT["k"])
    ),
    "fixed_module": COMPUTED,
    "example": COMPUTED,
    "out_of_sample": COMPUTED,
    "model_comparison": COMPUTED,
    "flatness": COMPUTED,
    "local_slopes": COMPUTED,
    "crossover": COMPUTED,
    "medians": COMPUTED,
}
FIGURES[SA] = {
    "d_min_vs_ln_n": plot(
        "sweep", "medians", "model_comparison", "out_of_sample", "flatness"
    ),
    "local_slopes": plot("local_slopes"),
    "d_min_over_n": plot("sweep", "medians", "crossover"),
    "mass": plot("sweep", "mass", "medians"),
    "mass_calibrated": plot("sweep", "mass", "medians", "flatness"),
    "d_min_vs_tolerances": plot("vary"),
    "heatmaps": plot("example"),
    "logit_error": plot("logit_error"),
    "optimised_inputs": plot("optimised_inputs", verdict=True),
}


rule sa_sweep:
    """d_min of the trials first..last at one (n, k): one-pass search over a coupled G."""
    input:
        lib=script_deps(SA, "sweep"),
    output:
        f"{SA_RES}/sweep/n{{n}}_k{{k}}_t{{first}}-{{last}}.csv",
    log:
        f"logs/{SA}/sweep_n{{n}}_k{{k}}_t{{first}}-{{last}}.log",
    benchmark:
        f"{SA_BENCH}/sweep_n{{n}}_k{{k}}_t{{first}}-{{last}}.tsv"
    wildcard_constraints:
        n=r"\d+",
        k=r"\d+",
        first=r"\d+",
        last=r"\d+",
    # the longest jobs start first, so that the cores finish together
    priority: lambda wc: math.ceil(sa_job_cost("sweep")(wc)[0] / 60)
    conda:
        ENV
    resources:
        **per_job(sa_job_cost("sweep")),
        gpu=SA_GPU,
    params:
        **sa_settings(
            "target",
            "R",
            "eps_ratio",
            "eps_zero",
            "delta",
            "search",
            "device",
            "mass_rows",
        ),
        seed=config["seed"],
    script:
        script_path(SA, "sweep")


rule sa_mass:
    """The mass-calibrated variant (eps_zero = mass.eps / n) on the sweep's trials first..last."""
    input:
        lib=script_deps(SA, "mass"),
    output:
        f"{SA_RES}/mass/n{{n}}_k{{k}}_t{{first}}-{{last}}.csv",
    log:
        f"logs/{SA}/mass_n{{n}}_k{{k}}_t{{first}}-{{last}}.log",
    benchmark:
        f"{SA_BENCH}/mass_n{{n}}_k{{k}}_t{{first}}-{{last}}.tsv"
    wildcard_constraints:
        n=r"\d+",
        k=r"\d+",
        first=r"\d+",
        last=r"\d+",
    priority: lambda wc: math.ceil(sa_job_cost("mass")(wc)[0] / 60)
    conda:
        ENV
    resources:
        **per_job(sa_job_cost("mass")),
        gpu=SA_GPU,
    params:
        **sa_settings(
            "target", "R", "eps_ratio", "delta", "search", "device", "mass_rows"
        ),
        seed=config["seed"],
        eps=SA_MASS["eps"],
        horizon_fraction=SA_MASS["horizon_fraction"],
    script:
        script_path(SA, "mass")


rule sa_vary:
    """d_min at vary.(n, k) with one of eps_ratio, eps_zero, R or the form set to one value."""
    input:
        lib=script_deps(SA, "vary"),
    output:
        f"{SA_RES}/vary/{{varied}}_{{value}}.csv",
    log:
        f"logs/{SA}/vary_{{varied}}_{{value}}.log",
    benchmark:
        f"{SA_BENCH}/vary_{{varied}}_{{value}}.tsv"
    wildcard_constraints:
        varied="|".join(SA_VARIED_KEYS),
        value=r"[^/]+",
    conda:
        ENV
    params:
        **sa_settings("target", "R", "eps_ratio", "eps_zero", "delta", "search"),
        seed=config["seed"],
        n=SA_CFG["vary"]["n"],
        k=SA_CFG["vary"]["k"],
        trials=SA_CFG["vary"]["trials"],
        value=sa_vary_value,
    script:
        script_path(SA, "vary")


rule sa_jl:
    """The construction at d = the JL bound (*) for the sweep's targets with n <= jl.n_max."""
    input:
        lib=script_deps(SA, "jl"),
    output:
        table_output(SA, "jl_check"),
    log:
        f"logs/{SA}/jl.log",
    benchmark:
        f"{SA_BENCH}/jl.tsv"
    conda:
        ENV
    params:
        **sa_settings("target", "R", "eps_ratio", "eps_zero", "delta"),
        seed=config["seed"],
        n=[n for n in SA_SWEEP["n"] if n <= SA_CFG["jl"]["n_max"]],
        k=SA_SWEEP["k"],
        trials=SA_CFG["jl"]["trials"],
        max_rounds=SA_CFG["jl"]["max_rounds"],
    script:
        script_path(SA, "jl")


rule sa_error:
    """Largest logit error |X1 X2^T - B| against d at one k (one pass, up to the JL bound)."""
    input:
        lib=script_deps(SA, "error"),
    output:
        f"{SA_RES}/logit_error/k{{k}}.csv",
    log:
        f"logs/{SA}/error_k{{k}}.log",
    benchmark:
        f"{SA_BENCH}/error_k{{k}}.tsv"
    wildcard_constraints:
        k=r"\d+",
    conda:
        ENV
    params:
        **sa_settings("target", "R", "eps_ratio", "eps_zero", "delta"),
        **{key: SA_CFG["search"][key] for key in ("d_start", "min_step", "block")},
        seed=config["seed"],
        n=SA_CFG["error"]["n"],
        trials=SA_CFG["error"]["trials"],
    script:
        script_path(SA, "error")


rule sa_module:
    """One fixed (W_Q, W_K) at d = module.d for targets of every kind and module.k."""
    input:
        lib=script_deps(SA, "module"),
    output:
        table_output(SA, "fixed_module"),
    log:
        f"logs/{SA}/module.log",
    benchmark:
        f"{SA_BENCH}/module.tsv"
    conda:
        ENV
    resources:
        # the n x n logits and the Las Vegas draw's factors
        mem_mb=max(2000, 500 + 48 * SA_CFG["module"]["n"] ** 2 // 2**20),
    params:
        **sa_settings("R", "eps_ratio", "eps_zero"),
        **{
            key: SA_CFG["module"][key]
            for key in ("n", "d", "k", "trials", "max_rounds")
        },
        seed=config["seed"],
    script:
        script_path(SA, "module")


rule sa_example:
    """The heatmap example: one target of module.example_kind at n = module.n, at its d_min."""
    input:
        lib=script_deps(SA, "example"),
    output:
        table_output(SA, "example"),
    log:
        f"logs/{SA}/example.log",
    benchmark:
        f"{SA_BENCH}/example.tsv"
    conda:
        ENV
    params:
        **sa_settings("R", "eps_ratio", "eps_zero", "delta", "search"),
        seed=config["seed"],
        n=SA_CFG["module"]["n"],
        kind=SA_CFG["module"]["example_kind"],
        k=SA_CFG["module"]["example_k"],
        window=SA_CFG["module"]["window"],
    script:
        script_path(SA, "example")


rule sa_optimised:
    """Optimised inputs under the construction's norm bound (every n, one k) against its d_min."""
    input:
        lib=script_deps(SA, "optimised"),
    output:
        f"{SA_RES}/optimised/k{{k}}.csv",
    log:
        f"logs/{SA}/optimised_k{{k}}.log",
    benchmark:
        f"{SA_BENCH}/optimised_k{{k}}.tsv"
    wildcard_constraints:
        k=r"\d+",
    conda:
        ENV
    resources:
        **per_job(sa_optimised_cost),
        gpu=SA_GPU,
    params:
        **sa_settings(
            "target", "R", "eps_ratio", "eps_zero", "delta", "search", "device"
        ),
        seed=config["seed"],
        n=SA_OPT["n"],
        trials=SA_OPT["trials"],
        optimise=SA_OPT_SETTINGS,
        circle_margin=SA_OPT["circle_margin"],
    script:
        script_path(SA, "optimised")


rule sa_models:
    """Growth of d_min in n: out-of-sample models, ratio to the prediction, local slopes, n*."""
    input:
        sweep=table(SA, "sweep"),
        mass=table(SA, "mass"),
        lib=script_deps(SA, "models"),
    output:
        **{
            name: table_output(SA, name)
            for name in (
                "out_of_sample",
                "model_comparison",
                "flatness",
                "local_slopes",
                "crossover",
                "medians",
            )
        },
    log:
        f"logs/{SA}/models.log",
    benchmark:
        f"{SA_BENCH}/models.tsv"
    conda:
        ENV
    params:
        **SA_CFG["models"],
        seed=config["seed"],
    script:
        script_path(SA, "models")
