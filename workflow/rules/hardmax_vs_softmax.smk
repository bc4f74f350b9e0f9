# Stage: hardmax versus softmax (Kajitsuka & Sato 2024 Thm 1 and the Boltzmann operator;
# BigBird Prop. 1).
HVS = "hardmax_vs_softmax"
HVS_CFG = config[HVS]
HVS_RES = f"results/{HVS}"

# imported under the stage's prefix: every rules file shares one namespace
from expressivity.experiments.hardmax_vs_softmax.bigbird import (
    bigbird_cost as hvs_bigbird_cost,
)

HVS_BIGBIRD = HVS_CFG["bigbird"]
# the BigBird jobs: one per (n, chunk of trials), each planned within node.job_minutes (see
# chunked_jobs); a chunk's instances are those trials of the unsplit job, drawn alike
HVS_BIGBIRD_JOBS = chunked_jobs(
    [(n, HVS_BIGBIRD["trials"]) for n in HVS_BIGBIRD["n"]],
    lambda n, trials: (
        *hvs_bigbird_cost(
            n=n,
            trials=trials,
            **job_params(
                HVS, "bigbird.bigbird_cost", "bigbird", supplied=["n", "trials"]
            ),
        ),
        None,  # no GPU path
    ),
    "cpu",
)
# a BigBird job's trials, from its wildcards
hvs_bigbird_trials = lambda wc: int(wc.last) - int(wc.first) + 1


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
        f"{HVS_RES}/bigbird/n{n}_t{first}-{last}.csv"
        for n, first, last in HVS_BIGBIRD_JOBS
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
        **planned(HVS, "boltzmann.chunk_cost", "boltzmann"),
    params:
        **job_params(HVS, "boltzmann.check_chunk", "boltzmann", supplied=["chunk"]),
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
        **job_params(HVS, "boltzmann.limit_curves", "boltzmann"),
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
        **planned(HVS, "theorem1.search_cost", "theorem1"),
    params:
        **job_params(HVS, "theorem1.theorem1_tables", "theorem1"),
    script:
        script_path(HVS, "theorem1")


rule hvs_bigbird:
    """BigBird Prop. 1 at one n on the trials first..last: hardmax exactness, softmax accuracy
    against beta, the smallest working beta and two sufficient bounds per instance."""
    input:
        lib=script_deps(HVS, "bigbird"),
    output:
        f"{HVS_RES}/bigbird/n{{n}}_t{{first}}-{{last}}.csv",
    log:
        f"logs/{HVS}/bigbird_n{{n}}_t{{first}}-{{last}}.log",
    benchmark:
        f"results/benchmarks/{HVS}/bigbird_n{{n}}_t{{first}}-{{last}}.tsv"
    wildcard_constraints:
        n=r"\d+",
        first=r"\d+",
        last=r"\d+",
    conda:
        ENV
    resources:
        **planned(
            HVS,
            "bigbird.bigbird_cost",
            "bigbird",
            supplied=["n"],
            given={"trials": hvs_bigbird_trials},
        ),
    params:
        **job_params(
            HVS, "bigbird.bigbird_table", "bigbird", supplied=["n", "first", "trials"]
        ),
    script:
        script_path(HVS, "bigbird")
