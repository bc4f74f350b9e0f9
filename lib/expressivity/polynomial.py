"""Polynomials with zero error from fixed, untrained attention blocks (Fang et al. 2022 claim).

Verified claim (arXiv 2202.12166, abstract): a single-head self-attention Transformer with as many
fixed, untrained encoder blocks as the degree of a target polynomial generates it with no error,
only the free (read-out) parameters being fitted. The paper's construction was NOT retrieved; the
one here is OURS (shared/papers/yun_fang.md section 3.3, tagged [O + N]):

- input ``x in R^d``; ``T = C(d + L, L)`` tokens (the dimension of polynomials of degree <= L);
  fixed random affine forms ``y_t = a_t . x + c_t`` (``a_t ~ N(0, 0.49 I)``, ``c_t ~ U(-1/2, 1/2)``);
- token state (row ``t`` of ``X: (T, 2T + 1)``): query block ``y_t e_t``, key block ``e_t``, scalar
  slot ``z_t = 1``;
- one block: single-head attention WITHOUT softmax (raw scores) and with a skip connection,

      X <- X + (X W_Q)(X W_K)^T (X W_V) W_O,

  ``W_Q`` reads the query block, ``W_K`` the key block, ``W_V`` reads ``z`` and ``W_O`` writes
  ``z``. The score of query ``t`` on key ``j`` is ``y_t [t = j]``, so ``z_t <- (1 + y_t) z_t``;
- after ``L`` identical blocks ``z_t = (1 + y_t)^L``; ``L``-th powers of ``T`` generic affine forms
  span every polynomial of degree <= L, so a linear read-out ``sum_t beta_t z_t`` (least squares)
  is exact for degree <= L and has a clear error for degree > L.

Ablations of the "suitable adaptations" (``VARIANTS``; issue 28): the same weights with a row
softmax on the (optionally scaled) scores, ``X + softmax(s (X W_Q)(X W_K)^T) (X W_V) W_O``, and the
softmax-free block followed by a LayerNorm over each token's state, as in the encoder block of
Vaswani et al. 2017 (post-LN, no affine parameters): ``LN(X + A(X))``. A row-stochastic score
matrix maps the constant value slot ``z_t = 1`` to itself, so the softmax blocks' features stay
constant at every scale ``s``; the table measures it rather than assuming it.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

from expressivity.attention import softmax


@dataclass(frozen=True)
class PolynomialBlocks:
    """Fixed block weights (row form): ``W_Q, W_K: (2T+1, T)``, ``W_V: (2T+1, 1)``,
    ``W_O: (1, 2T+1)``; the affine forms ``a: (T, d)``, ``c: (T,)``; ``L`` blocks."""

    a: np.ndarray
    c: np.ndarray
    blocks: int
    W_Q: np.ndarray
    W_K: np.ndarray
    W_V: np.ndarray
    W_O: np.ndarray

    @property
    def tokens(self) -> int:
        return self.a.shape[0]


def n_tokens(d: int, blocks: int) -> int:
    """``T = C(d + L, L)``, the dimension of polynomials of degree <= L in d variables."""
    return math.comb(d + blocks, blocks)


def make_blocks(d: int, blocks: int, rng: np.random.Generator) -> PolynomialBlocks:
    """Draw the fixed affine forms and build the block weights (never trained)."""
    if d < 1 or blocks < 1:
        raise ValueError(f"need d >= 1 and blocks >= 1, got d={d}, blocks={blocks}")
    T = n_tokens(d, blocks)
    a = rng.normal(0.0, 0.7, size=(T, d))
    c = rng.uniform(-0.5, 0.5, size=T)
    width = 2 * T + 1
    W_Q = np.zeros((width, T))
    W_Q[:T, :] = np.eye(T)
    W_K = np.zeros((width, T))
    W_K[T: 2 * T, :] = np.eye(T)
    W_V = np.zeros((width, 1))
    W_V[2 * T, 0] = 1.0
    W_O = np.zeros((1, width))
    W_O[0, 2 * T] = 1.0
    return PolynomialBlocks(a=a, c=c, blocks=blocks, W_Q=W_Q, W_K=W_K, W_V=W_V, W_O=W_O)


def affine_forms(model: PolynomialBlocks, x: np.ndarray) -> np.ndarray:
    """The token values ``y_t = a_t . x + c_t``, ``(N, T)``, for inputs ``x: (N, d)``."""
    return x @ model.a.T + model.c


def embed(model: PolynomialBlocks, x: np.ndarray) -> np.ndarray:
    """Token states ``(N, T, 2T + 1)`` for inputs ``x: (N, d)``: ``[y_t e_t, e_t, 1]``."""
    T = model.tokens
    y = affine_forms(model, x)                       # (N, T)
    X = np.zeros((x.shape[0], T, 2 * T + 1))
    idx = np.arange(T)
    X[:, idx, idx] = y
    X[:, idx, T + idx] = 1.0
    X[:, :, 2 * T] = 1.0
    return X


#: The block variants of the ablation: (row softmax on the scores, LayerNorm after the block). The
#: learned score scale of ``softmax_scaled`` is fitted by ``fit_scale``.
VARIANTS = {
    "softmax_free": (False, False),
    "softmax": (True, False),
    "softmax_scaled": (True, False),
    "layernorm": (False, True),
}
#: LayerNorm's epsilon (PyTorch's default).
LN_EPS = 1e-5


def check_variant(variant: str) -> str:
    """``variant`` if it is one of ``VARIANTS``, else a ``ValueError`` naming it."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown block variant {variant!r}; variants are {', '.join(VARIANTS)}")
    return variant


def layer_norm(X: np.ndarray) -> np.ndarray:
    """LayerNorm over each token's state (last axis), no affine parameters:
    ``(x - mean x) / sqrt(var x + eps)``."""
    centred = X - X.mean(axis=-1, keepdims=True)
    return centred / np.sqrt((centred**2).mean(axis=-1, keepdims=True) + LN_EPS)


def block(model: PolynomialBlocks, X: np.ndarray, variant: str = "softmax_free",
          scale: float = 1.0) -> np.ndarray:
    """One block (batched over inputs): ``X + S (X W_V) W_O`` with ``S = (X W_Q)(X W_K)^T`` (no
    softmax, Fang et al.'s adaptation) or ``S = softmax(scale (X W_Q)(X W_K)^T)`` row-wise; the
    ``layernorm`` variant applies ``layer_norm`` to the sum."""
    use_softmax, use_ln = VARIANTS[check_variant(variant)]
    scores = (X @ model.W_Q) @ np.swapaxes(X @ model.W_K, -1, -2)
    if use_softmax:
        scores = softmax(scores, beta=scale)
    X = X + scores @ (X @ model.W_V) @ model.W_O
    return layer_norm(X) if use_ln else X


def features(model: PolynomialBlocks, x: np.ndarray, blocks: int | None = None,
             chunk: int = 512, variant: str = "softmax_free", scale: float = 1.0) -> np.ndarray:
    """The scalar slots ``z_t`` after the blocks, ``(N, T)``; equal to ``(1 + y_t)^L`` for the
    softmax-free blocks."""
    blocks = model.blocks if blocks is None else blocks
    out = []
    for start in range(0, x.shape[0], chunk):
        X = embed(model, x[start: start + chunk])
        for _ in range(blocks):
            X = block(model, X, variant, scale)
        out.append(X[:, :, -1])
    return np.concatenate(out, axis=0)


def monomials(d: int, degree: int) -> list[tuple[int, ...]]:
    """Exponent tuples of all monomials of total degree <= ``degree`` in ``d`` variables."""
    return [e for e in itertools.product(range(degree + 1), repeat=d) if sum(e) <= degree]


def random_polynomial(d: int, degree: int, rng: np.random.Generator):
    """A random polynomial of exact degree ``degree`` in the tensor Chebyshev basis,
    ``P(x) = sum_alpha c_alpha prod_i T_{alpha_i}(x_i)`` over ``|alpha| <= degree``: ``c ~ N(0, 1)``
    below the top degree and ``|c| >= 1`` (random sign) on the top degree, so that no polynomial of
    lower degree is close to it (in one variable the best error is ``|c_k|``, since ``T_k``
    equioscillates). Returns ``(exponents, coefficients)``."""
    exps = monomials(d, degree)
    coef = rng.normal(size=len(exps))
    top = np.array([sum(e) == degree for e in exps])
    coef[top] = np.sign(coef[top]) * (1.0 + np.abs(coef[top]))
    return exps, coef


def evaluate_polynomial(poly, x: np.ndarray) -> np.ndarray:
    """``P(x)`` for ``x: (N, d)`` in the Chebyshev basis of ``random_polynomial``."""
    exps, coef = poly
    x = np.asarray(x, dtype=float)
    top = max(max(e) for e in exps)
    cheb = [np.polynomial.chebyshev.chebval(x, np.eye(top + 1)[k]) for k in range(top + 1)]
    out = np.zeros(x.shape[0])
    for e, c in zip(exps, coef, strict=True):
        term = np.ones(x.shape[0])
        for i, k in enumerate(e):
            term = term * cheb[k][:, i]
        out += c * term
    return out


def fit_readout(Z: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Least-squares read-out ``beta`` with ``Z beta ~ y`` (the only fitted parameters)."""
    beta, *_ = np.linalg.lstsq(Z, y, rcond=None)
    return beta


def relative_error(pred: np.ndarray, y: np.ndarray) -> float:
    """``max |pred - y| / max |y|``."""
    return float(np.max(np.abs(pred - y)) / np.max(np.abs(y)))


def readout_floor(Z_train: np.ndarray, Z_test: np.ndarray, y_train: np.ndarray) -> float:
    """The float64 floor of the least-squares read-out of ``y_train`` on these features: refit on
    the target ``y = Z beta`` the fitted read-out ``beta`` itself represents (computed in float64),
    and return that refit's max relative test error. The planted target lies in the features' span
    exactly, with the same coefficients (their size and cancellations), so all of the error is
    rounding of the read-out."""
    beta = fit_readout(Z_train, y_train)
    return relative_error(Z_test @ fit_readout(Z_train, Z_train @ beta), Z_test @ beta)


#: The score scales ``s`` tried by ``fit_scales`` (log-spaced, 10^-3 .. 10^3).
SCALES = 10.0 ** np.arange(-3.0, 3.5, 0.5)


def fit_scales(model: PolynomialBlocks, x: np.ndarray, targets: list[np.ndarray]) -> list[float]:
    """The learned score scale of the ``softmax_scaled`` blocks for each target ``y`` in
    ``targets`` (values at ``x``): the ``s`` in ``SCALES`` whose least-squares read-out leaves the
    smallest training residual (the first on ties)."""
    residual = np.empty((len(SCALES), len(targets)))
    for i, s in enumerate(SCALES):
        Z = features(model, x, variant="softmax_scaled", scale=s)
        residual[i] = [np.linalg.norm(Z @ fit_readout(Z, y) - y) for y in targets]
    return [float(SCALES[i]) for i in np.argmin(residual, axis=0)]


def staircase_error(d: int, blocks: int, degree: int, rng: np.random.Generator,
                    n_test: int = 2000, oversample: int = 4) -> dict:
    """Max relative error of the read-out on ``n_test`` points of ``[-1, 1]^d`` for a random
    polynomial of degree ``degree`` with ``blocks`` fixed blocks (``oversample T`` train points)."""
    model = make_blocks(d, blocks, rng)
    poly = random_polynomial(d, degree, rng)
    x_train = rng.uniform(-1, 1, size=(oversample * model.tokens, d))
    x_test = rng.uniform(-1, 1, size=(n_test, d))
    Z = features(model, x_train)
    beta = fit_readout(Z, evaluate_polynomial(poly, x_train))
    y = evaluate_polynomial(poly, x_test)
    pred = features(model, x_test) @ beta
    # The block output must equal (1 + y_t)^L (a check of the attention algebra itself).
    algebra = np.max(np.abs(Z - (1 + x_train @ model.a.T + model.c) ** blocks))
    return {
        "d": d, "blocks": blocks, "degree": degree, "tokens": model.tokens,
        "parameters_readout": model.tokens,
        "max_rel_error": relative_error(pred, y),
        "condition": float(np.linalg.cond(Z)),
        "block_algebra_error": float(algebra),
    }


def noisy_sample(poly, n: int, sigma: float, rng: np.random.Generator):
    """``n`` points ``x`` uniform on ``[-1, 1]^d`` and noisy values ``P(x) + sigma eps``."""
    d = len(poly[0][0])
    x = rng.uniform(-1, 1, size=(n, d))
    return x, evaluate_polynomial(poly, x) + sigma * rng.normal(size=n)


def readout_excess(model: PolynomialBlocks, x: np.ndarray, y: np.ndarray, x_test: np.ndarray,
                   f_test: np.ndarray) -> float:
    """Excess test risk ``mean (prediction - P(x))^2`` over noise-free test values ``f_test``
    of the least-squares read-out fitted to ``(x, y)``."""
    beta = fit_readout(features(model, x), y)
    return float(np.mean((features(model, x_test) @ beta - f_test) ** 2))


def degree_bound(blocks: int) -> int:
    """The largest degree ``3^L`` the features of ``L`` trained softmax-free blocks can have: a
    block's output is a product of at most three of its inputs (query, key and value, no softmax
    to normalise them), so each block at most triples the degree."""
    return 3**blocks
