"""The run plan: jobs, predicted CPU- and GPU-hours and memory per stage from a dry run; jobs over
the cap named; the run's wall time replayed from the dependency graph; the measured GPU rates it
uses; the cost models against committed benchmark records of a default run; the device check's
plumbing (its --dry mode on the CPU)."""

import csv
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import device_rates
import pytest
import yaml
from plan import (
    RECORDS,
    PlannedJob,
    describe,
    dry_run,
    measured,
    parse_dry_run,
    recorded_agreement,
    schedule,
    wall_times,
)

ROOT = Path(__file__).resolve().parents[2]

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
    resources: tmpdir=/tmp, mem_mb=30000, mem=30 GB, runtime=1800, gpu=1, cpu_ms=7200000, gpu_ms=60000
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
    sweep, plot = jobs
    assert sweep.wildcards == "n=512, k=1" and sweep.gpu and sweep.requested_hours == 30
    # predicted: 2 h on a core (4 core-hours at 2 threads), a minute on the node's GPU
    assert sweep.cpu_hours == 4 and sweep.seconds(on_node=True) == 60
    assert sweep.seconds(on_node=False) == 7200
    assert plot.cpu_s is None and plot.seconds(on_node=True) == plot.seconds(on_node=False) > 0
    assert plot.inputs == ("results/memorization/delta_vs_lambda.csv",)


def test_plan_names_stages_totals_and_jobs_over_the_cap():
    text, over = describe(parse_dry_run(DRY_RUN), cap_hours=24, node_cores=16)
    assert "sparse_approximation" in text and "memorization" in text
    assert "total" in text and "sa_sweep n=512, k=1 (1 min)" in text
    assert [j.rule for j in over] == ["sa_sweep"]


def test_a_jobs_cpu_time_is_its_logs_count_not_the_sampled_record(tmp_path):
    """The dry run names each job's log; ``measured`` takes the CPU time from the log's end line
    (the process's own count), and the benchmark record's sampled ``cpu_time`` only for a log
    without that line."""
    sweep = parse_dry_run(DRY_RUN)[0]
    assert sweep.log == "logs/sparse_approximation/sweep_n512_k1.log"
    record = tmp_path / sweep.benchmark
    record.parent.mkdir(parents=True)
    record.write_text("s\th:m:s\tmax_rss\tmean_load\tcpu_time\n41.2\t0:00:41\t350\t33\t14.4\n")
    log = tmp_path / sweep.log
    log.parent.mkdir(parents=True)
    log.write_text("2026-11-27 12:32:38,737 INFO done sa_sweep in 41 s\n")
    assert measured([sweep], cwd=tmp_path)[0]["cpu_s"] == 14.4
    log.write_text("2026-11-27 12:32:38,737 INFO done sa_sweep in 41 s, CPU 35.2 s\n")
    (row,) = measured([sweep], cwd=tmp_path)
    assert (row["cpu_s"], row["wall_s"]) == (35.2, 41.2)
    # on a machine 4 times the reference's speed the 7,200 s prediction is 1,800 s
    assert measured([sweep], cwd=tmp_path, speed=4.0)[0]["predicted_s"] == 1800


def test_records_are_judged_at_the_speed_of_the_machine_that_made_them(tmp_path, monkeypatch):
    """``write_record`` keeps the machine's speed with each record; ``recorded_agreement`` divides
    the prediction by it (records without the column: the reference machine, speed 1)."""
    import plan

    sweep = parse_dry_run(DRY_RUN)[0]
    row = {"rule": sweep.rule, "wildcards": sweep.wildcards, "threads": 2, "wall_s": 3700.0,
           "cpu_s": 7200.0, "mean_load": 97.0, "max_rss_mb": 300.0, "speed": 2.0}
    monkeypatch.setattr(plan, "RECORDS", tmp_path)
    plan.write_record([row], tmp_path / "config-2099-01-01.csv", "config/config.yaml")
    _, count, median, total, missing = recorded_agreement([sweep])
    # 3,600 s on a core measured; 7,200 s predicted on the reference, 3,600 s at speed 2
    assert (count, median, total, missing) == (1, 1.0, 1.0, [])
    text = (tmp_path / "config-2099-01-01.csv").read_text()
    (tmp_path / "config-2099-01-02.csv").write_text(text.replace(",2,sa_sweep", ",,sa_sweep"))
    assert recorded_agreement([sweep])[2] == 0.5


def test_a_speed_that_is_not_positive_is_refused_before_any_work():
    done = subprocess.run([sys.executable, str(ROOT / "workflow/plan.py"), "config/config.yaml",
                           "--speed", "0"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 2 and "--speed must be a positive number, got 0" in done.stderr


def job(name, seconds, after=(), gpu=False, gpu_s=0.0, threads=1):
    return PlannedJob(rule=name, stage="claims", wildcards="", runtime_min=1, mem_mb=1,
                      threads=threads, benchmark=None, cpu_s=seconds, gpu_s=gpu_s, gpu=gpu,
                      inputs=tuple(f"{a}.out" for a in after), outputs=(f"{name}.out",))


def test_the_wall_time_replays_the_graph_on_cores_and_one_gpu():
    """Two cores: a 10 s chain a -> c and a 9 s job b side by side, then d after both. On a
    node, the two GPU jobs (4 s each there) run one after the other; without a node bound every
    job starts when its inputs exist (the critical path)."""
    jobs = [job("a", 4), job("b", 9), job("c", 6, after=["a"]), job("d", 1, after=["b", "c"]),
            job("g1", 100, gpu=True, gpu_s=4), job("g2", 100, gpu=True, gpu_s=4)]
    here = schedule(jobs[:4], cores=2, gpus=0, on_node=False)
    assert here.seconds == 11 and [j.rule for j in here.chain] == ["a", "c", "d"]
    assert schedule(jobs[:4], cores=1, gpus=0, on_node=False).seconds == 20
    assert schedule(jobs, cores=16, gpus=1, on_node=True).seconds == 11
    node = schedule(jobs[4:], cores=16, gpus=1, on_node=True)
    assert node.seconds == 8
    slurm = schedule(jobs, cores=None, gpus=len(jobs), on_node=True)
    assert slurm.seconds == 11 and [j.rule for j in slurm.chain] == ["a", "c", "d"]
    # a job asking for more threads than there are cores still runs, on all of them
    assert schedule([job("t", 5, threads=8)], cores=2, gpus=0, on_node=False).seconds == 5
    # a machine twice as fast as the reference the cost models were fitted on
    assert schedule(jobs[:4], cores=2, gpus=0, on_node=False, speed=2.0).seconds == 5.5


def test_the_node_plan_gives_the_constructions_together_and_the_trained_models_apart():
    """Two construction stages' jobs share the node (GPU jobs one at a time); the trained models
    are planned apart from them."""
    made = [replace(job("s", 100, gpu=True, gpu_s=30), stage="sparse_approximation"),
            replace(job("h", 40), stage="hardmax_vs_softmax"),
            replace(job("s2", 100, gpu=True, gpu_s=20), stage="sparse_approximation"),
            replace(job("t", 100, gpu=True, gpu_s=40), stage="trained_models")]
    text = wall_times(made, cores=2, node={"cores": 16}, gpu="a GPU", here_speed=2.0)
    # this machine, twice the reference's speed: two 100 s jobs side by side, then 100 s and
    # 40 s side by side, 200 s at the reference's speed, 100 s here
    assert "(2 cores, no GPU: every job on a core; 2.00 times the speed" in text
    assert text.splitlines()[0].endswith(": 2 min")
    slow = wall_times(made, cores=2, node={"cores": 16}, gpu="a GPU", here_speed=1.0)
    assert slow.splitlines()[0].endswith(": 3 min")
    assert "one GPU node (16 cores + 1 a GPU" in text and "3 jobs on the GPU, 2 min of it" in text
    assert ("construction stages together 50 s (its GPU jobs 50 s), the trained models 40 s "
            "(its GPU jobs 40 s)") in text


def test_rates_are_the_latest_of_each_quantity_and_a_missing_one_is_named(tmp_path):
    table = tmp_path / "rates.csv"
    table.write_text(device_rates.TABLE.read_text())
    seeded = device_rates.rates("H100", table)
    assert set(device_rates.PLANNING) <= set(seeded)
    newer = {"device": "NVIDIA H100 80GB HBM3", "date": "2099-01-01",
             "quantity": "search_kernel_flops", "value": 2.5e13, "unit": "FLOP/s",
             "measured": "test", "source": "test"}
    device_rates.write([newer], table)
    device_rates.write([{**newer, "value": 3e13}], table)  # same device, date, quantity: replaced
    chosen = device_rates.rates("h100", table)
    assert chosen["search_kernel_flops"]["value"] == 3e13
    assert chosen["gpu_job_start_s"]["value"] == seeded["gpu_job_start_s"]["value"]
    assert sum(1 for _ in csv.DictReader(table.open())) == len(device_rates.read()) + 1
    with pytest.raises(ValueError, match="no gpu_job_start_s.*'A100'.*NVIDIA H100"):
        device_rates.rates("A100", table)


def test_a_measurement_supersedes_a_hand_seeded_figure_of_the_same_date(tmp_path):
    table = tmp_path / "rates.csv"
    table.write_text(device_rates.TABLE.read_text())
    row = {"device": "A NVIDIA H100", "date": "2099-01-01", "quantity": "gpu_job_start_s",
           "unit": "s", "measured": "test"}
    # the seeded row sorts after the measured one, so only the source can decide
    device_rates.write([{**row, "value": 1.0, "source": device_rates.CHECK},
                        {**row, "device": "Z NVIDIA H100", "value": 9.0, "source": "by hand"}],
                       table)
    assert device_rates.rates("H100", table)["gpu_job_start_s"]["value"] == 1.0
    table.write_text(table.read_text() + "X,2099-01-01,flops_per_joule,1,x,x,x\n")
    with pytest.raises(ValueError, match="unknown quantity 'flops_per_joule'"):
        device_rates.read(table)


@pytest.mark.skipif(not list(RECORDS.glob("config-*.csv")),
                    reason="no committed records of a default run")
def test_the_cost_models_predict_the_committed_records_of_a_default_run():
    """Issue 29's standard, on the committed records of the latest default run: per compute job
    measured (CPU time on a core) over predicted seconds (at the speed of the machine that made
    the records) has a median within [0.5, 2], and the total is within 30 %; every record still
    names a job of the plan."""
    _, _, median, total, missing = recorded_agreement(dry_run("config/config.yaml"))
    assert not missing, f"records of jobs the plan no longer has: {missing[:5]}"
    assert 0.5 <= median <= 2 and 0.7 <= total <= 1.3, (median, total)


def test_device_auto_places_each_search_job_by_its_cost_and_splits_long_points():
    """config/paper.yaml (device auto; a node of 16 cores and an H100): a sweep or mass job is on
    the GPU exactly when its predicted GPU seconds times node.cores are below its CPU seconds
    (``chunk_cost`` at the measured rates), its planned time on its device stays within
    node.job_minutes unless it holds a single trial, and each point's jobs cover its trials once;
    both devices are used."""
    from expressivity.experiments.sparse_approximation.cost import chunk_cost
    from expressivity.experiments.sparse_approximation.searches import sweep_points

    cfg = yaml.safe_load((ROOT / "config/paper.yaml").read_text())
    sa, node = cfg["sparse_approximation"], cfg["node"]
    assert sa["device"] == "auto"
    rates = {q: row["value"] for q, row in device_rates.rates(node["gpu"]).items()}
    covered: dict = {}
    for job in dry_run("config/paper.yaml"):
        if job.rule not in ("sa_sweep", "sa_mass"):
            continue
        wc = {key: int(value) for key, value in
              (item.split("=") for item in job.wildcards.split(", "))}
        series, trials = job.rule.removeprefix("sa_"), wc["last"] - wc["first"] + 1
        cpu, _, gpu = chunk_cost(sa, series, wc["n"], wc["k"], trials, rates)
        assert job.gpu == (gpu * node["cores"] < cpu), job
        assert job.cpu_s == pytest.approx(cpu, abs=1e-3)
        planned = gpu if job.gpu else cpu
        assert job.gpu_s == (pytest.approx(gpu, abs=1e-3) if job.gpu else 0)
        assert planned <= 60 * node["job_minutes"] or trials == 1, job
        covered.setdefault((series, wc["n"], wc["k"]), []).extend(
            range(wc["first"], wc["last"] + 1))
    for series in ("sweep", "mass"):
        for n, k, trials in sweep_points(sa[series]):
            assert sorted(covered.pop((series, n, k))) == list(range(trials)), (series, n, k)
    assert not covered
    on_gpu = [job.gpu for job in dry_run("config/paper.yaml") if job.rule == "sa_sweep"]
    assert any(on_gpu) and not all(on_gpu)


def test_bigbird_jobs_are_chunks_of_trials_within_the_node_job_minutes():
    """config/paper.yaml: the BigBird jobs of each n hold consecutive chunks of its trials, each
    once, each planned (``bigbird_cost``) within node.job_minutes unless it holds a single trial;
    the largest n takes several jobs."""
    from expressivity.experiments.hardmax_vs_softmax.bigbird import bigbird_cost

    cfg = yaml.safe_load((ROOT / "config/paper.yaml").read_text())
    bigbird, node = cfg["hardmax_vs_softmax"]["bigbird"], cfg["node"]
    covered: dict = {}
    chunks: dict = {}
    for job in dry_run("config/paper.yaml"):
        if job.rule != "hvs_bigbird":
            continue
        wc = {key: int(value) for key, value in
              (item.split("=") for item in job.wildcards.split(", "))}
        trials = wc["last"] - wc["first"] + 1
        seconds, _ = bigbird_cost(n=wc["n"], trials=trials, n_betas=bigbird["n_betas"])
        assert job.cpu_s == pytest.approx(seconds, abs=1e-3) and not job.gpu
        assert seconds <= 60 * node["job_minutes"] or trials == 1, job
        covered.setdefault(wc["n"], []).extend(range(wc["first"], wc["last"] + 1))
        chunks.setdefault(wc["n"], []).append(job)
    assert {n: sorted(t) for n, t in covered.items()} == {
        n: list(range(bigbird["trials"])) for n in bigbird["n"]}
    assert len(chunks[max(bigbird["n"])]) > 1


def test_trained_block_jobs_are_runs_of_cells_within_the_node_job_minutes():
    """config/paper.yaml: the jobs of Fang et al.'s trained blocks hold consecutive runs of each
    L's cells (``trained_cells``), each once, each planned (``trained_cost``) within
    node.job_minutes unless it holds a single cell; together they predict the one job of every cell
    they replace, and the universal stage's longest job is under an hour."""
    from expressivity.experiments.universal_approximation.polynomial import trained_cells, trained_cost

    cfg = yaml.safe_load((ROOT / "config/paper.yaml").read_text())
    trained, node = cfg["universal_approximation"]["polynomial_trained"], cfg["node"]
    settings = {k: trained[k] for k in ("d", "blocks", "seeds", "lr", "budget", "oversample",
                                        "n_test")}
    covered: dict = {}
    jobs = dry_run("config/paper.yaml")
    for job in jobs:
        if job.rule != "ua_trained":
            continue
        wc = {key: int(value) for key, value in
              (item.split("=") for item in job.wildcards.split(", "))}
        cells = wc["last"] - wc["first"] + 1
        seconds, _ = trained_cost(**settings, L=wc["L"], cells=cells)
        assert job.cpu_s == pytest.approx(seconds, abs=1e-3) and not job.gpu
        assert seconds <= 60 * node["job_minutes"] or cells == 1, job
        covered.setdefault(wc["L"], []).extend(range(wc["first"], wc["last"] + 1))
    assert {L: sorted(c) for L, c in covered.items()} == {
        L: list(range(len(trained_cells(L, trained["variants"])))) for L in trained["blocks"]}
    whole = sum(trained_cost(**settings, L=L, cells=len(covered[L]))[0] for L in covered)
    assert sum(j.cpu_s for j in jobs if j.rule == "ua_trained") == pytest.approx(whole, abs=0.1)
    assert max(j.seconds(on_node=True) for j in jobs
               if j.stage == "universal_approximation") < 3600


def test_gpu_jobs_go_first_so_that_the_gpu_does_not_wait_behind_cpu_jobs():
    """Three cores, four 100 s CPU jobs and four GPU jobs of 50 s: started longest first, the GPU
    jobs wait for the CPU jobs' first wave and the node takes 300 s; with the GPU jobs' priority
    (``gpu_first``) one core feeds the GPU from the start, 200 s."""
    cpu = [job(f"c{i}", 100) for i in range(4)]
    gpu = [job(f"g{i}", 1000, gpu=True, gpu_s=50) for i in range(4)]
    assert schedule(cpu + gpu, cores=3, gpus=1, on_node=True).seconds == 300
    first = [replace(j, priority=100_000) for j in gpu]
    assert schedule(cpu + first, cores=3, gpus=1, on_node=True).seconds == 200


def test_the_paper_plan_feeds_the_gpu_first_and_runs_each_hybrid_learning_rate_apart():
    """config/paper.yaml: every job placed on the GPU has a priority above every CPU job's; each
    hybrid cell is one job per learning rate of its grid (the cell summarised by the gather)."""
    jobs = dry_run("config/paper.yaml")
    on_gpu = [j.priority for j in jobs if j.gpu]
    assert on_gpu and min(on_gpu) > max(j.priority for j in jobs if not j.gpu)
    hybrid = yaml.safe_load((ROOT / "config/paper.yaml").read_text())["trained_models"]["hybrid"]
    rates = [dict(item.split("=") for item in j.wildcards.split(", "))["lr"]
             for j in jobs if j.rule == "tm_hybrid"]
    assert len(hybrid["lr"]) > 1
    assert sorted(set(rates)) == sorted(repr(float(lr)) for lr in hybrid["lr"])
    assert all(rates.count(lr) == len(rates) // len(hybrid["lr"]) for lr in set(rates))


def test_a_training_job_asks_a_cluster_for_its_whole_budget():
    """config/paper.yaml: a hybrid's length is not known before it runs (the convolution alone
    runs to its budget where the cells with attention stop early), so its runtime covers its whole
    budget with the margin, not the share of it that the plan predicts: a cluster would kill a
    job that outlives its runtime, and kill it again when rerun."""
    from expressivity.experiments.trained_models.cost import BUDGET_USED, START_SECONDS

    hybrids = [j for j in dry_run("config/paper.yaml") if j.rule == "tm_hybrid" and not j.gpu]
    assert hybrids
    for job in hybrids:
        whole = START_SECONDS + (job.cpu_s - START_SECONDS) / BUDGET_USED["hybrid"]
        assert job.runtime_min * 60 >= 1.5 * whole > 1.5 * job.cpu_s * 2, job.wildcards


def test_the_device_check_runs_its_steps_on_the_cpu(tmp_path):
    """benchmarks/device_check.sh --dry: both halves' plumbing at toy sizes on the CPU (the GPU
    tests collected, not run); every figure written and summarised, no rates table (the figures
    mean nothing), no more files than a device machine sends back (8)."""
    env = {**os.environ, "PYTHON": sys.executable, "OUT": str(tmp_path)}
    proc = subprocess.run(["bash", str(ROOT / "benchmarks/device_check.sh"), "all", "--dry"],
                          env=env, capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    for name in ("machine.txt", "gpu_unit_tests.log", "search.json", "training.json"):
        assert (tmp_path / name).is_file(), name
    assert not (tmp_path / "device_rates.csv").exists()
    assert len(list(tmp_path.iterdir())) <= 7 and proc.stdout.count("summary:") == 2
    assert all(q in proc.stdout for q in ("gpu_job_start_s", "encoder_layer_step_s", "minibatch_step_s"))
    bad = subprocess.run(["bash", str(ROOT / "benchmarks/device_check.sh"), "tpu"], env=env,
                         capture_output=True, text=True, cwd=ROOT)
    assert bad.returncode == 2 and "usage" in bad.stderr
