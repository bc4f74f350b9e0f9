"""The torch runtime: refused settings, the recorded columns."""

import os
import subprocess
import sys

import pytest
import torch

from expressivity.torch_runtime import configure_torch, run_info


def test_configure_torch():
    device = configure_torch(1)
    assert device == torch.device("cpu") and torch.get_num_threads() == 1
    assert torch.are_deterministic_algorithms_enabled()
    assert run_info(device) == {"device": "cpu", "threads": 1, "precision": "float32",
                                "torch": torch.__version__,
                                "cpu_kernels": torch.backends.cpu.get_cpu_capability()}


def test_cpu_kernels_column_follows_the_instruction_set_torch_uses():
    """``ATEN_CPU_CAPABILITY=default`` (scalar kernels, available on every CPU) is recorded."""
    code = ("import torch; from expressivity.torch_runtime import run_info; "
            "print(run_info(torch.device('cpu'))['cpu_kernels'])")
    env = {**os.environ, "ATEN_CPU_CAPABILITY": "default"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "DEFAULT"


def test_bad_settings_are_refused():
    for threads in (0, 1.5, True):
        with pytest.raises(ValueError, match="threads"):
            configure_torch(threads)
    with pytest.raises(ValueError, match="device"):
        configure_torch(1, "tpu")
