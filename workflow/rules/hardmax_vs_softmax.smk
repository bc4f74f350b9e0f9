# Stage: hardmax versus softmax (Kajitsuka & Sato 2024 Thm 1 and the Boltzmann operator;
# BigBird Prop. 1).
from expressivity.experiments.hardmax_vs_softmax.bigbird import bigbird_cost
from expressivity.experiments.hardmax_vs_softmax.boltzmann import chunk_cost
from expressivity.experiments.hardmax_vs_softmax.theorem1 import (
    search_cost as theorem1_cost,
)

HVS = "hardmax_vs_softmax"
HVS_CFG = config[HVS]
HVS_RES = f"results/{HVS}"


# the settings one job uses, as keywords of its experiments function (sweep lists that are
# wildcards stay out)
hvs_params = lambda section, *keys: {
    "seed": config["seed"],
    **settings(HVS, section, *keys),
}

# runtime and mem_mb of each job from the cost models of the experiments layer
HVS_CHUNK_RES = job_resources(
    *chunk_cost(
        **settings(
            HVS,
            "boltzmann",
            "n_chunks",
            "n_vectors",
            "size_max",
            "scale_max",
            "arb_dps",
        )
    )
)
HVS_THEOREM1_RES = job_resources(
    *theorem1_cost(
        **settings(
            HVS,
            "theorem1",
            "n_draws",
            "exact_draws",
            "heads_max",
            "head_size_max",
            "labellings",
        )
    )
)
HVS_BIGBIRD_RES = per_job(
    lambda wc: bigbird_cost(
        n=int(wc.n), **settings(HVS, "bigbird", "trials", "n_betas")
    )
)


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
    "bigbird_beta": plot("bigbird"),
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
        **HVS_CHUNK_RES,
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
            "arb_dps",
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
    """Theorem 1: random one-layer attentions on the counterexample; the memorizer under random
    labellings."""
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
        **HVS_THEOREM1_RES,
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
            "labellings",
        ),
    script:
        script_path(HVS, "theorem1")


rule hvs_bigbird:
    """BigBird Prop. 1 at one n: hardmax exactness, softmax accuracy against beta, the smallest
    working beta and two sufficient bounds per instance."""
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
    resources:
        **HVS_BIGBIRD_RES,
    params:
        **hvs_params("bigbird", "trials", "beta_min", "beta_max", "n_betas"),
    script:
        script_path(HVS, "bigbird")
