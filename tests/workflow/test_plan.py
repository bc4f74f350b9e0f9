"""The run plan: jobs, CPU-hours and memory per stage from a dry run; jobs over the cap named."""

from plan import describe, parse_dry_run

DRY_RUN = """
[Mon Nov 23 14:59:52 2026]
rule sa_sweep:
    input: lib/expressivity/one_pass_search.py
    output: results/sparse_approximation/sweep/n512_k1.csv
    log: logs/sparse_approximation/sweep_n512_k1.log
    jobid: 16
    benchmark: results/benchmarks/sparse_approximation/sweep_n512_k1.tsv
    reason: Forced execution
    wildcards: n=512, k=1
    threads: 2
    resources: tmpdir=/tmp, mem_mb=30000, mem=30 GB, runtime=1800
Shell command: None

[Mon Nov 23 14:59:53 2026]
localrule memorization_plot_delta_vs_lambda:
    input: results/memorization/delta_vs_lambda.csv
    output: figures/memorization/delta_vs_lambda.png, figures/memorization/delta_vs_lambda.pdf
    jobid: 3
    resources: tmpdir=/tmp, mem_mb=2000, runtime=2
Shell command: None
"""


def test_dry_run_is_read_per_job_and_stage():
    jobs = parse_dry_run(DRY_RUN)
    assert [(j.rule, j.stage, j.threads, j.runtime_min, j.mem_mb) for j in jobs] == [
        ("sa_sweep", "sparse_approximation", 2, 1800, 30000),
        ("memorization_plot_delta_vs_lambda", "memorization", 1, 2, 2000),
    ]
    assert jobs[0].cpu_hours == 60 and jobs[0].wildcards == "n=512, k=1"


def test_plan_names_stages_totals_and_jobs_over_the_cap():
    text, over = describe(parse_dry_run(DRY_RUN), cap_hours=24)
    assert "sparse_approximation" in text and "memorization" in text
    assert "total" in text and "sa_sweep n=512, k=1 (30.0 h)" in text
    assert [j.rule for j in over] == ["sa_sweep"]
