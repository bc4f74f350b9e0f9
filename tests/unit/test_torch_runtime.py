"""The torch runtime: refused settings, the recorded columns."""

import pytest
import torch

from expressivity.torch_runtime import configure_torch, run_info


def test_configure_torch():
    device = configure_torch(1)
    assert device == torch.device("cpu") and torch.get_num_threads() == 1
    assert torch.are_deterministic_algorithms_enabled()
    assert run_info(device) == {"device": "cpu", "threads": 1, "precision": "float32",
                                "torch": torch.__version__}


def test_bad_settings_are_refused():
    for threads in (0, 1.5, True):
        with pytest.raises(ValueError, match="threads"):
            configure_torch(threads)
    with pytest.raises(ValueError, match="device"):
        configure_torch(1, "tpu")
