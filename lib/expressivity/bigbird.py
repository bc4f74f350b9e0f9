"""BigBird Proposition 1 (Zaheer et al. 2020, Sec. 3.4 and App. C, [V]): furthest vectors with one
dense attention layer.

One dense hardmax attention layer with embedding ``[u; 0]``, ``Q = -a``, ``K = a``, ``V = [0; a]``
maps every unit vector to its furthest vector ``u_{j*}``, ``j* = argmax_k ||u_k - u_j||``: for unit
vectors the furthest one has the smallest inner product. With softmax the same layer finds it once
the inverse temperature is large enough: ``sufficient_beta`` and the sharper ``sharp_beta`` are two
rigorous instance bounds ([D], ours), to be compared with the smallest ``beta`` that works on the
instance (``softmax_accuracy``). The sparse half (any sparse network
with O~(n) edges needs Omega~(n^{1 - o(1)}) layers) rests on the Orthogonal Vectors Conjecture and is
stated, not verified, here.
"""

from __future__ import annotations

import math

import numpy as np

from expressivity.arguments import integer
from expressivity.attention import Head, self_attention


def furthest_vector_attention(
    U: np.ndarray, sigma: str, beta: float = 1.0, tie_tol: float = 0.0
) -> np.ndarray:
    """BigBird Task 1 with one dense attention layer: returns the attended vectors ``(n, d)``.

    Embedding ``x_i = [u_i; 0] in R^{2d}``; ``Q([a; b]) = -a``, ``K([a; b]) = a``,
    ``V([a; b]) = [0; a]``; with the skip connection the output is ``[u_i; u_{i*}]`` under hardmax.
    Returns the second half ``sum_j A_ij u_j``.
    """
    n, d = U.shape
    X = np.hstack([U, np.zeros_like(U)])
    top = np.vstack([np.eye(d), np.zeros((d, d))])  # reads a from [a; b]
    head = Head(W_Q=-top, W_K=top, W_V=top, W_O=np.hstack([np.zeros((d, d)), np.eye(d)]))
    return self_attention(X, [head], sigma=sigma, beta=beta, tie_tol=tie_tol)[:, d:]


def squared_distances(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """``||a_i - b_k||^2: (len(A), len(B))`` from explicit differences (not from inner products);
    callers pass blocks of rows so that memory stays ``O(block n d)``."""
    return ((A[:, None, :] - B[None, :, :]) ** 2).sum(axis=-1)


def _row_blocks(n: int, width: int, budget: int = 2**24):
    """Slices of at most ``budget / width`` rows, so that a block of rows ``width`` numbers wide
    stays within ``budget`` doubles."""
    step = max(1, budget // max(1, width))
    return [slice(i, min(i + step, n)) for i in range(0, n, step)]


def _check_unit_vectors(U: np.ndarray) -> np.ndarray:
    U = np.asarray(U, dtype=float)
    if U.ndim != 2 or U.shape[0] < 2 or U.shape[1] < 1:
        raise ValueError(f"U must hold at least two vectors as rows, shape (n, d), got {U.shape}")
    if not np.all(np.isfinite(U)):
        raise ValueError("U must be finite")
    if np.max(np.abs(np.linalg.norm(U, axis=1) - 1)) > 1e-12:
        raise ValueError("the rows of U must be unit vectors")
    return U


def furthest_reference(U: np.ndarray) -> np.ndarray:
    """``j*(i) = argmax_k ||u_k - u_i||^2``, certified against rounding.

    ``||u_k - u_i||^2 - ||u_i||^2 = ||u_k||^2 - 2 <u_k, u_i>`` from a matrix product; each entry is
    within ``(3 d + 1) u`` of its exact value (``u = 2^-53``, unit vectors), so a maximum ahead of
    the runner-up by more than ``8 (d + 2) eps`` is the true one. Rows with a closer runner-up
    (near ties) are decided from explicit differences (``squared_distances``), first index on an
    exact tie."""
    U = _check_unit_vectors(U)
    n, d = U.shape
    norms = (U**2).sum(axis=1)
    tol = 8 * (d + 2) * np.finfo(float).eps
    far = np.empty(n, dtype=np.int64)
    for rows in _row_blocks(n, n):
        score = norms[None, :] - 2 * (U[rows] @ U.T)
        far[rows] = np.argmax(score, axis=1)
        top2 = np.partition(score, -2, axis=1)[:, -2:]
        for i in np.flatnonzero(top2[:, 1] - top2[:, 0] <= tol) + rows.start:
            far[i] = int(np.argmax(squared_distances(U[i:i + 1], U)[0]))
    return far


def random_unit_vectors(rng: np.random.Generator, n: int, d: int) -> np.ndarray:
    """``n`` i.i.d. uniform unit vectors in ``R^d``."""
    for name, value in (("n", n), ("d", d)):
        integer(name, value, 1)
    G = rng.standard_normal((n, d))
    return G / np.linalg.norm(G, axis=1, keepdims=True)


def nearest_index(Y: np.ndarray, U: np.ndarray) -> np.ndarray:
    """For each row of ``Y``, the index of the nearest row of ``U`` (Euclidean)."""
    dist = (Y**2).sum(1)[:, None] - 2 * Y @ U.T + (U**2).sum(1)[None, :]
    return np.argmin(dist, axis=1)


def softmax_accuracy(U: np.ndarray, truth: np.ndarray, beta: float) -> float:
    """Fraction of queries whose softmax output (``furthest_vector_attention`` at ``beta``) is
    nearest to the furthest vector ``u_{truth[i]}``."""
    soft = furthest_vector_attention(U, "softmax", beta=beta)
    return float(np.mean(nearest_index(soft, U) == truth))


def _instance_terms(U: np.ndarray, rows: slice):
    """For the queries ``rows``: ``g_ij = <u_i, u_j> - <u_i, u_{i*}>`` (>= 0, the score gaps of the
    keys behind the furthest vector), ``D_ij = ||u_j - u_{i*}||`` (``inf`` at ``j = i*``; from
    ``||a||^2 + ||b||^2 - 2 <a, b>``, absolute error about ``d eps / D``, negligible at the
    distances of random unit vectors) and ``s_i = min_{j != i*} D_ij``."""
    G = U[rows] @ U.T
    far = np.argmin(G, axis=1)
    r = np.arange(G.shape[0])
    g = G - G[r, far][:, None]
    norms = (U**2).sum(axis=1)
    D = np.sqrt(np.maximum(norms[far][:, None] + norms[None, :] - 2 * (U[far] @ U.T), 0.0))
    D[r, far] = np.inf
    return g, D, D.min(axis=1), far


def sufficient_beta(U: np.ndarray) -> float:
    """An inverse temperature above which softmax attention recovers every furthest vector.

    For query ``i`` let ``g_i`` be the gap between its smallest and second-smallest inner product
    and ``s_i`` the distance from ``u_{i*}`` to the nearest other vector. The weight on ``u_{i*}`` is
    at least ``w = 1 / (1 + (n - 1) e^{-beta g_i})``, so the output lies within ``2(1 - w)`` of
    ``u_{i*}``, which is nearer than any other vector once ``2(1 - w) < s_i / 2``, i.e.
    ``beta > log((n - 1)(1 - w0) / w0) / g_i`` with ``1 - w0 = s_i / 4``. Returns the maximum over
    ``i`` (``inf`` when some gap is zero: a tie).
    """
    return beta_bounds(U)[0]


def sharp_beta(U: np.ndarray) -> float:
    """A sharper inverse temperature above which softmax attention recovers every furthest vector.

    With ``g_ij`` and ``D_ij`` as in ``_instance_terms``, the output of query ``i`` is
    ``o_i = u_{i*} + sum_{j != i*} w_ij (u_j - u_{i*})`` with weights
    ``w_ij = e^{-beta g_ij} / (1 + sum_{k != i*} e^{-beta g_ik}) <= e^{-beta g_ij}``, so

        ||o_i - u_{i*}|| <= F_i(beta) = sum_{j != i*} e^{-beta g_ij} D_ij,

    the softmax weight off the furthest vector, each key weighted by its distance. ``u_{i*}`` is the
    nearest vector to ``o_i`` once ``F_i(beta) < s_i / 2``. ``F_i`` decreases strictly (all
    ``g_ij > 0`` when the furthest vector is unique) and ``log F_i`` is convex in ``beta``, so Newton's
    method on ``log F_i(beta) = log(s_i / 2)`` from ``beta = 0`` rises monotonically to the root
    ``beta_i``. Returns ``max_i beta_i`` (``inf`` when some query has a tie). Every ``beta`` above it
    answers every query (in exact arithmetic). ``sufficient_beta`` bounds ``F_i`` by its crudest
    form ``2 (n - 1) e^{-beta g_i}``, so this one is lower wherever the other keys' gaps are spread
    (it can exceed that one only by ``log(1 / (1 - s_i / 4)) / g_i``, the slack ``s_i / 4`` there).
    """
    return beta_bounds(U)[1]


#: Newton steps before ``sharp_beta`` gives up on a query (it converges in far fewer).
NEWTON_STEPS = 200


def beta_bounds(U: np.ndarray) -> tuple[float, float]:
    """``(sufficient_beta(U), sharp_beta(U))`` from one pass over the instance (row blocks)."""
    U = _check_unit_vectors(U)
    n = U.shape[0]
    suff = sharp = 0.0
    for rows in _row_blocks(n, n):
        g, D, sep, far = _instance_terms(U, rows)
        r = np.arange(g.shape[0])
        g[r, far] = np.inf
        gaps = g.min(axis=1)
        if np.any(gaps <= 0):  # a tie for the furthest vector
            return math.inf, math.inf
        one_minus_w0 = np.minimum(sep / 4, 0.5)
        suff = max(suff, float(np.max(np.log((n - 1) * (1 - one_minus_w0) / one_minus_w0) / gaps)))
        g[r, far] = 0.0
        log_d = np.log(D)
        log_d[r, far] = -np.inf  # the furthest vector itself is not a term of F_i
        target = np.log(sep / 2)
        beta = np.zeros(g.shape[0])
        for _ in range(NEWTON_STEPS):
            terms = log_d - beta[:, None] * g
            top = terms.max(axis=1, keepdims=True)
            p = np.exp(terms - top)
            total = p.sum(axis=1)
            phi = top[:, 0] + np.log(total) - target
            slope = -(p * g).sum(axis=1) / total
            step = -phi / slope
            beta = beta + np.maximum(step, 0.0)
            if np.all(step <= 1e-12 * np.maximum(beta, 1.0)):
                break
        else:
            raise RuntimeError(f"sharp_beta: Newton did not converge in {NEWTON_STEPS} steps")
        sharp = max(sharp, float(beta.max()))
    return suff, sharp
