# Stage: hardmax versus softmax (Kajitsuka & Sato 2024 Thm 1 and the Boltzmann operator;
# BigBird Prop. 1).
HVS = "hardmax_vs_softmax"
HVS_CFG = config[HVS]
HVS_RES = f"results/{HVS}"

STAGE_TABLES[HVS] = [
    f"{HVS_RES}/boltzmann_checks.csv",
    f"{HVS_RES}/theorem1_search.csv",
    f"{HVS_RES}/theorem1_memorizer.csv",
    f"{HVS_RES}/bigbird.csv",
]
STAGE_OUTPUTS[HVS] = [
    *figure(HVS, "boltzmann_limit"),
    *figure(HVS, "theorem1_gaps"),
    *figure(HVS, "bigbird_accuracy"),
    *STAGE_TABLES[HVS],
    f"{HVS_RES}/boltzmann_curves.csv",
    "results/claims/hardmax_vs_softmax.csv",
]


rule hardmax_vs_softmax:
    """Everything of the hardmax-versus-softmax stage."""
    input:
        STAGE_OUTPUTS[HVS],


rule hvs_boltzmann_chunk:
    """Boltzmann operator properties on one chunk of the random vectors."""
    input:
        lib=script_deps("hardmax_vs_softmax_boltzmann.py"),
    output:
        temp(f"{HVS_RES}/boltzmann/chunk{{chunk}}.csv"),
    params:
        seed=config["seed"],
        cfg=HVS_CFG["boltzmann"],
        n_chunks=HVS_CFG["boltzmann"]["n_chunks"],
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=1000,
        runtime=30,
    log:
        f"logs/{HVS}/boltzmann_chunk{{chunk}}.log",
    benchmark:
        f"results/benchmarks/{HVS}/boltzmann_chunk{{chunk}}.tsv"
    script:
        "../scripts/hardmax_vs_softmax_boltzmann.py"


rule hvs_boltzmann_gather:
    """One table of Boltzmann checks, one row per vector (independent of the chunking)."""
    input:
        tables=expand(
            f"{HVS_RES}/boltzmann/chunk{{chunk}}.csv",
            chunk=range(HVS_CFG["boltzmann"]["n_chunks"]),
        ),
        lib=script_deps("concat_tables.py"),
    output:
        report(
            f"{HVS_RES}/boltzmann_checks.csv",
            caption="../report/hardmax_vs_softmax/boltzmann_checks.rst",
            category=HVS,
        ),
    conda:
        ENV
    log:
        f"logs/{HVS}/boltzmann_gather.log",
    script:
        "../scripts/concat_tables.py"


rule hvs_boltzmann_curves:
    """Figure data: boltz(beta a)/beta against beta for three example vectors."""
    input:
        lib=script_deps("hardmax_vs_softmax_curves.py"),
    output:
        f"{HVS_RES}/boltzmann_curves.csv",
    params:
        seed=config["seed"],
        cfg=HVS_CFG["boltzmann"],
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=500,
        runtime=5,
    log:
        f"logs/{HVS}/boltzmann_curves.log",
    benchmark:
        f"results/benchmarks/{HVS}/boltzmann_curves.tsv"
    script:
        "../scripts/hardmax_vs_softmax_curves.py"


rule hvs_theorem1:
    """Theorem 1: random one-layer attentions on the counterexample; the explicit memorizer."""
    input:
        lib=script_deps("hardmax_vs_softmax_theorem1.py"),
    output:
        search=f"{HVS_RES}/theorem1_search.csv",
        memorizer=report(
            f"{HVS_RES}/theorem1_memorizer.csv",
            caption="../report/hardmax_vs_softmax/theorem1_memorizer.rst",
            category=HVS,
        ),
    params:
        seed=config["seed"],
        cfg=HVS_CFG["theorem1"],
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=1000,
        runtime=30,
    log:
        f"logs/{HVS}/theorem1.log",
    benchmark:
        f"results/benchmarks/{HVS}/theorem1.tsv"
    script:
        "../scripts/hardmax_vs_softmax_theorem1.py"


rule hvs_bigbird:
    """BigBird Prop. 1 at one n: hardmax exactness and softmax accuracy against beta."""
    input:
        lib=script_deps("hardmax_vs_softmax_bigbird.py"),
    output:
        temp(f"{HVS_RES}/bigbird/n{{n}}.csv"),
    params:
        seed=config["seed"],
        cfg=HVS_CFG["bigbird"],
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    log:
        f"logs/{HVS}/bigbird_n{{n}}.log",
    benchmark:
        f"results/benchmarks/{HVS}/bigbird_n{{n}}.tsv"
    script:
        "../scripts/hardmax_vs_softmax_bigbird.py"


rule hvs_bigbird_gather:
    """One table over every n."""
    input:
        tables=expand(f"{HVS_RES}/bigbird/n{{n}}.csv", n=HVS_CFG["bigbird"]["n"]),
        lib=script_deps("concat_tables.py"),
    output:
        f"{HVS_RES}/bigbird.csv",
    conda:
        ENV
    log:
        f"logs/{HVS}/bigbird_gather.log",
    script:
        "../scripts/concat_tables.py"


rule hvs_plot_boltzmann:
    input:
        f"{HVS_RES}/boltzmann_curves.csv",
        lib=script_deps("hardmax_vs_softmax_plot_boltzmann.py"),
    output:
        png=report(
            f"figures/{HVS}/boltzmann_limit.png",
            caption="../report/hardmax_vs_softmax/boltzmann_limit.rst",
            category=HVS,
        ),
        pdf=f"figures/{HVS}/boltzmann_limit.pdf",
    conda:
        ENV
    log:
        f"logs/{HVS}/plot_boltzmann.log",
    script:
        "../scripts/hardmax_vs_softmax_plot_boltzmann.py"


rule hvs_plot_theorem1:
    input:
        f"{HVS_RES}/theorem1_search.csv",
        lib=script_deps("hardmax_vs_softmax_plot_theorem1.py"),
    output:
        png=report(
            f"figures/{HVS}/theorem1_gaps.png",
            caption="../report/hardmax_vs_softmax/theorem1_gaps.rst",
            category=HVS,
        ),
        pdf=f"figures/{HVS}/theorem1_gaps.pdf",
    conda:
        ENV
    log:
        f"logs/{HVS}/plot_theorem1.log",
    script:
        "../scripts/hardmax_vs_softmax_plot_theorem1.py"


rule hvs_plot_bigbird:
    input:
        f"{HVS_RES}/bigbird.csv",
        lib=script_deps("hardmax_vs_softmax_plot_bigbird.py"),
    output:
        png=report(
            f"figures/{HVS}/bigbird_accuracy.png",
            caption="../report/hardmax_vs_softmax/bigbird_accuracy.rst",
            category=HVS,
        ),
        pdf=f"figures/{HVS}/bigbird_accuracy.pdf",
    conda:
        ENV
    log:
        f"logs/{HVS}/plot_bigbird.log",
    script:
        "../scripts/hardmax_vs_softmax_plot_bigbird.py"
