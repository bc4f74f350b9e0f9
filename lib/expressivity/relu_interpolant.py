"""Exact memorization of finitely many labelled points by a two-layer ReLU network.

Zhang, Bengio, Hardt, Recht & Vinyals 2017, Theorem 1: there is a two-layer ReLU network with
``2m + d`` weights that represents any function on a sample of ``m`` points in ``R^d``.
Construction (their proof): project the points to one dimension, ``z_i = a^T x_i`` (all distinct),
sort them, interleave biases ``b_1 < z_1 < b_2 < z_2 < ... < b_m < z_m`` and set

    c(x) = sum_j w_j ReLU(a^T x - b_j),

where ``w`` solves the lower-triangular system ``sum_{j <= i} w_j (z_i - b_j) = y_i``.

The functions here work on the projected values and are generic in the number type: floats,
``fractions.Fraction`` or ``mpmath.mpf`` all work, so the same code runs at the precision the
points need (the rank-1 contextual mapping separates points by far less than float64 resolves).
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class ReluInterpolant:
    """``c(z) = sum_j w_j ReLU(z - b_j)`` on projected inputs ``z = a^T x``."""

    b: tuple
    w: tuple

    @property
    def n_weights(self) -> int:
        """Biases plus output weights, ``2m`` (the projection ``a`` adds ``d``)."""
        return len(self.b) + len(self.w)

    def __call__(self, z):
        return sum(wj * max(z - bj, 0) for bj, wj in zip(self.b, self.w, strict=True))

    def evaluate_many(self, zs: Sequence) -> list:
        """``c(z)`` for many points: the units with ``b_j < z`` are active, so ``c(z) = z W_k - B_k``
        with prefix sums ``W_k = sum_{j<k} w_j`` and ``B_k = sum_{j<k} w_j b_j``. ``k`` is found by
        walking the increasing biases when the points are sorted (O(m + k) comparisons, the common
        case: slow number types such as ``mpmath.mpf`` compare in microseconds), else by binary
        search (O(k log m)). Same number type as the inputs; equal to ``__call__`` up to rounding."""
        if any(not self.b[i] < self.b[i + 1] for i in range(len(self.b) - 1)):
            raise ValueError("biases are not increasing; use __call__")
        W, B = [0], [0]
        for bj, wj in zip(self.b, self.w, strict=True):
            W.append(W[-1] + wj)
            B.append(B[-1] + wj * bj)
        increasing = all(zs[i] <= zs[i + 1] for i in range(len(zs) - 1))
        out, k = [], 0
        for z in zs:
            if increasing:
                while k < len(self.b) and self.b[k] < z:
                    k += 1
            else:
                k = bisect.bisect_left(self.b, z)  # b_j < z for j < k
            out.append(z * W[k] - B[k])
        return out


def fit_relu_interpolant(z: Sequence, y: Sequence) -> ReluInterpolant:
    """Solve Zhang et al.'s triangular system for distinct projected points ``z`` and labels ``y``.

    Biases: ``b_1 = z_(1) - 1`` and ``b_i = (z_(i-1) + z_(i)) / 2`` (midpoints of the sorted values).
    On the segment ``[b_i, b_{i+1}]`` the network has slope ``s_i = w_1 + ... + w_i``; walking the
    sorted points gives ``s_i = (y_i - y_{i-1} - s_{i-1}(b_i - z_{i-1})) / (z_i - b_i)``, so the
    solve is O(m) and exact in exact arithmetic.
    """
    if len(z) != len(y):
        raise ValueError(f"z holds {len(z)} points but y holds {len(y)} labels")
    if not z:
        raise ValueError("z holds no points to memorize")
    for name, values in (("z", z), ("y", y)):
        bad = [i for i, x in enumerate(values) if x != x or abs(x) == float("inf")]
        if bad:
            raise ValueError(f"{name} must be finite, got {values[bad[0]]!r} at index {bad[0]}")
    order = sorted(range(len(z)), key=lambda i: z[i])
    zs = [z[i] for i in order]
    ys = [y[i] for i in order]
    for i in range(1, len(zs)):
        if not zs[i] > zs[i - 1]:
            raise ValueError(
                f"projected points {order[i - 1]} and {order[i]} coincide ({zs[i]}); "
                "the projection must separate every point"
            )
    b = [zs[0] - 1] + [(zs[i - 1] + zs[i]) / 2 for i in range(1, len(zs))]
    slopes = [ys[0] / (zs[0] - b[0])]
    for i in range(1, len(zs)):
        rise = ys[i] - ys[i - 1] - slopes[-1] * (b[i] - zs[i - 1])
        slopes.append(rise / (zs[i] - b[i]))
    w = [slopes[0]] + [slopes[i] - slopes[i - 1] for i in range(1, len(slopes))]
    return ReluInterpolant(b=tuple(b), w=tuple(w))
