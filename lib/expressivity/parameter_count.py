"""The parameter count of the explicit one-layer memorizer (Kajitsuka & Sato 2024, Cor. 1).

Derived by us ([D], notes ``kajitsuka_sato.md`` Sec. 4.3; the authors' own formula was not
retrievable) from the construction's two parts:

- rank-1 attention: ``W_O, W_V, W_K, W_Q`` are one vector of length ``d`` each: ``4 d``;
- the FFN of Zhang et al. 2017, Thm 1 ([V]: "a two-layer neural network with ReLU activations and
  2n + d weights can represent any function on a sample of size n in d dimensions") on the
  ``m = n N`` contextual points with scalar labels: ``2 m + d`` weights, ``m`` hidden units.

Total ``4 d + 2 n N + d = O(d + n N)``, linear in ``N``.
"""

from __future__ import annotations


def construction_parameters(N: int, n: int, d: int) -> dict[str, int]:
    """``{"attention": 4 d, "ffn": 2 n N + d, "ffn_width": n N, "total": 5 d + 2 n N}``."""
    for name, value in (("N", N), ("n", n), ("d", d)):
        if value < 1:
            raise ValueError(f"{name} must be >= 1, got {value}")
    m = n * N
    return {"attention": 4 * d, "ffn": 2 * m + d, "ffn_width": m, "total": 4 * d + 2 * m + d}
