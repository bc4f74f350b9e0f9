"""Reference implementations for the rank-1 layer (memorization stage), named as such.

Plain, slow computations the fast ones are tested against (``tests/unit/test_rank1.py``) and timed
against (``benchmarks/memorization.py``):

- ``same_token_min_brute_force``: the smallest same-token difference over *all* pairs of context
  values (``separation`` sorts per token and takes adjacent differences);
- ``cross_token_min_brute_force``: the smallest distance between outputs of different tokens over
  all pairs (``separation.cross_token_min`` minimises a parabola by binary search);
- ``context_values_mpmath``: the context values ``C`` directly in mpmath (``contexts.values_arb``
  uses ball arithmetic);
- ``limit_values_fractions``: the layer's two limits (uniform averaging, hardmax) as ``Fraction``
  values computed from each context's own tokens (``contexts.values_exact`` scales every projection
  to one integer grid).
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np

from expressivity.datasets import TokenDataset
from expressivity.rank1.contexts import Contexts


def same_token_min_brute_force(cx: Contexts, C) -> float:
    """``min |C_p - C_q|`` over all pairs ``p < q`` of contexts with the same query token."""
    best = math.inf
    for i in range(cx.n_contexts):
        for j in range(i + 1, cx.n_contexts):
            if cx.token[i] == cx.token[j]:
                best = min(best, abs(C[i] - C[j]))
    return best


def cross_token_min_brute_force(ds: TokenDataset, cx: Contexts, c: np.ndarray, alpha: float,
                                u: np.ndarray) -> float:
    """``min ||y_p - y_q||`` over all pairs of outputs ``y = x_t + alpha c u`` of different tokens."""
    y = ds.vocab[cx.token] + alpha * c[:, None] * u[None, :]
    D = np.linalg.norm(y[:, None] - y[None], axis=-1)
    D[cx.token[:, None] == cx.token[None, :]] = np.inf
    return float(D.min())


def context_values_mpmath(ds: TokenDataset, cx: Contexts, v: np.ndarray, lam: float,
                          digits: int) -> list:
    """``C(lam |z_t|, w)`` for every context in mpmath with ``digits`` digits, in the order of
    ``cx`` (no certification: the rounding of each operation is not tracked)."""
    with mpmath.workdps(digits):
        z = [mpmath.fsum(mpmath.mpf(float(a)) * mpmath.mpf(float(b))
                         for a, b in zip(v, row, strict=True)) for row in ds.vocab]
        out = []
        for p in range(cx.n_contexts):
            s = int(cx.sign[p])
            w = [z[m] * s for m in cx.members[p]]
            b = mpmath.mpf(lam) * abs(z[cx.token[p]])
            E = [mpmath.exp(b * (x - w[0])) for x in w]
            out.append(mpmath.fsum(x * e for x, e in zip(w, E, strict=True)) / mpmath.fsum(E))
        return out


def limit_values_fractions(ds: TokenDataset, cx: Contexts, v: np.ndarray, arm: str) -> list:
    """``C`` of every context as ``Fraction``: ``mean`` (uniform) or ``max`` (hardmax) of
    ``sign(z_t) v^T x_j`` over the members, each dot product summed in rationals."""
    out = []
    for p in range(cx.n_contexts):
        s = int(cx.sign[p])
        w = [s * sum((Fraction(float(a)) * Fraction(float(b))
                      for a, b in zip(v, ds.vocab[m], strict=True)), Fraction(0))
             for m in cx.members[p]]
        out.append(sum(w, Fraction(0)) / len(w) if arm == "uniform" else max(w))
    return out
