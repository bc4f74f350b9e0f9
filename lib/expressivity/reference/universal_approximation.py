"""Reference implementations of the universal-approximation stage, named as such.

Plain computations of the definitions that the fast implementations are tested against ("the
implementation equals the reference"):

- ``reach_steps_reference``: Assumption 1.3 with boolean matrix products, for
  ``expressivity.assumption1.reach_steps`` (packed bit rows, early stop);
- ``quantize_reference``: ``floor(m x)`` of every double in exact rationals, for
  ``expressivity.quantization.quantize`` (the ``d m`` feed-forward layers in float64);
- ``run_integer_reference``: the selective-shift layers in Python integers, one input, token and
  layer at a time, for ``expressivity.selective_shift.run_integer`` (int64 until a layer could pass
  2^62, only the inputs with a token in the window recomputed).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np


def reach_steps_reference(masks, max_layers: int) -> int | None:
    """The smallest ``s <= max_layers`` with ``S_k^s = [n]`` for every ``k``, or ``None``:
    ``S^1 = A^1`` and ``S^t = A^{l_t} S^{t-1}`` as 0/1 matrices (``l_t = (t-1) mod p``), with no
    early stop."""
    p = len(masks)
    S = np.asarray(masks[0], dtype=int)
    for t in range(1, max_layers + 1):
        if S.all():
            return t
        S = ((np.asarray(masks[t % p], dtype=int) @ S) > 0).astype(int)
    return None


def quantize_reference(X, m: int) -> np.ndarray:
    """``floor(m x)`` for every entry of ``X`` (taken exactly as the rational value of its double),
    as float64."""
    X = np.asarray(X, dtype=float)
    digits = [math.floor(Fraction(x) * m) for x in X.ravel().tolist()]
    return np.array(digits, dtype=float).reshape(X.shape)


def run_integer_reference(net, digits) -> list[list[int]]:
    """``q(L)`` of every input (lists of Python integers): codes ``u . (digits + offset)``, then
    every layer in turn (``lo <= v_k <= hi``: ``v_k += scale (max_{A_k} v - min_{A_k} v)``; max
    layer: ``v_k += scale max_{A_k} v``), ``A_k`` all tokens or the layer's mask row."""
    out = []
    offsets = [0] * net.n
    if net.positional:
        for i, k in enumerate(net.path):
            offsets[k] = i * net.m
    for L in np.asarray(digits).tolist():
        v = [sum((int(x) + offsets[k]) * net.base**i for i, x in enumerate(token))
             for k, token in enumerate(L)]
        for layer in net.layers:
            mask = None if layer.mask is None else net.masks[layer.mask]
            seen = [[v[j] for j in range(net.n) if mask is None or mask[k][j]]
                    for k in range(net.n)]
            if layer.kind == "select":
                v = [v[k] + layer.scale * (max(seen[k]) - min(seen[k]))
                     if layer.lo <= v[k] <= layer.hi else v[k] for k in range(net.n)]
            else:
                v = [v[k] + layer.scale * max(seen[k]) for k in range(net.n)]
        out.append(v)
    return out
