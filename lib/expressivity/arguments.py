"""Checks of the library's arguments at its entry points, one per concern.

Each returns the checked value (converted: an ``int``, a ``float``, a float array) or raises a
``ValueError`` whose message names the argument and shows what it got, so that a bad call fails
before any work, never with NaN or garbage in the result, nor with a numpy or torch error that
names nothing.
"""

from __future__ import annotations

import math

import numpy as np

#: Where a torch job or the sparse search runs: the CPU, a GPU, or a GPU when torch sees one.
DEVICES = ("cpu", "cuda", "auto")


def device(value) -> str:
    """``value``, one of ``DEVICES`` (resolved to a machine's device by
    ``torch_runtime.resolve_device``; checked here, without torch, for the numpy paths)."""
    if not isinstance(value, str) or value not in DEVICES:
        raise ValueError(f"device must be one of {', '.join(map(repr, DEVICES))}, got {value!r}")
    return value


def integer(name: str, value, low: int, high: int | None = None) -> int:
    """``value`` as an ``int`` ``>= low`` (and ``<= high`` when given); a bool, a float such as
    ``2.0`` or NaN is refused."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low \
            or (high is not None and value > high):
        allowed = f">= {low}" if high is None else f"in [{low}, {high}]"
        raise ValueError(f"{name} must be an integer {allowed}, got {value!r}")
    return int(value)


def index(name: str, value, size: int) -> int:
    """``value`` as an index into ``size`` items: an integer in ``[0, size)``."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) \
            or not 0 <= value < size:
        raise ValueError(f"{name} must be an index in 0..{size - 1}, got {value!r}")
    return int(value)


def finite_number(name: str, value) -> float:
    """``value`` as a float; a ``ValueError`` naming ``name`` unless it is a finite real number."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a finite number, got {value!r}") from None
    if not math.isfinite(number):
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    return number


def finite_array(name: str, value, min_ndim: int = 1) -> np.ndarray:
    """``value`` as a float array with at least ``min_ndim`` axes and no NaN or infinity (the
    message names ``name`` and the first bad entry)."""
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be an array of numbers, got {value!r}") from None
    if arr.ndim < min_ndim or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty array with at least {min_ndim} axis(es), "
                         f"got shape {arr.shape}")
    if not np.isfinite(arr).all():
        where = tuple(int(i) for i in np.argwhere(~np.isfinite(arr))[0])
        raise ValueError(f"{name} must be finite, got {arr[where]} at index {where}")
    return arr


def finite_vectors(min_size: int = 1, **vectors) -> tuple[np.ndarray, ...]:
    """The ``vectors`` (passed by name) as finite 1-d float arrays of one length with at least
    ``min_size`` entries each; the message names the first that is not."""
    out = []
    for name, value in vectors.items():
        arr = finite_array(name, value)
        if arr.ndim != 1 or arr.size < min_size:
            raise ValueError(f"{name} must be 1-d with at least {min_size} entries, got shape {arr.shape}")
        if out and arr.size != out[0].size:
            raise ValueError(f"{name} must have one entry per entry of {next(iter(vectors))} "
                             f"({out[0].size}), got {arr.size}")
        out.append(arr)
    return tuple(out)
