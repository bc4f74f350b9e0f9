# Stage: sparse-pattern approximation with a fixed self-attention module (Likhosherstov,
# Choromanski & Weller 2021/2023). The construction and the precision notion are our
# reconstruction (shared/papers/likhosherstov.md); the mathematics is in lib/expressivity/
# (sparse_target, approximation_check, fixed_module, random_projection, one_pass_search), the rows
# of each job in lib/expressivity/experiments/sparse_approximation.py.
import math

from expressivity.experiments.sparse_approximation import VARIED, search_cost

SA = "sparse_approximation"
SA_CFG = config[SA]
SA_RES = f"results/{SA}"
SA_BENCH = f"results/benchmarks/{SA}"
SA_JL_N = [n for n in SA_CFG["sweep"]["n"] if n <= SA_CFG["jl"]["n_max"]]
# the values of each varied setting (the config lists the forms under "forms")
SA_VARIED = {key: SA_CFG["vary"]["forms" if key == "form" else key] for key in VARIED}


# the stage's top-level settings `keys` (a job's params hold only those it uses)
sa_settings = lambda *keys: {key: SA_CFG[key] for key in keys}
# the config's value named by a vary job's wildcard, with its type (it keys the random stream)
sa_vary_value = lambda wc: {str(v): v for v in SA_VARIED[wc.varied]}[wc.value]


# (peak bytes, flops) of one sweep trial at the job's (n, k), from the search's cost model
sa_trial_cost = lambda wc: search_cost(
    n=int(wc.n),
    k=int(wc.k),
    horizon_fraction=SA_CFG["search"]["horizon_fraction"],
    **sa_settings("R", "eps_ratio", "eps_zero", "delta"),
)

TABLES[SA] = {
    "sweep": gathered(
        expand(
            f"{SA_RES}/sweep/n{{n}}_k{{k}}.csv",
            n=SA_CFG["sweep"]["n"],
            k=SA_CFG["sweep"]["k"],
        )
    ),
    "vary": gathered(
        f"{SA_RES}/vary/{varied}_{value}.csv"
        for varied, values in SA_VARIED.items()
        for value in values
    ),
    "jl_check": COMPUTED,
    "logit_error": gathered(
        expand(f"{SA_RES}/logit_error/k{{k}}.csv", k=SA_CFG["sweep"]["k"])
    ),
    "fixed_module": COMPUTED,
    "example": COMPUTED,
}
FIGURES[SA] = {
    "d_min_vs_n": plot("sweep"),
    "d_min_over_n": plot("sweep"),
    "d_min_vs_tolerances": plot("vary"),
    "heatmaps": plot("example"),
    "logit_error": plot("logit_error"),
}


rule sa_sweep:
    """d_min of every trial at one (n, k): one-pass search over a coupled G."""
    input:
        lib=script_deps(SA, "sweep"),
    output:
        f"{SA_RES}/sweep/n{{n}}_k{{k}}.csv",
    log:
        f"logs/{SA}/sweep_n{{n}}_k{{k}}.log",
    benchmark:
        f"{SA_BENCH}/sweep_n{{n}}_k{{k}}.tsv"
    wildcard_constraints:
        n=r"\d+",
        k=r"\d+",
    # the longest jobs start first (GFLOP of one trial), so that the cores finish together
    priority: lambda wc: int(sa_trial_cost(wc)[1] // 1e9)
    conda:
        ENV
    resources:
        # one trial's factors and flops with one extension of the horizon; 20 GFLOP/s (about half
        # of one core measured here) leaves room for slower nodes
        mem_mb=lambda wc: max(2000, 500 + sa_trial_cost(wc)[0] // 2**20),
        runtime=lambda wc: 30
        + math.ceil(SA_CFG["sweep"]["trials"] * sa_trial_cost(wc)[1] / 1.2e12),
    params:
        **sa_settings("target", "R", "eps_ratio", "eps_zero", "delta", "search"),
        seed=config["seed"],
        trials=SA_CFG["sweep"]["trials"],
    script:
        script_path(SA, "sweep")


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
        varied="|".join(VARIED),
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
        n=SA_JL_N,
        k=SA_CFG["sweep"]["k"],
        trials=SA_CFG["sweep"]["trials"],
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
    """One fixed (W_Q, W_K) at d = module.d for targets of every kind and k."""
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
    params:
        **sa_settings("R", "eps_ratio", "eps_zero"),
        seed=config["seed"],
        n=SA_CFG["module"]["n"],
        d=SA_CFG["module"]["d"],
        k=SA_CFG["sweep"]["k"],
        trials=SA_CFG["module"]["trials"],
        max_rounds=SA_CFG["module"]["max_rounds"],
    script:
        script_path(SA, "module")


rule sa_example:
    """The heatmap example: one target of size module.n, k = module.example_k, at its d_min."""
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
        **sa_settings("target", "R", "eps_ratio", "eps_zero", "delta", "search"),
        seed=config["seed"],
        n=SA_CFG["module"]["n"],
        k=SA_CFG["module"]["example_k"],
    script:
        script_path(SA, "example")
