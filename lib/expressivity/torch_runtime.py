"""The torch runtime of a training job: device, threads, determinism, and the columns recording them.

Same config, same bytes out: ``configure_torch`` switches on deterministic algorithms and fixes the
number of CPU threads; every random draw comes from ``expressivity.rng`` generators, and a job's
torch seed is drawn from its generator (``torch_seed``), so it derives from the root seed. Every
table of the trained-models stage carries ``run_info``: the device, threads, precision and torch
version it was computed with, and the instruction set of torch's CPU kernels (``cpu_kernels``).

The bytes depend on that instruction set: torch picks vectorised kernels by CPU (AVX-512, AVX2,
...), and they round differently, so the same config gives the same bytes on one kind of machine
but may differ on another (on this project's machine, forcing AVX2 kernels with
``ATEN_CPU_CAPABILITY=avx2`` tips a copying seed at the edge of its plateau: README, trained models).
"""

from __future__ import annotations

import os

import numpy as np
import torch

from expressivity.arguments import device as check_name
from expressivity.arguments import integer


def configure_torch(threads: int = 1, device: str = "cpu") -> torch.device:
    """Deterministic torch: ``use_deterministic_algorithms(True)``, ``threads`` CPU threads.

    ``device`` is ``"cpu"``, ``"cuda"`` or ``"auto"`` (a GPU when one is present, else the CPU).
    CUDA needs ``CUBLAS_WORKSPACE_CONFIG`` for deterministic matrix products; it is set here.
    """
    threads, device = integer("threads", threads, 1), resolve_device(device)
    torch.set_num_threads(threads)
    os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
    torch.use_deterministic_algorithms(True)
    return torch.device(device)


def resolve_device(device: str) -> str:
    """``"cuda"`` or ``"cpu"``: the device ``device`` ("cpu", "cuda" or "auto") resolves to on
    this machine ("auto": a GPU when torch sees one). "cuda" without a GPU raises."""
    if check_name(device) == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cuda" and not torch.cuda.is_available():
        raise ValueError("device 'cuda' requested but torch sees no GPU; use 'cpu' or 'auto'")
    return device


def check_device(device) -> torch.device:
    """``device`` as a ``torch.device``: None is the CPU; a ``torch.device`` or a name torch knows
    (``"cpu"``, ``"cuda"``, ``"cuda:1"``). A ``ValueError`` names ``device`` for an unknown name or
    CUDA without a GPU (``"auto"`` is resolved by ``configure_torch``)."""
    if device is None:
        return torch.device("cpu")
    if not isinstance(device, (str, torch.device)):
        raise TypeError(f"device must be a torch.device or its name, got {device!r}")
    try:
        device = torch.device(device)
    except RuntimeError:
        raise ValueError(f"device must be 'cpu' or 'cuda' (a torch device), got {device!r}") from None
    if device.type not in ("cpu", "cuda"):
        raise ValueError(f"device must be 'cpu' or 'cuda' (a torch device), got {str(device)!r}")
    if device.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"device {str(device)!r} requested but torch sees no GPU")
    return device


def device_name(device: torch.device) -> str:
    """``"cpu"`` or ``"cuda:<GPU name>"``, for the CSV."""
    if device.type == "cuda":
        return f"cuda:{torch.cuda.get_device_name(device)}"
    return "cpu"


def run_info(device: torch.device, dtype: torch.dtype = torch.float32) -> dict[str, object]:
    """Columns every table of the stage carries: device, threads, precision, torch version and
    the instruction set of torch's CPU kernels (``"AVX512"``, ``"AVX2"``, ``"DEFAULT"``, ...; set
    by the CPU or by ``ATEN_CPU_CAPABILITY``)."""
    return {"device": device_name(device), "threads": torch.get_num_threads(),
            "precision": str(dtype).removeprefix("torch."), "torch": torch.__version__,
            "cpu_kernels": torch.backends.cpu.get_cpu_capability()}


def torch_seed(rng: np.random.Generator) -> int:
    """A torch seed drawn from a job's numpy generator (so it derives from the root seed)."""
    return int(rng.integers(0, 2**62))
