# Stage: sparse-pattern approximation with a fixed self-attention module (Likhosherstov,
# Choromanski & Weller 2021/2023). The construction and the precision notion are our
# reconstruction (shared/papers/likhosherstov.md); see lib/expressivity/sparse_approximation.py.
import math

from expressivity.sparse_approximation import search_cost

SA = "sparse_approximation"
SA_CFG = config[SA]
SA_RES = f"results/{SA}"
SA_BENCH = f"results/benchmarks/{SA}"
SA_COMMON = {k: SA_CFG[k] for k in ("target", "R", "eps_ratio", "eps_zero", "delta", "search")}
SA_JL_N = [n for n in SA_CFG["sweep"]["n"] if n <= SA_CFG["jl"]["n_max"]]

# (peak bytes, flops) of one sweep trial at the job's (n, k), from the search's cost model
sa_trial_cost = lambda wc: search_cost(
    int(wc.n),
    int(wc.k),
    *(SA_CFG[key] for key in ("R", "eps_ratio", "eps_zero", "delta")),
    SA_CFG["search"]["horizon_fraction"],
)

TABLES[SA] = {
    "sweep": gathered(
        expand(f"{SA_RES}/sweep/n{{n}}_k{{k}}.csv", n=SA_CFG["sweep"]["n"], k=SA_CFG["sweep"]["k"])
    ),
    "vary": COMPUTED,
    "jl_check": COMPUTED,
    "logit_error": COMPUTED,
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
    params:
        seed=config["seed"],
        cfg=SA_COMMON,
        trials=SA_CFG["sweep"]["trials"],
    wildcard_constraints:
        n=r"\d+",
        k=r"\d+",
    # the longest jobs start first (GFLOP of one trial), so that the cores finish together
    priority: lambda wc: int(sa_trial_cost(wc)[1] // 1e9)
    resources:
        # one trial's factors and flops with one extension of the horizon; 20 GFLOP/s (about half
        # of one core measured here) leaves room for slower nodes
        mem_mb=lambda wc: max(2000, 500 + sa_trial_cost(wc)[0] // 2**20),
        runtime=lambda wc: 30
        + math.ceil(SA_CFG["sweep"]["trials"] * sa_trial_cost(wc)[1] / 1.2e12),
    conda:
        ENV
    log:
        f"logs/{SA}/sweep_n{{n}}_k{{k}}.log",
    benchmark:
        f"{SA_BENCH}/sweep_n{{n}}_k{{k}}.tsv"
    script:
        script_path(SA, "sweep")


rule sa_vary:
    """d_min against eps_ratio, eps_zero, R and the form, at one (n, k)."""
    input:
        lib=script_deps(SA, "vary"),
    output:
        table_output(SA, "vary"),
    params:
        seed=config["seed"],
        cfg=SA_COMMON,
        vary=SA_CFG["vary"],
    conda:
        ENV
    log:
        f"logs/{SA}/vary.log",
    benchmark:
        f"{SA_BENCH}/vary.tsv"
    script:
        script_path(SA, "vary")


rule sa_jl:
    """The construction at d = the JL bound (*) for the sweep's targets with n <= jl.n_max."""
    input:
        lib=script_deps(SA, "jl"),
    output:
        table_output(SA, "jl_check"),
    params:
        seed=config["seed"],
        cfg=SA_COMMON,
        n=SA_JL_N,
        k=SA_CFG["sweep"]["k"],
        trials=SA_CFG["sweep"]["trials"],
        max_rounds=SA_CFG["jl"]["max_rounds"],
    conda:
        ENV
    log:
        f"logs/{SA}/jl.log",
    benchmark:
        f"{SA_BENCH}/jl.tsv"
    script:
        script_path(SA, "jl")


rule sa_error:
    """Largest logit error |X1 X2^T - B| against d (one pass, up to the JL bound)."""
    input:
        lib=script_deps(SA, "error"),
    output:
        table_output(SA, "logit_error"),
    params:
        seed=config["seed"],
        cfg=SA_COMMON,
        k=SA_CFG["sweep"]["k"],
        error=SA_CFG["error"],
    conda:
        ENV
    log:
        f"logs/{SA}/error.log",
    benchmark:
        f"{SA_BENCH}/error.tsv"
    script:
        script_path(SA, "error")


rule sa_module:
    """One fixed (W_Q, W_K) for many targets; the n = module.n heatmap example."""
    input:
        lib=script_deps(SA, "module"),
    output:
        module=table_output(SA, "fixed_module"),
        example=table_output(SA, "example"),
    params:
        seed=config["seed"],
        cfg=SA_COMMON,
        k=SA_CFG["sweep"]["k"],
        module=SA_CFG["module"],
    conda:
        ENV
    log:
        f"logs/{SA}/module.log",
    benchmark:
        f"{SA_BENCH}/module.tsv"
    script:
        script_path(SA, "module")