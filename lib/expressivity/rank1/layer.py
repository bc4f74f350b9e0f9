"""The rank-1 attention layer of Kajitsuka & Sato 2024, Theorem 2, and its constants.

Weights (paper, tokens as columns): ``W_K = v^T``, ``W_Q = lam v^T``, ``W_V = v^T``,
``W_O = alpha u`` with unit ``v, u`` and ``alpha = eps / (4 r_max)`` ([R]). Row form
(``X: (n, d)``, ``z = X v``):

    y_k = x_k + alpha c_k u,   c_k = sum_j softmax_j(lam z_k z) z_j,

so every output moves by at most ``alpha r_max = eps/4`` from its token and has norm at most
``r = r_max + eps/4``. ``rank1_attention`` is the one implementation of this head in the project
(the memorization, hardmax-versus-softmax and universal-approximation stages all call it).

Constants (``d`` the dimension, ``|V|`` the vocabulary size, ``n`` the sequence length):

- ``lam >= (2 log n + 3) pi d (|V|+1)^4 / (8 eps r_min)`` [D]: every score gap is at least
  ``2 log n + 3`` nats, the condition of the paper's difference lemma;
- eq. (8) [R], the prefactor least certain:
  ``delta = 2 (log n)^2 eps^2 r_min / (r_max^2 (|V|+1)^4 (2 log n + 3) pi d)
  * exp(-(|V|+1)^4 (2 log n + 3) pi d r_max^2 / (4 eps r_min))``;
- the context values differ by about ``e^{-spread}`` with ``spread <= 2 lam r_max^2`` nats, so a
  direct evaluation needs about ``2 lam r_max^2 / ln 10`` decimal digits [D].
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from expressivity.arguments import integer
from expressivity.attention import Head, attention_weights
from expressivity.datasets import TokenDataset

LN10 = math.log(10.0)
#: Decimal digits float64 carries: 53 bits.
FLOAT64_DIGITS = 53 * math.log10(2.0)


def _positive(**values: float) -> None:
    """A ``ValueError`` naming the first argument that is not a finite number > 0."""
    for name, value in values.items():
        if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) \
                or not (math.isfinite(value) and value > 0):
            raise ValueError(f"{name} must be a finite number > 0, got {value!r}")


def output_scale(eps: float, r_max: float) -> float:
    """``alpha = eps / (4 r_max)``: the scale of ``W_O`` ([R]); outputs stay within ``eps/4`` of
    their tokens, so outputs of different tokens stay ``eps/2`` apart."""
    _positive(eps=eps, r_max=r_max)
    return eps / (4 * r_max)


def norm_bound(r_max: float, eps: float) -> float:
    """``r = r_max + eps/4``: the bound on every output norm ([R])."""
    _positive(r_max=r_max, eps=eps)
    return r_max + eps / 4


def lam_theory(n: int, d: int, vocab_size: int, eps: float, r_min: float) -> float:
    """``(2 log n + 3) pi d (|V|+1)^4 / (8 eps r_min)`` ([D], Sec. 3.2 step 3 of the notes)."""
    for name, value in (("n", n), ("d", d), ("vocab_size", vocab_size)):
        integer(name, value, 1)
    _positive(eps=eps, r_min=r_min)
    return (2 * math.log(n) + 3) * math.pi * d * (vocab_size + 1) ** 4 / (8 * eps * r_min)


def log10_delta_theory(n: int, d: int, vocab_size: int, eps: float, r_min: float,
                       r_max: float) -> float:
    """``log10`` of eq. (8)'s ``delta`` ([R]; computed in log space: ``delta`` is << 1e-300)."""
    for name, value in (("n", n), ("d", d), ("vocab_size", vocab_size)):
        integer(name, value, 1)
    _positive(eps=eps, r_min=r_min, r_max=r_max)
    if n < 2:
        return -math.inf  # (log n)^2 = 0
    k = (vocab_size + 1) ** 4 * (2 * math.log(n) + 3) * math.pi * d
    ln = (math.log(2 * math.log(n) ** 2 * eps**2 * r_min) - math.log(r_max**2 * k)
          - k * r_max**2 / (4 * eps * r_min))
    return ln / LN10


def digits_bound(lam: float, r_max: float, guard: int = 30) -> int:
    """Decimal digits that resolve every context difference at ``lam``: the scores spread over at
    most ``2 lam r_max^2`` nats, so differences are no smaller than about ``e^{-2 lam r_max^2}``
    relative; ``guard`` digits more for the prefactors."""
    if not (math.isfinite(lam) and lam >= 0):
        raise ValueError(f"lam must be a finite number >= 0, got {lam!r}")
    _positive(r_max=r_max)
    integer("guard", guard, 0)
    return int(math.ceil(2 * lam * r_max**2 / LN10)) + guard


def rank1_attention(T: np.ndarray, v: np.ndarray, lam: float, W_O: np.ndarray,
                    sigma: str = "softmax", causal: bool = False) -> np.ndarray:
    """One rank-1 single-head attention layer with skip connection, ``T: (..., n, d)``:
    ``y_k = t_k + W_O sum_j sigma_j(lam z_k z) z_j``, ``z = T v``, ``W_O: (d,)`` (``alpha u``).

    ``sigma`` is ``"softmax"`` or ``"hardmax"`` (``expressivity.attention``). The keys are summed
    in increasing order of ``z`` (the sum is over a set; a fixed order makes the float64 result the
    same for every permutation of the sequence).

    ``causal``: masked attention, query ``k`` attends to keys ``j <= k`` only (Kajitsuka & Sato's
    extension to masked attention [V2]; the row form ours):
    ``y_k = t_k + W_O sum_{j <= k} sigma_j(lam z_k z_{1..k}) z_j``, the layer on the prefix
    ``t_1..t_k`` read at its last token (``expressivity.rank1.contexts.prefix_contexts``). The keys
    are then summed in position order."""
    T, v, W_O = (np.asarray(a, dtype=float) for a in (T, v, W_O))
    if T.ndim < 2 or T.shape[-1] < 1:
        raise ValueError(f"T must have shape (..., n, d), got {T.shape}")
    for name, arr in (("v", v), ("W_O", W_O)):
        if arr.shape != (T.shape[-1],):
            raise ValueError(f"{name} must have shape ({T.shape[-1]},) to match T, got {arr.shape}")
    for name, arr in (("T", T), ("v", v), ("W_O", W_O)):
        if not np.isfinite(arr).all():
            raise ValueError(f"{name} must be finite")
    if not (math.isfinite(lam) and lam >= 0):
        raise ValueError(f"lam must be a finite number >= 0, got {lam!r}")
    if not isinstance(causal, bool):
        raise ValueError(f"causal must be True or False, got {causal!r}")
    z = T @ v                                               # (..., n)
    if causal:
        n = z.shape[-1]
        A = attention_weights(lam * z[..., :, None] * z[..., None, :], sigma,
                              mask=np.tril(np.ones((n, n), dtype=bool)))
        return T + np.sum(A * z[..., None, :], axis=-1)[..., None] * W_O
    order = np.argsort(z, axis=-1, kind="stable")
    zs = np.take_along_axis(z, order, axis=-1)
    A = attention_weights(lam * z[..., :, None] * zs[..., None, :], sigma)   # (..., n, n)
    ctx = np.sum(A * zs[..., None, :], axis=-1)             # (..., n)
    return T + ctx[..., None] * W_O


@dataclass(frozen=True)
class Rank1Layer:
    """The rank-1 layer: ``W_K = v^T``, ``W_Q = lam v^T``, ``W_V = v^T``, ``W_O = alpha u``."""

    v: np.ndarray
    u: np.ndarray
    lam: float
    alpha: float

    @classmethod
    def for_dataset(cls, ds: TokenDataset, v: np.ndarray, lam: float,
                    u: np.ndarray | None = None) -> Rank1Layer:
        """``alpha = eps / (4 r_max)``; ``u = v`` unless given (either works, [R])."""
        return cls(v=v, u=v if u is None else u, lam=float(lam),
                   alpha=output_scale(ds.eps, ds.r_max))

    @property
    def head(self) -> Head:
        """The same weights as a general head of ``expressivity.attention`` (row form:
        ``W_Q = lam v``, ``W_K = W_V = v: (d, 1)``, ``W_O = alpha u^T: (1, d)``), for code that
        takes any head (e.g. exact rational arithmetic)."""
        col = self.v[:, None]
        return Head(W_Q=self.lam * col, W_K=col, W_V=col, W_O=self.alpha * self.u[None, :])

    def __call__(self, X: np.ndarray, sigma: str = "softmax", causal: bool = False) -> np.ndarray:
        """``F_SA(X): (..., n, d) -> (..., n, d)`` in float64 (collapses to hardmax at large
        ``lam``); ``causal``: masked attention (``rank1_attention``)."""
        return rank1_attention(X, self.v, self.lam, self.alpha * self.u, sigma, causal)
