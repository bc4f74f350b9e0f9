"""Ball arithmetic (python-flint's ``arb``) on float64 data: exact inputs, exact dot products.

A ball ``[m +- r]`` encloses the true value of every operation, so a ball that excludes 0 certifies
a sign however small the number is (arb exponents are unbounded: ``1e-40000`` is an ordinary
value). The working precision is set with ``flint.ctx.workdps(digits)``, a context manager that
restores the previous precision on exit. The helpers here convert doubles exactly (every double is
a dyadic rational) so that the balls enclose the values of the computation on exactly the float64
weights and tokens a layer holds.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
from flint import arb


def exact(x: float) -> arb:
    """The double ``x`` as an exact ball (radius 0)."""
    return arb(float(x))


def exact_dot(a: Iterable[float], b: Iterable[float]) -> arb:
    """``sum_i a_i b_i`` of two float64 vectors at the working precision, from the left.

    At a few dozen digits or more the products and sums of doubles of moderate exponent are exact,
    so the ball is the exact value."""
    return sum((exact(x) * exact(y) for x, y in zip(a, b, strict=True)), arb(0))


def exact_projections(vocab: np.ndarray, v: np.ndarray) -> list[arb]:
    """``z_t = v^T x_t`` for every token ``x_t`` (rows of ``vocab: (V, d)``) as balls."""
    return [exact_dot(v, row) for row in vocab]


def arb_log10(x: arb) -> float:
    """``log10`` of a positive ``arb`` as a float (no underflow: arb exponents are unbounded)."""
    return float((x.log() / arb(10).log()).mid())
