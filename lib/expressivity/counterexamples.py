"""Hardmax versus softmax: Kajitsuka & Sato 2024, Theorem 1, and BigBird Proposition 1.

Theorem 1 (statement from the paper, [V] in ``shared/papers/kajitsuka_sato.md`` Sec. 2): a one-layer
Transformer with *hardmax* attention cannot memorize every finite dataset. The dataset below is our
own counterexample ([D], Sec. 2.3 of the notes; the paper's could not be retrieved):

    X^(1) = (1, 2,   4,   5) e,     X^(2) = (1, 2.5, 3.5, 5) e,

collinear tokens ``t e`` with a unit vector ``e``; the label of token 5 differs between them.

Why no one-layer hardmax Transformer separates them. In every head the score of key ``j`` for
query ``k`` is ``<W_K^T t_j e, W_Q^T x_k> = t_j c_k`` with ``c_k = e^T W_K W_Q^T x_k``, linear in
``t_j``. Hardmax therefore attends to the key with the largest ``t`` (``c_k > 0``), the smallest
(``c_k < 0``) or, when ``c_k = 0``, all keys tied, whose average is the mean token. The two
sequences share their maximum (5), minimum (1) and mean (3), so every head gives the same output at
the shared tokens 1 and 5 whatever its weights; the skip connection adds the same token; the FFN acts
token by token. Hence the outputs at token 5 are identical and cannot carry different labels.

With softmax the weights ``softmax(t_j c_k)`` see every token, so the interior tokens move the
output: ``explicit_memorizer`` builds one single-head rank-1 softmax layer plus a Zhang et al. FFN
that reproduces all eight labels.

BigBird Proposition 1 ([V], Zaheer et al. 2020, Sec. 3.4 and App. C): one dense hardmax attention
layer with embedding ``[u; 0]``, ``Q = -a``, ``K = a``, ``V = [0; a]`` maps every unit vector to its
furthest vector ``u_{j*}``, ``j* = argmax_k ||u_k - u_j||``. The sparse half (any sparse network with
O~(n) edges needs Omega~(n^{1 - o(1)}) layers) rests on the Orthogonal Vectors Conjecture and is
stated, not verified, here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from expressivity.attention import Head, self_attention
from expressivity.memorization import ReluInterpolant, fit_relu_interpolant
from expressivity.rng import generator

#: Token positions (scalars along ``e``) of the two sequences and their labels (token 5 differs).
THEOREM1_TOKENS = (np.array([1.0, 2.0, 4.0, 5.0]), np.array([1.0, 2.5, 3.5, 5.0]))
THEOREM1_LABELS = (np.array([0, 0, 0, 0]), np.array([0, 0, 0, 1]))
#: Positions of the tokens the two sequences share (t = 1 and t = 5).
SHARED_POSITIONS = (0, 3)
#: Float64 rounding bound for the hardmax output gap at the shared tokens (mathematically 0):
#: outputs are at most about 1e3 in size, so rounding leaves less than 1e3 * 2^-52 * (a few) << 1e-12.
HARDMAX_GAP_BOUND = 1e-12


def theorem1_sequences(e: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The two sequences ``t e`` as arrays ``(4, d)`` for a unit vector ``e: (d,)``."""
    e = np.asarray(e, dtype=float)
    return tuple(np.outer(t, e) for t in THEOREM1_TOKENS)


def random_heads(rng: np.random.Generator, d: int, n_heads: int, head_size: int, scale: float):
    """``n_heads`` heads with i.i.d. ``N(0, scale^2)`` weights (``scale = 0`` gives all ties)."""
    return [
        Head(*(scale * rng.standard_normal(shape) for shape in
               [(d, head_size), (d, head_size), (d, head_size), (head_size, d)]))
        for _ in range(n_heads)
    ]


def shared_token_gap(heads, e, sigma: str, tie_tol: float = 0.0) -> float:
    """``max_k ||F(X^(1))_k - F(X^(2))_k||_inf`` over the shared tokens 1 and 5."""
    X1, X2 = theorem1_sequences(e)
    Y1 = self_attention(X1, heads, sigma=sigma, tie_tol=tie_tol)
    Y2 = self_attention(X2, heads, sigma=sigma, tie_tol=tie_tol)
    rows = list(SHARED_POSITIONS)
    return float(np.max(np.abs(Y1[rows] - Y2[rows])))


def _exact_hardmax_layer(X: list[list[Fraction]], heads) -> list[list[Fraction]]:
    """One hardmax layer in exact rational arithmetic (every float weight is an exact rational)."""
    def mat(M):
        return [[Fraction(float(x)) for x in row] for row in np.atleast_2d(M)]

    def mul(A, B):
        return [[sum((a * b for a, b in zip(row, col, strict=True)), Fraction(0))
                 for col in zip(*B, strict=True)] for row in A]

    out = [row[:] for row in X]
    for head in heads:
        Q, K, V = mul(X, mat(head.W_Q)), mul(X, mat(head.W_K)), mul(X, mat(head.W_V))
        VO = mul(V, mat(head.W_O))
        for k, q in enumerate(Q):
            scores = [sum((a * b for a, b in zip(q, key, strict=True)), Fraction(0)) for key in K]
            top = max(scores)
            winners = [j for j, s in enumerate(scores) if s == top]
            for c in range(len(out[k])):
                out[k][c] += sum((VO[j][c] for j in winners), Fraction(0)) / len(winners)
    return out


def shared_tokens_equal_exactly(heads, e) -> bool:
    """Whether the hardmax outputs at the shared tokens agree exactly (rational arithmetic).

    This is the theorem's statement without rounding: float64 can only show a difference of order
    1e-16 relative, exact arithmetic shows it is zero.
    """
    X1, X2 = ([[Fraction(float(x)) for x in row] for row in X] for X in theorem1_sequences(e))
    Y1, Y2 = _exact_hardmax_layer(X1, heads), _exact_hardmax_layer(X2, heads)
    return all(Y1[k] == Y2[k] for k in SHARED_POSITIONS)


@dataclass(frozen=True)
class Memorizer:
    """A one-layer, single-head, rank-1 softmax Transformer for the Theorem 1 dataset.

    Attention: ``W_K = v^T``, ``W_Q = lam v^T``, ``W_V = v^T``, ``W_O = alpha u`` with ``v = u = e``
    (row form: ``W_Q = lam e[:, None]`` and so on). The FFN reads ``e^T y`` and is Zhang et al.'s
    two-layer ReLU interpolant of the labels.
    """

    e: np.ndarray
    lam: float
    alpha: float
    ffn: ReluInterpolant

    @property
    def head(self) -> Head:
        col = self.e[:, None]
        return Head(W_Q=self.lam * col, W_K=col, W_V=col, W_O=self.alpha * col.T)

    def features(self, X: np.ndarray) -> np.ndarray:
        """``e^T F_SA(X)_k`` for every token ``k``: the scalar the FFN reads."""
        return self_attention(X, [self.head]) @ self.e

    def __call__(self, X: np.ndarray) -> np.ndarray:
        return np.array([self.ffn(z) for z in self.features(X)])

    @property
    def n_parameters(self) -> int:
        """Four rank-1 attention vectors (4d) plus the FFN (2m + d, Zhang et al.)."""
        d = self.e.size
        return 4 * d + self.ffn.n_weights + d


def explicit_memorizer(e: np.ndarray, lam: float = 1.0) -> Memorizer:
    """Build the memorizer: ``alpha = eps / (4 r_max)`` with the dataset's token separation
    ``eps = 0.5`` and ``r_max = 5`` keeps every output within ``eps/4`` of its token (Kajitsuka &
    Sato's ``W_O`` scaling, [R]); the FFN interpolates the eight (feature, label) pairs."""
    e = np.asarray(e, dtype=float)
    tokens = np.concatenate(THEOREM1_TOKENS)
    eps = float(np.min(np.diff(np.unique(tokens))))
    alpha = eps / (4 * float(np.max(np.abs(tokens))))
    probe = Memorizer(e=e, lam=lam, alpha=alpha, ffn=ReluInterpolant(b=(), w=()))
    feats = np.concatenate([probe.features(X) for X in theorem1_sequences(e)])
    labels = np.concatenate(THEOREM1_LABELS)
    ffn = fit_relu_interpolant([float(z) for z in feats], [float(y) for y in labels])
    return Memorizer(e=e, lam=lam, alpha=alpha, ffn=ffn)


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


def theorem1_search(
    root_seed: int,
    n_draws: int,
    d: int,
    heads_max: int,
    head_size_max: int,
    weight_scales: list[float],
    tie_tol: float,
    exact_draws: int,
) -> list[dict[str, object]]:
    """Random one-layer multi-head attentions on the Theorem 1 pair: per draw the output gap at the
    shared tokens under hardmax and softmax, and (for the first ``exact_draws``) whether the hardmax
    outputs are equal in exact rational arithmetic."""
    rows = []
    for draw in range(n_draws):
        rng = generator(root_seed, "hardmax_vs_softmax.theorem1", draw=draw)
        e = rng.standard_normal(d)
        e /= np.linalg.norm(e)
        h = int(rng.integers(1, heads_max + 1))
        s = int(rng.integers(1, head_size_max + 1))
        scale = float(rng.choice(weight_scales))
        heads = random_heads(rng, d, h, s, scale)
        rows.append({
            "draw": draw, "heads": h, "head_size": s, "weight_scale": scale,
            "gap_hardmax": shared_token_gap(heads, e, "hardmax", tie_tol=tie_tol),
            "gap_softmax": shared_token_gap(heads, e, "softmax"),
            "hardmax_equal_exact": shared_tokens_equal_exactly(heads, e) if draw < exact_draws
            else None,
        })
    return rows


def memorizer_table(d: int, lam: float) -> list[dict[str, object]]:
    """Every token of the Theorem 1 dataset through ``explicit_memorizer``: label and output."""
    e = np.eye(d)[0]
    model = explicit_memorizer(e, lam=lam)
    rows = []
    for seq, (X, labels) in enumerate(zip(theorem1_sequences(e), THEOREM1_LABELS, strict=True)):
        for k, (t, y, f, o) in enumerate(zip(THEOREM1_TOKENS[seq], labels, model.features(X),
                                             model(X), strict=True)):
            rows.append({"sequence": seq + 1, "position": k, "token": t, "label": int(y),
                         "feature": float(f), "output": float(o), "predicted": int(np.rint(o)),
                         "n_parameters": model.n_parameters})
    return rows


def bigbird_table(
    root_seed: int, n: int, trials: int, beta_min: float, beta_max: float, n_betas: int
) -> list[dict[str, object]]:
    """BigBird Task 1 at one ``n`` with ``d = ceil(log2 n)^2``: per trial the hardmax exactness and
    the softmax accuracy on a log grid of ``beta`` plus the instance's ``sufficient_beta``."""
    d = math.ceil(math.log2(n)) ** 2
    rows = []
    for trial in range(trials):
        U = random_unit_vectors(generator(root_seed, "hardmax_vs_softmax.bigbird", n=n, trial=trial),
                                n, d)
        truth = furthest_reference(U)
        beta_suff = sufficient_beta(U)
        base = {"n": n, "d": d, "trial": trial, "beta_sufficient": beta_suff}
        hard = furthest_vector_attention(U, "hardmax")
        rows.append({**base, "sigma": "hardmax", "beta": math.inf,
                     "accuracy": float(np.mean(np.all(hard == U[truth], axis=1))),
                     "at_or_above_sufficient": True})
        betas = np.append(np.logspace(math.log10(beta_min), math.log10(beta_max), n_betas),
                          beta_suff)
        for beta in np.sort(betas[np.isfinite(betas)]):
            soft = furthest_vector_attention(U, "softmax", beta=beta)
            rows.append({**base, "sigma": "softmax", "beta": float(beta),
                         "accuracy": float(np.mean(nearest_index(soft, U) == truth)),
                         "at_or_above_sufficient": bool(beta >= beta_suff)})
    return rows
