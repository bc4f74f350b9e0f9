"""BigBird Proposition 1 (Zaheer et al. 2020, Sec. 3.4 and App. C, [V]): furthest vectors with one
dense attention layer.

One dense hardmax attention layer with embedding ``[u; 0]``, ``Q = -a``, ``K = a``, ``V = [0; a]``
maps every unit vector to its furthest vector ``u_{j*}``, ``j* = argmax_k ||u_k - u_j||``: for unit
vectors the furthest one has the smallest inner product. With softmax the same layer finds it once
the inverse temperature is large enough (``sufficient_beta``). The sparse half (any sparse network
with O~(n) edges needs Omega~(n^{1 - o(1)}) layers) rests on the Orthogonal Vectors Conjecture and is
stated, not verified, here.
"""

from __future__ import annotations

import numpy as np

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


def _row_blocks(n: int, d: int, budget: int = 2**24):
    step = max(1, budget // max(1, n * d))
    return [slice(i, min(i + step, n)) for i in range(0, n, step)]


def furthest_reference(U: np.ndarray) -> np.ndarray:
    """``j*(i) = argmax_k ||u_k - u_i||^2`` from explicit squared distances (no inner products)."""
    n, d = U.shape
    return np.concatenate([np.argmax(squared_distances(U[rows], U), axis=1)
                           for rows in _row_blocks(n, d)])


def random_unit_vectors(rng: np.random.Generator, n: int, d: int) -> np.ndarray:
    """``n`` i.i.d. uniform unit vectors in ``R^d``."""
    G = rng.standard_normal((n, d))
    return G / np.linalg.norm(G, axis=1, keepdims=True)


def nearest_index(Y: np.ndarray, U: np.ndarray) -> np.ndarray:
    """For each row of ``Y``, the index of the nearest row of ``U`` (Euclidean)."""
    dist = (Y**2).sum(1)[:, None] - 2 * Y @ U.T + (U**2).sum(1)[None, :]
    return np.argmin(dist, axis=1)


def sufficient_beta(U: np.ndarray) -> float:
    """An inverse temperature above which softmax attention recovers every furthest vector.

    For query ``i`` let ``g_i`` be the gap between its smallest and second-smallest inner product
    and ``s_i`` the distance from ``u_{i*}`` to the nearest other vector. The weight on ``u_{i*}`` is
    at least ``w = 1 / (1 + (n - 1) e^{-beta g_i})``, so the output lies within ``2(1 - w)`` of
    ``u_{i*}``, which is nearer than any other vector once ``2(1 - w) < s_i / 2``, i.e.
    ``beta > log((n - 1)(1 - w0) / w0) / g_i`` with ``1 - w0 = s_i / 4``. Returns the maximum over
    ``i`` (``inf`` when some gap is zero: a tie).
    """
    n = U.shape[0]
    G = U @ U.T
    part = np.sort(G, axis=1)[:, :2]
    gaps = part[:, 1] - part[:, 0]
    far = np.argmin(G, axis=1)
    sep = np.empty(n)
    for rows in _row_blocks(n, U.shape[1]):
        D = np.sqrt(squared_distances(U[far[rows]], U))  # from u_{i*} to every vector
        D[np.arange(D.shape[0]), far[rows]] = np.inf
        sep[rows] = D.min(axis=1)
    one_minus_w0 = np.minimum(sep / 4, 0.5)
    with np.errstate(divide="ignore"):
        need = np.log((n - 1) * (1 - one_minus_w0) / one_minus_w0) / gaps
    return float(np.max(need))
