# Stage: sparse-pattern approximation with a fixed self-attention module (Likhosherstov,
# Choromanski & Weller 2021/2023). The construction and the precision notion are our
# reconstruction (shared/papers/likhosherstov.md); the mathematics is in lib/expressivity/
# (sparse_target, approximation_check, fixed_module, random_projection, one_pass_search,
# torch_search, d_min_reference, attention_mass, growth_models, optimised_inputs, norm_bounds),
# the rows of each job in lib/expressivity/experiments/sparse_approximation/.
import math

# imported under the stage's prefix: every rules file shares one namespace
from expressivity.experiments.sparse_approximation.searches import (
    OPTIMISE_KEYS as SA_OPTIMISE_KEYS,
    VARIED as SA_VARIED_KEYS,
    sweep_points as sa_sweep_points,
)
from expressivity.experiments.sparse_approximation.cost import (
    chunk_cost as sa_chunk_cost,
)

SA = "sparse_approximation"
SA_CFG = config[SA]
SA_RES = f"results/{SA}"
SA_BENCH = f"results/benchmarks/{SA}"
SA_SWEEP = SA_CFG["sweep"]
# the values of each varied setting (the config lists the forms under "forms")
SA_VARIED = {
    key: SA_CFG["vary"]["forms" if key == "form" else key] for key in SA_VARIED_KEYS
}
# where the searches may run; the measured rates of the node's GPU when they may use one
SA_DEVICE = SA_CFG["device"]
SA_RATES = None if SA_DEVICE == "cpu" else gpu_rates()

# the config's value named by a vary job's wildcard, with its type (it keys the random stream)
sa_vary_value = lambda wc: {str(v): v for v in SA_VARIED[wc.varied]}[wc.value]
# a vary job's settings besides vary's own: the stage's values (vary's own eps_ratio, eps_zero
# and R are the lists it sweeps) and the wildcard's
SA_VARY = dict(
    supplied=["varied"],
    keys={key: f"{SA}.{key}" for key in ("R", "eps_ratio", "eps_zero")},
    given={"value": sa_vary_value},
)


# the jobs of the sweep-like sections: one per (n, k, chunk of trials), see chunked_jobs
SA_SWEEP_JOBS, SA_MASS_JOBS = (
    chunked_jobs(
        sa_sweep_points(SA_CFG[series]),
        lambda n, k, trials, series=series: sa_chunk_cost(
            SA_CFG, series, n, k, trials, SA_RATES
        ),
        SA_DEVICE,
    )
    for series in ("sweep", "mass")
)
# (CPU seconds, peak bytes, GPU seconds) of a job of a sweep-like section
sa_job_cost = lambda jobs: lambda wc: jobs[
    int(wc.n), int(wc.k), int(wc.first), int(wc.last)
]
SA_SWEEP_RESOURCES, SA_MASS_RESOURCES = (
    per_job(sa_job_cost(jobs), SA_DEVICE) for jobs in (SA_SWEEP_JOBS, SA_MASS_JOBS)
)
# the longest jobs start first, so that the cores finish together (GPU jobs before all: gpu_first)
SA_SWEEP_PRIORITY, SA_MASS_PRIORITY = (
    gpu_first(resources, lambda wc, jobs=jobs: math.ceil(sa_job_cost(jobs)(wc)[0] / 60))
    for jobs, resources in (
        (SA_SWEEP_JOBS, SA_SWEEP_RESOURCES),
        (SA_MASS_JOBS, SA_MASS_RESOURCES),
    )
)

# the jl job's targets: the sweep's k at its n up to jl.n_max
SA_JL = dict(
    keys={"k": f"{SA}.sweep.k"},
    given={"n": [n for n in SA_SWEEP["n"] if n <= SA_CFG["jl"]["n_max"]]},
)
# the heatmap example's target: module.example_kind at module.example_k
SA_EXAMPLE = dict(
    keys={"kind": f"{SA}.module.example_kind", "k": f"{SA}.module.example_k"}
)

SA_OPT = SA_CFG["optimised"]
SA_FRONTIER = SA_CFG["frontier"]
# the optimiser's settings, read when a job is sized or run
sa_optimise = lambda wc: {key: SA_OPT[key] for key in SA_OPTIMISE_KEYS}
# an upper plan in which every grid d fails after all its steps, on one CPU core (no GPU cost
# model: device auto keeps it on a core, cuda puts it on the GPU)
SA_OPTIMISED_PLAN = planned(
    SA,
    "cost.optimised_cost",
    "optimised",
    supplied=["k"],
    given={"optimise": sa_optimise},
    device=SA_DEVICE,
)
# the frontier's jobs: each budget's problems walk to their planned d (no GPU cost model: device
# auto keeps them on a core, cuda puts them on the GPU)
SA_FRONTIER_PLAN = planned(
    SA, "cost.frontier_cost", "frontier", supplied=["k"], device=SA_DEVICE
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
    "d_min_reference": COMPUTED,
    "logit_error": gathered(
        expand(f"{SA_RES}/logit_error/k{{k}}.csv", k=SA_SWEEP["k"])
    ),
    "optimised_inputs": gathered(
        expand(f"{SA_RES}/optimised/k{{k}}.csv", k=SA_OPT["k"])
    ),
    "frontier": gathered(expand(f"{SA_RES}/frontier/k{{k}}.csv", k=SA_FRONTIER["k"])),
    "frontier_unbounded": COMPUTED,
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
    "frontier": plot("frontier", "frontier_unbounded", verdict=True),
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
    priority: SA_SWEEP_PRIORITY
    conda:
        ENV
    resources:
        **SA_SWEEP_RESOURCES,
    params:
        **job_params(
            SA,
            "searches.sweep_table",
            supplied=["n", "k", "first", "trials"],
            given={"device": job_device(SA_SWEEP_RESOURCES, SA_DEVICE)},
        ),
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
    priority: SA_MASS_PRIORITY
    conda:
        ENV
    resources:
        **SA_MASS_RESOURCES,
    params:
        **job_params(
            SA,
            "searches.mass_table",
            "mass",
            supplied=["n", "k", "first", "trials"],
            given={"device": job_device(SA_MASS_RESOURCES, SA_DEVICE)},
        ),
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
    resources:
        **planned(SA, "cost.vary_cost", "vary", **SA_VARY),
    params:
        **job_params(
            SA,
            "searches.vary_table",
            "vary",
            **SA_VARY,
        ),
    script:
        script_path(SA, "vary")


rule sa_reference:
    """The exact-rule reference d_ref at every (n, k) of the sweep and of the mass-calibrated sweep:
    a row-exact Gaussian model of the search's decision rule (no sweep table is read).
    """
    input:
        lib=script_deps(SA, "reference"),
    output:
        table_output(SA, "d_min_reference"),
    log:
        f"logs/{SA}/reference.log",
    benchmark:
        f"{SA_BENCH}/reference.tsv"
    conda:
        ENV
    resources:
        **planned(SA, "cost.reference_cost"),
    params:
        **job_params(
            SA,
            "reference.reference_table",
            # only the grid of the search: its other settings do not change the reference
            given={
                "search": {
                    key: config[SA]["search"][key]
                    for key in ("d_start", "resolution", "min_step")
                }
            },
        ),
    script:
        script_path(SA, "reference")


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
    resources:
        **planned(SA, "cost.jl_cost", "jl", **SA_JL),
    params:
        **job_params(
            SA,
            "searches.jl_table",
            "jl",
            **SA_JL,
        ),
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
    resources:
        **planned(SA, "cost.error_cost", "error", "search", supplied=["k"]),
    params:
        **job_params(SA, "searches.error_table", "error", "search", supplied=["k"]),
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
        **planned(SA, "cost.module_cost", "module"),
    params:
        **job_params(SA, "construction.module_table", "module"),
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
    resources:
        **planned(SA, "cost.example_cost", "module", **SA_EXAMPLE),
    params:
        **job_params(
            SA,
            "construction.example_table",
            "module",
            **SA_EXAMPLE,
        ),
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
    priority: gpu_first(SA_OPTIMISED_PLAN)
    conda:
        ENV
    resources:
        **SA_OPTIMISED_PLAN,
    params:
        **job_params(
            SA,
            "optimised.optimised_table",
            "optimised",
            supplied=["k"],
            given={
                "optimise": sa_optimise,
                "device": job_device(SA_OPTIMISED_PLAN, SA_DEVICE),
            },
        ),
    script:
        script_path(SA, "optimised")


rule sa_frontier:
    """The dimension-norm frontier at one k: optimised inputs under every logit budget and
    criterion, at every n."""
    input:
        lib=script_deps(SA, "frontier"),
    output:
        f"{SA_RES}/frontier/k{{k}}.csv",
    log:
        f"logs/{SA}/frontier_k{{k}}.log",
    benchmark:
        f"{SA_BENCH}/frontier_k{{k}}.tsv"
    wildcard_constraints:
        k=r"\d+",
    priority: gpu_first(SA_FRONTIER_PLAN)
    conda:
        ENV
    resources:
        **SA_FRONTIER_PLAN,
    params:
        **job_params(
            SA,
            "frontier.frontier_table",
            "frontier",
            supplied=["k"],
            keys={"mass_eps": f"{SA}.mass.eps"},
            given={"device": job_device(SA_FRONTIER_PLAN, SA_DEVICE)},
        ),
    script:
        script_path(SA, "frontier")


rule sa_unbounded:
    """The unbounded constructions on the frontier's targets: the circle (d = 2) and the moment
    curve (d = 2k, decided in ball arithmetic) at their smallest scale."""
    input:
        lib=script_deps(SA, "unbounded"),
    output:
        table_output(SA, "frontier_unbounded"),
    log:
        f"logs/{SA}/unbounded.log",
    benchmark:
        f"{SA_BENCH}/unbounded.tsv"
    conda:
        ENV
    resources:
        **planned(SA, "cost.unbounded_cost", "frontier"),
    params:
        **job_params(
            SA,
            "frontier.unbounded_table",
            "frontier",
            keys={"mass_eps": f"{SA}.mass.eps"},
        ),
    script:
        script_path(SA, "unbounded")


rule sa_models:
    """Growth of d_min in n: out-of-sample models, ratio to the exact-rule reference, local
    slopes, n*."""
    input:
        sweep=table(SA, "sweep"),
        mass=table(SA, "mass"),
        reference=table(SA, "d_min_reference"),
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
        **job_params(
            SA,
            "models.models_tables",
            "models",
            supplied=["sweep", "mass", "reference"],
        ),
    script:
        script_path(SA, "models")
