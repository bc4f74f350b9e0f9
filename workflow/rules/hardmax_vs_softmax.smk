# Stage: hardmax versus softmax (Kajitsuka & Sato 2024 Thm 1 and the Boltzmann operator;
# BigBird Prop. 1).
HVS = "hardmax_vs_softmax"
HVS_CFG = config[HVS]
HVS_RES = f"results/{HVS}"


def hvs_params(section, *keys):
    """The settings one job uses, as keywords of its experiments function: ``keys`` of
    ``hardmax_vs_softmax.<section>`` (sweep lists that are wildcards stay out)."""
    return {"seed": config["seed"], **{k: HVS_CFG[section][k] for k in keys}}


TABLES[HVS] = {
    "boltzmann_checks": gathered(
        expand(
            f"{HVS_RES}/boltzmann/chunk{{chunk}}.csv",
            chunk=range(HVS_CFG["boltzmann"]["n_chunks"]),
        )
    ),
    "boltzmann_curves": COMPUTED,
    "theorem1_search": COMPUTED,
    "theorem1_memorizer": COMPUTED,
    "bigbird": gathered(
        expand(f"{HVS_RES}/bigbird/n{{n}}.csv", n=HVS_CFG["bigbird"]["n"])
    ),
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
    log:
        f"logs/{HVS}/boltzmann_chunk{{chunk}}.log",
    benchmark:
        f"results/benchmarks/{HVS}/boltzmann_chunk{{chunk}}.tsv"
    conda:
        ENV
    resources:
        mem_mb=1000,
        runtime=30,
    params:
        **hvs_params(
            "boltzmann",
            "n_vectors",
            "n_chunks",
            "size_min",
            "size_max",
            "scale_max",
            "tie_fraction",
            "spreads",
            "mp_dps",
        ),
    script:
        script_path(HVS, "boltzmann")


rule hvs_boltzmann_curves:
    """Figure data: boltz(beta a)/beta against beta for three example vectors."""
    input:
        lib=script_deps(HVS, "curves"),
    output:
        table_output(HVS, "boltzmann_curves"),
    log:
        f"logs/{HVS}/boltzmann_curves.log",
    benchmark:
        f"results/benchmarks/{HVS}/boltzmann_curves.tsv"
    conda:
        ENV
    resources:
        mem_mb=500,
        runtime=5,
    params:
        **hvs_params("boltzmann", "example_betas"),
    script:
        script_path(HVS, "curves")


rule hvs_theorem1:
    """Theorem 1: random one-layer attentions on the counterexample; the explicit memorizer."""
    input:
        lib=script_deps(HVS, "theorem1"),
    output:
        search=table_output(HVS, "theorem1_search"),
        memorizer=table_output(HVS, "theorem1_memorizer"),
    log:
        f"logs/{HVS}/theorem1.log",
    benchmark:
        f"results/benchmarks/{HVS}/theorem1.tsv"
    conda:
        ENV
    resources:
        mem_mb=1000,
        runtime=30,
    params:
        **hvs_params(
            "theorem1",
            "n_draws",
            "d",
            "heads_max",
            "head_size_max",
            "weight_scales",
            "tie_tol",
            "exact_draws",
            "lam",
        ),
    script:
        script_path(HVS, "theorem1")


rule hvs_bigbird:
    """BigBird Prop. 1 at one n: hardmax exactness and softmax accuracy against beta."""
    input:
        lib=script_deps(HVS, "bigbird"),
    output:
        f"{HVS_RES}/bigbird/n{{n}}.csv",
    log:
        f"logs/{HVS}/bigbird_n{{n}}.log",
    benchmark:
        f"results/benchmarks/{HVS}/bigbird_n{{n}}.tsv"
    conda:
        ENV
    params:
        **hvs_params("bigbird", "trials", "beta_min", "beta_max", "n_betas"),
    script:
        script_path(HVS, "bigbird")
