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

STAGE_TABLES[SA] = [
    f"{SA_RES}/sweep.csv",
    f"{SA_RES}/vary.csv",
    f"{SA_RES}/jl_check.csv",
    f"{SA_RES}/fixed_module.csv",
]
STAGE_OUTPUTS[SA] = [
    *figure(SA, "d_min_vs_n"),
    *figure(SA, "d_min_over_n"),
    *figure(SA, "d_min_vs_tolerances"),
    *figure(SA, "heatmaps"),
    *figure(SA, "logit_error"),
    *STAGE_TABLES[SA],
    f"{SA_RES}/logit_error.csv",
    f"{SA_RES}/example.csv",
    "results/claims/sparse_approximation.csv",
]


rule sparse_approximation:
    """Everything of the sparse-approximation stage."""
    input:
        STAGE_OUTPUTS[SA],


rule sa_sweep:
    """d_min of every trial at one (n, k): one-pass search over a coupled G."""
    input:
        lib=script_deps("sparse_approximation_sweep.py"),
    output:
        temp(f"{SA_RES}/sweep/n{{n}}_k{{k}}.csv"),
    params:
        seed=config["seed"],
        cfg=SA_COMMON,
        trials=SA_CFG["sweep"]["trials"],
    wildcard_constraints:
        n=r"\d+",
        k=r"\d+",
    threads: 1
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
        "../scripts/sparse_approximation_sweep.py"


rule sa_sweep_gather:
    """One table of d_min over every (n, k, trial)."""
    input:
        tables=expand(
            f"{SA_RES}/sweep/n{{n}}_k{{k}}.csv",
            n=SA_CFG["sweep"]["n"],
            k=SA_CFG["sweep"]["k"],
        ),
        lib=script_deps("concat_tables.py"),
    output:
        report(
            f"{SA_RES}/sweep.csv",
            caption="../report/sparse_approximation/sweep.rst",
            category=SA,
        ),
    conda:
        ENV
    log:
        f"logs/{SA}/sweep_gather.log",
    script:
        "../scripts/concat_tables.py"


rule sa_vary:
    """d_min against eps_ratio, eps_zero, R and the form, at one (n, k)."""
    input:
        lib=script_deps("sparse_approximation_vary.py"),
    output:
        f"{SA_RES}/vary.csv",
    params:
        seed=config["seed"],
        cfg=SA_COMMON,
        vary=SA_CFG["vary"],
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    conda:
        ENV
    log:
        f"logs/{SA}/vary.log",
    benchmark:
        f"{SA_BENCH}/vary.tsv"
    script:
        "../scripts/sparse_approximation_vary.py"


rule sa_jl:
    """The construction at d = the JL bound (*) for the sweep's targets with n <= jl.n_max."""
    input:
        lib=script_deps("sparse_approximation_jl.py"),
    output:
        f"{SA_RES}/jl_check.csv",
    params:
        seed=config["seed"],
        cfg=SA_COMMON,
        n=SA_JL_N,
        k=SA_CFG["sweep"]["k"],
        trials=SA_CFG["sweep"]["trials"],
        max_rounds=SA_CFG["jl"]["max_rounds"],
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    conda:
        ENV
    log:
        f"logs/{SA}/jl.log",
    benchmark:
        f"{SA_BENCH}/jl.tsv"
    script:
        "../scripts/sparse_approximation_jl.py"


rule sa_error:
    """Largest logit error |X1 X2^T - B| against d (one pass, up to the JL bound)."""
    input:
        lib=script_deps("sparse_approximation_error.py"),
    output:
        f"{SA_RES}/logit_error.csv",
    params:
        seed=config["seed"],
        cfg=SA_COMMON,
        k=SA_CFG["sweep"]["k"],
        error=SA_CFG["error"],
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    conda:
        ENV
    log:
        f"logs/{SA}/error.log",
    benchmark:
        f"{SA_BENCH}/error.tsv"
    script:
        "../scripts/sparse_approximation_error.py"


rule sa_module:
    """One fixed (W_Q, W_K) for many targets; the n = module.n heatmap example."""
    input:
        lib=script_deps("sparse_approximation_module.py"),
    output:
        module=report(
            f"{SA_RES}/fixed_module.csv",
            caption="../report/sparse_approximation/fixed_module.rst",
            category=SA,
        ),
        example=f"{SA_RES}/example.csv",
    params:
        seed=config["seed"],
        cfg=SA_COMMON,
        k=SA_CFG["sweep"]["k"],
        module=SA_CFG["module"],
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    conda:
        ENV
    log:
        f"logs/{SA}/module.log",
    benchmark:
        f"{SA_BENCH}/module.tsv"
    script:
        "../scripts/sparse_approximation_module.py"


rule sa_plot_scaling:
    input:
        sweep=f"{SA_RES}/sweep.csv",
        lib=script_deps("sparse_approximation_plot_scaling.py"),
    output:
        png=report(
            f"figures/{SA}/d_min_vs_n.png",
            caption="../report/sparse_approximation/d_min_vs_n.rst",
            category=SA,
        ),
        pdf=f"figures/{SA}/d_min_vs_n.pdf",
        ratio_png=report(
            f"figures/{SA}/d_min_over_n.png",
            caption="../report/sparse_approximation/d_min_over_n.rst",
            category=SA,
        ),
        ratio_pdf=f"figures/{SA}/d_min_over_n.pdf",
    conda:
        ENV
    log:
        f"logs/{SA}/plot_scaling.log",
    script:
        "../scripts/sparse_approximation_plot_scaling.py"


rule sa_plot_vary:
    input:
        vary=f"{SA_RES}/vary.csv",
        lib=script_deps("sparse_approximation_plot_vary.py"),
    output:
        png=report(
            f"figures/{SA}/d_min_vs_tolerances.png",
            caption="../report/sparse_approximation/d_min_vs_tolerances.rst",
            category=SA,
        ),
        pdf=f"figures/{SA}/d_min_vs_tolerances.pdf",
    conda:
        ENV
    log:
        f"logs/{SA}/plot_vary.log",
    script:
        "../scripts/sparse_approximation_plot_vary.py"


rule sa_plot_heatmaps:
    input:
        example=f"{SA_RES}/example.csv",
        lib=script_deps("sparse_approximation_plot_heatmaps.py"),
    output:
        png=report(
            f"figures/{SA}/heatmaps.png",
            caption="../report/sparse_approximation/heatmaps.rst",
            category=SA,
        ),
        pdf=f"figures/{SA}/heatmaps.pdf",
    conda:
        ENV
    log:
        f"logs/{SA}/plot_heatmaps.log",
    script:
        "../scripts/sparse_approximation_plot_heatmaps.py"


rule sa_plot_error:
    input:
        error=f"{SA_RES}/logit_error.csv",
        lib=script_deps("sparse_approximation_plot_error.py"),
    output:
        png=report(
            f"figures/{SA}/logit_error.png",
            caption="../report/sparse_approximation/logit_error.rst",
            category=SA,
        ),
        pdf=f"figures/{SA}/logit_error.pdf",
    conda:
        ENV
    log:
        f"logs/{SA}/plot_error.log",
    script:
        "../scripts/sparse_approximation_plot_error.py"
