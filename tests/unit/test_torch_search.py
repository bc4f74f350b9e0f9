"""Unit tests: the torch search (run here on the CPU, the path a GPU takes) against the reference
search: equal d_min and d_stable wherever the recorded decision margin exceeds the rounding bound,
slacks equal within that bound."""

import math

import numpy as np
import pytest
import torch

from expressivity.approximation_check import logit_values
from expressivity.attention_mass import sample_rows
from expressivity.d_min_search import factor_mass_at, host_factors, search_d_min
from expressivity.fixed_module import coupled_factors
from expressivity.one_pass_search import d_grid, one_pass_search
from expressivity.reference.sparse_approximation import naive_search
from expressivity.sparse_target import make_target
from expressivity.torch_runtime import resolve_device
from expressivity.torch_search import block_rows, device_factors, one_pass_search_torch

EPS_R, EPS_Z = 1.0, 0.1
#: The device the torch path runs on here: a GPU where torch sees one (benchmarks/device_check.sh
#: runs these tests there), else the CPU.
DEVICE = "cuda" if torch.cuda.is_available() else "cpu"


@pytest.mark.parametrize(("kind", "n", "k", "form", "seed", "tracked"), [
    ("permutations", 48, 1, "row", 0, 10), ("permutations", 64, 2, "row", 1, None),
    ("band", 40, 3, "row", 2, 9), ("block", 50, 2, "column", 3, 12),
    ("permutations", 33, 2, "column", 4, None),
])
def test_torch_search_equals_the_reference(kind, n, k, form, seed, tracked):
    rng = np.random.default_rng(seed)
    T = make_target(kind, n, k, 4.0, rng)
    grid = d_grid(8, 1500, 0.05, 8)
    QT, KT = coupled_factors(T, logit_values(T, EPS_R, EPS_Z), rng, int(grid[-1]), form)
    rows = None if tracked is None else sample_rows(n, tracked)
    fast = one_pass_search_torch(T, QT, KT, grid, EPS_R, EPS_Z, block=7, device=DEVICE,
                                 tracked=rows)
    slow = naive_search(T, QT, KT, grid, EPS_R, EPS_Z, block=16)
    assert fast.rounding_tol == slow.rounding_tol
    assert fast.decision_margin > fast.rounding_tol and slow.decided
    assert fast.d_min == slow.d_min and not math.isnan(fast.d_min)
    assert fast.d_stable == slow.d_stable or (math.isnan(fast.d_stable)
                                              and math.isnan(slow.d_stable))
    passing = slow.slack >= 0
    assert np.array_equal(fast.slack >= 0, passing)
    assert np.allclose(fast.slack[passing], slow.slack[passing], rtol=0, atol=slow.rounding_tol)
    if rows is None:
        assert np.allclose(fast.slack, slow.slack, rtol=0, atol=slow.rounding_tol)
        rows = np.arange(n)
    assert np.array_equal(fast.row_first, slow.row_first[rows])
    assert np.array_equal(fast.row_last_fail, slow.row_last_fail[rows])


def test_torch_search_matches_numpy_per_row_on_a_multi_block_trial():
    """One trial of several blocks, as the workflow runs it (tracked rows spread over the
    sequence, the other rows pruned): the torch path (the GPU's) and the numpy path (the CPU's)
    give the same d_min, d_stable and per-row d of every tracked row, and report progress (on a
    GPU the rows after the tracked ones fill one block)."""
    rng = np.random.default_rng(11)
    T = make_target("permutations", 300, 2, 4.0, rng)
    grid = d_grid(16, 2500, 0.05, 16)
    QT, KT = coupled_factors(T, logit_values(T, EPS_R, EPS_Z), rng, int(grid[-1]))
    rows = sample_rows(300, 80)
    seen = []
    fast = one_pass_search_torch(T, QT, KT, grid, EPS_R, EPS_Z, block=64, device=DEVICE,
                                 tracked=rows,
                                 progress=lambda done, total: seen.append((done, total)))
    ref = one_pass_search(T, QT, KT, grid, EPS_R, EPS_Z, block=64, tracked=rows)
    assert seen == ([(r, 300) for r in (64, 80, 144, 208, 272, 300)] if DEVICE == "cpu"
                    else [(80, 300), (300, 300)])
    assert fast.d_min == ref.d_min and fast.d_stable == ref.d_stable
    assert fast.decision_margin > fast.rounding_tol
    assert np.array_equal(fast.rows, rows) and len(fast.row_d_min) == 80
    assert np.array_equal(fast.row_d_min, ref.row_d_min, equal_nan=True)
    # the rows' own d spread below d_stable: the column is informative, not d_start
    assert grid[0] < np.nanmedian(ref.row_d_min) <= np.nanmax(ref.row_d_min) <= ref.d_stable


@pytest.mark.parametrize(("form", "k"), [("row", 3), ("column", 2)])
def test_factors_formed_on_the_device_are_the_hosts_and_search_alike(form, k):
    """device_factors gives coupled_factors' numbers bit for bit (and leaves the generator where
    it does); the search on them equals the search on the host's arrays; the mass at d_min is
    read from them on the device (factor_mass_at) as from the host's arrays."""
    import torch

    T = make_target("permutations", 90, k, 4.0, np.random.default_rng(5))
    B = logit_values(T, EPS_R, EPS_Z)
    host_rng, dev_rng = np.random.default_rng(6), np.random.default_rng(6)
    QT, KT = coupled_factors(T, B, host_rng, 2500, form)
    Qd, Kd = device_factors(T, B, dev_rng, 2500, form, device=DEVICE)
    assert isinstance(Qd, torch.Tensor) and Qd.device.type == DEVICE
    assert np.array_equal(Qd.cpu().numpy(), QT) and np.array_equal(Kd.cpu().numpy(), KT)
    assert host_rng.integers(2**62) == dev_rng.integers(2**62)
    grid = d_grid(16, 2500, 0.05, 16)
    rows = sample_rows(90, 20)
    on_host = one_pass_search_torch(T, QT, KT, grid, EPS_R, EPS_Z, 32, DEVICE, tracked=rows)
    on_dev = one_pass_search_torch(T, Qd, Kd, grid, EPS_R, EPS_Z, 32, DEVICE, tracked=rows)
    assert on_dev.d_min == on_host.d_min and not math.isnan(on_host.d_min)
    assert np.array_equal(on_dev.slack, on_host.slack)
    assert np.array_equal(on_dev.row_last_fail, on_host.row_last_fail)
    assert on_dev.rounding_tol == pytest.approx(on_host.rounding_tol, rel=1e-9)
    d = int(on_host.d_min)
    on_host.factors, on_dev.factors = (QT, KT), (Qd, Kd)
    assert np.array_equal(host_factors(on_dev)[0], QT)
    for want, got in zip(factor_mass_at(T, on_host, d, rows, 8), factor_mass_at(T, on_dev, d, rows, 8),
                         strict=True):
        assert np.allclose(got, want, rtol=1e-9, atol=1e-15)
    with pytest.raises(ValueError, match="finite"):
        one_pass_search_torch(T, Qd * np.nan, Kd, grid, EPS_R, EPS_Z, 32, DEVICE)


def test_devices():
    """"cpu" stays the numpy path; "auto" falls back to it without a GPU; "cuda" without a GPU
    is refused; unknown names are refused. A GPU block fills BLOCK_BYTES."""
    assert resolve_device("cpu") == "cpu"
    T = make_target("permutations", 64, 1, 4.0, np.random.default_rng(0))
    res = search_d_min(T, np.random.default_rng(1), EPS_R, EPS_Z, 400, d_start=16, min_step=8,
                       resolution=0.05, device="auto")
    assert res.meta["device"] == resolve_device("auto")
    if not torch.cuda.is_available():
        assert res.meta["device"] == "cpu"
        with pytest.raises(ValueError, match="no GPU"):
            resolve_device("cuda")
    with pytest.raises(ValueError, match="device must"):
        search_d_min(T, np.random.default_rng(1), EPS_R, EPS_Z, 400, device="tpu")
    assert block_rows(1000, 64, torch.device("cpu")) == 64
    assert block_rows(2**17, 64, torch.device("cuda")) == 1024
