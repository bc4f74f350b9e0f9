"""benchmarks/trained_models.py: its step timer (the same code times the reference revision) and
its mapping of a job's output file to its table."""

import importlib.util
from pathlib import Path

from cases import ROOT


def test_the_step_benchmark_times_a_cell_in_a_fresh_process():
    """The worker runs against the library on its path and reports milliseconds per step and the
    CPU kernels."""
    spec = importlib.util.spec_from_file_location("bench", ROOT / "benchmarks/trained_models.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    timed = bench.time_cell(ROOT / "lib", "memorization", seeds=2, steps=20, every=10,
                            device="cpu")
    assert timed["ms_per_step"] > 0 and timed["device"] == "cpu" and timed["cpu_kernels"]
    assert bench._table_of(Path("results/trained_models/copy/dense_L4.csv")) == "copy_depth"
    assert bench._table_of(Path("results/trained_models/memorize/fixed_curve.csv")) == ""


def test_every_piece_the_capture_probe_captures_runs_eagerly():
    """benchmarks/capture_probe.py: each piece of an encoder's step runs (forward and backward,
    the whole step for adam_step, twice: the warm-up and the step a capture records) on the CPU,
    so on a GPU only its capture is in question; a piece's subprocess reports "no GPU" here."""
    spec = importlib.util.spec_from_file_location("probe", ROOT / "benchmarks/capture_probe.py")
    probe = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(probe)
    for name in probe.PIECES:
        if name.startswith("train_encoders"):  # the library's own loop, tested elsewhere
            continue
        fn = probe.piece(name, "cpu")
        for _ in range(2):
            out = fn()
            if out is not None:
                out.backward()
    assert probe.probe(probe.PIECES[:1]) == {probe.PIECES[0]: "no GPU"}
