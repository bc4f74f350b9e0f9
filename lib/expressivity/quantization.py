"""Quantization of inputs onto the grid ``G_delta`` by feed-forward layers, and grid enumeration.

Yun et al. (2020a), Sec. 4 (Lemma 5 in our notes, shared/papers/yun_fang.md section 1.4, recalled
[M]): for ``delta = 1/m`` with an integer ``m >= 2`` the grid is

    G_delta = {0, delta, ..., 1 - delta}^{n x d}       (row form: a sequence ``L: (n, d)``)

and the cube of a grid point is ``S_L = prod [L_{k,i}, L_{k,i} + delta)``. One feed-forward layer
of width 1 with an activation from ``Phi`` (piecewise linear, at most three pieces, one constant)

    Z <- Z + e_i phi_k(Z e_i),   phi_k(t) = -(t - k)  on [k, k + 1),  0 elsewhere

moves coordinate ``i`` from ``[k, k + 1)`` to ``k`` (here in units of ``delta``: the layers act on
``Z = X / delta``, which a first linear map provides; ``t - k`` and ``t - (t - k)`` are then exact in
float64 by Sterbenz' lemma, so the layers return exact integers). ``d m`` such layers quantize every
coordinate. Entries outside ``[0, 1)`` are not needed here: the Monte-Carlo domain is ``[0, 1)``.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from expressivity.arguments import integer


def inverse_delta(delta) -> int:
    """``m`` for ``delta = 1/m`` with an integer ``m >= 2``; anything else raises ``ValueError``.

    ``delta`` may be a ``Fraction``, a string ``"1/m"``, an ``int`` ``m`` is *not* accepted (it would
    be ambiguous), a float is accepted when ``1/delta`` is within 1e-9 of an integer.
    """
    if isinstance(delta, bool) or isinstance(delta, (int, np.integer)):
        raise ValueError(f"delta must be 1/m with an integer m >= 2, got the integer {delta!r}")
    try:
        value = Fraction(delta) if isinstance(delta, (str, Fraction)) else None
    except (ValueError, ZeroDivisionError) as err:
        raise ValueError(f"delta must be 1/m with an integer m >= 2, got {delta!r}") from err
    if value is None:
        try:
            inv = 1.0 / float(delta)
        except (TypeError, ValueError, ZeroDivisionError) as err:
            raise ValueError(f"delta must be 1/m with an integer m >= 2, got {delta!r}") from err
        m = round(inv) if math.isfinite(inv) else 0
        if not (math.isfinite(inv) and abs(inv - m) <= 1e-9 * max(1.0, abs(inv)) and m >= 2):
            raise ValueError(f"delta must be 1/m with an integer m >= 2, got {delta!r}")
        return int(m)
    if value <= 0 or value.numerator != 1 or value.denominator < 2:
        raise ValueError(f"delta must be 1/m with an integer m >= 2, got {delta!r}")
    return value.denominator


def check_inverse_delta(m) -> int:
    """Validate ``m = 1/delta`` (an integer >= 2)."""
    return integer("1/delta (m, with delta = 1/m)", m, 2)


def grid_size(base: int, n: int, d: int) -> int:
    """Number of sequences ``L: (n, d)`` with digits in ``{0, ..., base - 1}``: ``base^(n d)``."""
    return int(base) ** (int(n) * int(d))


def check_budget(size: int, budget: int, what: str = "grid") -> None:
    """Refuse a grid of ``size`` inputs over ``budget`` (before any work), naming both; a budget
    that is not an integer >= 1 (NaN would let every grid through) is refused naming it."""
    integer("budget", budget, 1)
    if size > budget:
        raise ValueError(f"{what} has {size} inputs, over the budget of {budget}; "
                         "lower 1/delta, d or n, or raise the budget")


def grid_digits(m: int, n: int, d: int, budget: int) -> np.ndarray:
    """Every grid input as integer digits, ``(m^(n d), n, d)`` int64, in lexicographic order.

    The grid point is ``L = delta * digits``. Raises before allocating when ``m^(n d) > budget``.
    """
    m = check_inverse_delta(m)
    size = grid_size(m, n, d)
    check_budget(size, budget, f"grid 1/delta={m}, n={n}, d={d} (m^(n d))")
    flat = np.stack(np.unravel_index(np.arange(size), (m,) * (n * d)), axis=-1)
    return flat.reshape(size, n, d).astype(np.int64)


def quantizer_layers(m: int, d: int) -> list[tuple[int, int]]:
    """The ``d m`` feed-forward layers as ``(coordinate i, step k)`` pairs."""
    return [(i, k) for i in range(d) for k in range(m)]


def phi(t: np.ndarray, k: int) -> np.ndarray:
    """The activation ``phi_k(t) = -(t - k)`` on ``[k, k + 1)``, ``0`` elsewhere (in ``Phi``)."""
    return np.where((t >= k) & (t < k + 1), -(t - k), 0.0)


def quantize(X: np.ndarray, m: int) -> np.ndarray:
    """Apply the ``d m`` quantizing feed-forward layers to ``X: (..., n, d)`` in ``[0, 1)``.

    Returns the digits ``floor(m X)`` of the doubles ``X``, exactly, as float64 integers (units of
    ``delta``): the first linear map scales by ``m``; then layer ``(i, k)`` does ``Z[..., i] +=
    phi_k(Z[..., i])``. The float64 product ``m x`` can round up onto an integer ``k`` that the
    exact ``m x`` lies below (``0.6 * 5`` is ``3.0``, but the double ``0.6`` is below ``3/5``): where
    ``m x`` rounded to an integer, the digit is recomputed as ``floor(m x)`` in exact rationals.
    """
    m = check_inverse_delta(m)
    X = np.asarray(X, dtype=float)
    Z = X * m
    if np.any((Z < 0) | (Z >= m)):
        raise ValueError("quantize expects inputs in [0, 1)")
    on_integer = Z == np.floor(Z)
    for i, k in quantizer_layers(m, Z.shape[-1]):
        Z[..., i] = Z[..., i] + phi(Z[..., i], k)
    Z[on_integer] = [math.floor(Fraction(x) * m) for x in X[on_integer].tolist()]
    return Z


def quantizer_parameters(m: int, d: int) -> int:
    """Parameters of the ``d m`` width-1 FF layers: each has ``W_1: (d, 1)``, ``b_1``,
    ``W_2: (1, d)``, ``b_2: (d,)``, i.e. ``3 d + 1``."""
    return d * m * (3 * d + 1)
