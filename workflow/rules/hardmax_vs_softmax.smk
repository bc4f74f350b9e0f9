# Stage: hardmax versus softmax (Kajitsuka & Sato 2024 Thm 1 and the Boltzmann operator;
# BigBird Prop. 1).
HVS = "hardmax_vs_softmax"
HVS_CFG = config[HVS]
HVS_RES = f"results/{HVS}"

TABLES[HVS] = {
    "boltzmann_checks": gathered(
        expand(f"{HVS_RES}/boltzmann/chunk{{chunk}}.csv", chunk=range(HVS_CFG["boltzmann"]["n_chunks"]))
    ),
    "boltzmann_curves": COMPUTED,
    "theorem1_search": COMPUTED,
    "theorem1_memorizer": COMPUTED,
    "bigbird": gathered(expand(f"{HVS_RES}/bigbird/n{{n}}.csv", n=HVS_CFG["bigbird"]["n"])),
}
FIGURES[HVS] = {
    "boltzmann_limit": plot("boltzmann_curves"),
    "theorem1_gaps": plot("theorem1_search"),
    "bigbird_accuracy": plot("bigbird"),
}


rule hvs_boltzmann_chunk:
    """Boltzmann operator properties on one chunk of the random vectors."""
    input:
        lib=script_deps(HVS, "boltzmann"),
    output:
        f"{HVS_RES}/boltzmann/chunk{{chunk}}.csv",
    params:
        seed=config["seed"],
        cfg=HVS_CFG["boltzmann"],
        n_chunks=HVS_CFG["boltzmann"]["n_chunks"],
    conda:
        ENV
    resources:
        mem_mb=1000,
        runtime=30,
    log:
        f"logs/{HVS}/boltzmann_chunk{{chunk}}.log",
    benchmark:
        f"results/benchmarks/{HVS}/boltzmann_chunk{{chunk}}.tsv"
    script:
        script_path(HVS, "boltzmann")


rule hvs_boltzmann_curves:
    """Figure data: boltz(beta a)/beta against beta for three example vectors."""
    input:
        lib=script_deps(HVS, "curves"),
    output:
        table_output(HVS, "boltzmann_curves"),
    params:
        seed=config["seed"],
        cfg=HVS_CFG["boltzmann"],
    conda:
        ENV
    resources:
        mem_mb=500,
        runtime=5,
    log:
        f"logs/{HVS}/boltzmann_curves.log",
    benchmark:
        f"results/benchmarks/{HVS}/boltzmann_curves.tsv"
    script:
        script_path(HVS, "curves")


rule hvs_theorem1:
    """Theorem 1: random one-layer attentions on the counterexample; the explicit memorizer."""
    input:
        lib=script_deps(HVS, "theorem1"),
    output:
        search=table_output(HVS, "theorem1_search"),
        memorizer=table_output(HVS, "theorem1_memorizer"),
    params:
        seed=config["seed"],
        cfg=HVS_CFG["theorem1"],
    conda:
        ENV
    resources:
        mem_mb=1000,
        runtime=30,
    log:
        f"logs/{HVS}/theorem1.log",
    benchmark:
        f"results/benchmarks/{HVS}/theorem1.tsv"
    script:
        script_path(HVS, "theorem1")


rule hvs_bigbird:
    """BigBird Prop. 1 at one n: hardmax exactness and softmax accuracy against beta."""
    input:
        lib=script_deps(HVS, "bigbird"),
    output:
        f"{HVS_RES}/bigbird/n{{n}}.csv",
    params:
        seed=config["seed"],
        cfg=HVS_CFG["bigbird"],
    conda:
        ENV
    log:
        f"logs/{HVS}/bigbird_n{{n}}.log",
    benchmark:
        f"results/benchmarks/{HVS}/bigbird_n{{n}}.tsv"
    script:
        script_path(HVS, "bigbird")