"""The construction: one fixed self-attention module (W_Q, W_K) and, per target, its input X.

Likhosherstov, Choromanski & Weller 2021 (arXiv 2106.03764; AAAI 2023). Verified [V] (abstract):
fixed W_Q, W_K approximate any sparse target by changing only the input, with hidden size
d = O(log n); the proof is constructive, via random projections and the JL lemma. Verified from a
quoted caption [V2] (Figure 2): X^(1) X^(2)T is an unbiased approximation of B (Eq. 14);
X^(1) X^(2)T = X W_Q W_K^T X^T (Eqs. 15-17). The scaling of G and the weights below are OUR
RECONSTRUCTION [R] (``shared/papers/likhosherstov.md`` §3); B is ``approximation_check.logit_values``.

Row form (tokens are rows), Eqs. 14-17 analogue: G: (n, d) i.i.d. N(0, 1/d); X1 = B G, X2 = G;
X = [X1, X2]: (n, 2d); W_Q = d^(1/4) [I_d; 0], W_K = d^(1/4) [0; I_d]: (2d, d), fixed;
logits (X W_Q)(X W_K)^T / sqrt(d) = X1 X2^T = B G G^T, E[.] = B.
Column (transposed) form: X1 = G, X2 = B^T G, logits G G^T B; it needs column sparsity the way the
row form needs row sparsity (the abstract asks for both) [R].
Las Vegas: draw G, check, redraw until the check passes (``las_vegas``).
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from scipy import sparse
from scipy.linalg.blas import dsyrk

from expressivity.approximation_check import check_logits, logit_values
from expressivity.arguments import integer
from expressivity.random_projection import PANEL, gaussian_columns_T
from expressivity.sparse_target import SparseTarget

FORMS = ("row", "column")
#: Unit roundoff of float64.
U64 = 2.0**-53


def fixed_weights(d: int) -> tuple[np.ndarray, np.ndarray]:
    """``W_Q = d^(1/4) [I_d; 0]`` and ``W_K = d^(1/4) [0; I_d]``, both ``(2d, d)``: the same for
    every target (they depend on d only) [R] (Eqs. 15-17 analogue)."""
    return fixed_weight_columns(d, 0, d)


def sparse_fixed_weights(d: int) -> tuple[sparse.csr_matrix, sparse.csr_matrix]:
    """``fixed_weights(d)`` stored as sparse matrices (2d entries instead of 4 d^2): the same
    matrices, so ``X @ W`` is the product with the explicit weights at O(n d) cost."""
    integer("d", d, 1)
    idx = np.arange(d)
    scale = np.full(d, float(d) ** 0.25)
    W_Q = sparse.csr_matrix((scale, (idx, idx)), shape=(2 * d, d))
    W_K = sparse.csr_matrix((scale, (d + idx, idx)), shape=(2 * d, d))
    return W_Q, W_K


def fixed_weight_columns(d: int, c0: int, c1: int) -> tuple[np.ndarray, np.ndarray]:
    """Columns ``c0:c1`` of ``fixed_weights(d)`` (for large d, without the full 2d x d arrays)."""
    if d < 1 or not 0 <= c0 < c1 <= d:
        raise ValueError(f"need d >= 1 and 0 <= c0 < c1 <= d, got d={d}, c0={c0}, c1={c1}")
    W_Q = np.zeros((2 * d, c1 - c0))
    W_K = np.zeros((2 * d, c1 - c0))
    idx = np.arange(c1 - c0)
    W_Q[c0 + idx, idx] = d**0.25
    W_K[d + c0 + idx, idx] = d**0.25
    return W_Q, W_K


def fingerprint(*arrays) -> str:
    """A short SHA-256 fingerprint of arrays (shape, dtype and bytes); a sparse matrix by its shape
    and its (row, column, value) triples in row-major order, so the same sparse matrix gives the
    same fingerprint whatever its storage format."""
    h = hashlib.sha256()
    for a in arrays:
        if sparse.issparse(a):
            a = sparse.coo_matrix(a)
            order = np.lexsort((a.col, a.row))
            a = np.concatenate([[a.shape[0], a.shape[1]], a.row[order], a.col[order],
                                a.data[order].view(np.int64)])
        a = np.ascontiguousarray(a)
        h.update(f"{a.shape}{a.dtype}".encode())
        h.update(a.tobytes())
    return h.hexdigest()[:16]


def coupled_factors(target: SparseTarget, B: np.ndarray, rng: np.random.Generator, d_max: int,
                    form: str = "row") -> tuple[np.ndarray, np.ndarray]:
    """Unscaled factors ``QT, KT: (d_max, n)`` with logits at d equal to
    ``QT[:d].T @ KT[:d] / d`` (= X1 X2^T for the construction with the first d columns of G).

    Row form: Q = B G_raw, K = G_raw; column form: Q = G_raw, K = B^T G_raw. ``G_raw`` is drawn
    by ``gaussian_columns_T`` (prefix-coupled: a larger d_max extends the same G).
    """
    if form not in FORMS:
        raise ValueError(f"unknown form {form!r}; forms are {', '.join(FORMS)}")
    GT = gaussian_columns_T(rng, target.n, d_max)
    Bw = np.where(target.real, B, 0.0)  # padding slots carry no weight
    if form == "row":
        QT = np.empty_like(GT)
        tmp = np.empty((64, target.n))
        for r0 in range(0, d_max, 64):  # panels of rows stay in cache
            r1 = min(d_max, r0 + 64)
            out, part = QT[r0:r1], tmp[: r1 - r0]
            np.take(GT[r0:r1], target.cols[:, 0], axis=1, out=out)
            out *= Bw[:, 0]
            for s in range(1, target.k):
                np.take(GT[r0:r1], target.cols[:, s], axis=1, out=part)
                part *= Bw[:, s]
                out += part
        return QT, GT
    KT = np.zeros_like(GT)
    for s in range(target.k):
        np.add.at(KT, (slice(None), target.cols[:, s]), GT * Bw[:, s])
    return GT, KT


@dataclass
class Construction:
    """The construction at dimension d: input ``X = [X1, X2]: (n, 2d)`` with the fixed weights."""

    QT: np.ndarray
    KT: np.ndarray
    d: int
    form: str

    @property
    def X(self) -> np.ndarray:
        s = math.sqrt(self.d)
        return np.hstack([self.QT[:self.d].T / s, self.KT[:self.d].T / s])

    @cached_property
    def weights(self) -> tuple[sparse.csr_matrix, sparse.csr_matrix]:
        """The fixed ``W_Q, W_K: (2d, d)`` (``sparse_fixed_weights``)."""
        return sparse_fixed_weights(self.d)

    def logits(self, rows: np.ndarray | None = None) -> np.ndarray:
        """``X W_Q (X W_K)^T / sqrt(d)`` through the explicit weights: ``(n, n)``, or only the
        given query ``rows``: ``(len(rows), n)``."""
        W_Q, W_K = self.weights
        X = self.X
        XQ = np.asarray((X if rows is None else X[rows]) @ W_Q)
        XK = np.asarray(X @ W_K)
        return XQ @ XK.T / math.sqrt(self.d)


#: Largest n for which an ``(n, n)`` matrix is held (the Gram logits below); the search never does.
DENSE_N_MAX = 4096
#: Columns of G per symmetric rank-w update of the Gram matrix (a multiple of ``PANEL``).
GRAM_CHUNK = 8 * PANEL


def gram_logits(target: SparseTarget, B: np.ndarray, rng: np.random.Generator, d: int,
                form: str = "row") -> np.ndarray:
    """The construction's logits at d, ``(n, n)``, without holding G or the factors:
    ``C = G_raw G_raw^T`` accumulated chunk by chunk (dsyrk: n^2 d flops, half a general product),
    then ``B C / d`` (row form: X1 X2^T = B G G^T) or ``C B / d`` (column form: G G^T B).

    Draws exactly the numbers ``coupled_factors(target, B, rng, d, form)`` draws (same G, same
    generator state afterwards). Memory O(n^2 + n GRAM_CHUNK); refuses n > ``DENSE_N_MAX``.
    """
    if form not in FORMS:
        raise ValueError(f"unknown form {form!r}; forms are {', '.join(FORMS)}")
    n = target.n
    if n > DENSE_N_MAX:
        raise ValueError(f"gram_logits holds an n x n matrix; n = {n} > {DENSE_N_MAX}")
    C = np.zeros((n, n), order="F")
    for c0 in range(0, d, GRAM_CHUNK):
        GT = gaussian_columns_T(rng, n, min(GRAM_CHUNK, d - c0))
        dsyrk(1.0, GT.T, beta=1.0, c=C, overwrite_c=True)  # upper triangle of C += G G^T
    C += np.triu(C, 1).T
    Bw = np.where(target.real, B, 0.0) / d  # padding slots carry no weight
    S = np.zeros((n, n))
    for s in range(target.k):
        if form == "row":  # (B C)_i = sum_s B_{i, c_is} C_{c_is, .}
            S += Bw[:, s, None] * C[target.cols[:, s]]
        else:  # (C B)^T = B^T C (C symmetric): row j gathers the rows i with j in S_i
            np.add.at(S, target.cols[:, s], Bw[:, s, None] * C)
    return S if form == "row" else S.T


@dataclass
class LasVegasResult:
    ok: bool
    rounds: int
    min_slack: float
    construction: Construction | None


def las_vegas(target: SparseTarget, d: int, eps_ratio: float, eps_zero: float,
              rng: np.random.Generator, max_rounds: int = 10, form: str = "row",
              build: bool = True, via_weights: bool = False) -> LasVegasResult:
    """Draw G, build X, check; redraw until the check passes (at most ``max_rounds`` draws).

    At d >= (*) each draw fails with probability <= delta, so the expected number of rounds is
    <= 1 / (1 - delta) [R] ("randomized polynomial time", [V2] wording). The result says how many
    rounds were used; ``ok`` is False when every round failed. Each draw is checked on
    ``gram_logits`` (n <= ``DENSE_N_MAX``); the successful draw's input X (``construction``) is
    rebuilt from the same generator state when ``build``. With ``via_weights`` each draw is instead
    built and checked on ``Construction.logits()``, the attention logits computed through the
    explicit fixed weights (the same G; 2 n^2 d flops a round instead of the Gram's n^2 d, and no
    rebuild), and the construction is returned.
    """
    integer("max_rounds", max_rounds, 1)
    integer("d", d, 1)
    if via_weights and target.n > DENSE_N_MAX:
        raise ValueError(f"checking through the weights holds an n x n matrix; n = {target.n} > "
                         f"{DENSE_N_MAX}")
    B = logit_values(target, eps_ratio, eps_zero)
    slack = -math.inf
    for rnd in range(1, max_rounds + 1):
        state = rng.bit_generator.state
        if via_weights:
            construction = Construction(*coupled_factors(target, B, rng, d, form), d, form)
            S = construction.logits()
        else:
            S = gram_logits(target, B, rng, d, form)
        slack = float(check_logits(target, S, eps_ratio, eps_zero).slack.min())
        if slack >= 0:
            if not via_weights:
                construction = None
                if build:
                    rng.bit_generator.state = state
                    construction = Construction(*coupled_factors(target, B, rng, d, form), d,
                                                form)
            return LasVegasResult(True, rnd, slack, construction)
    return LasVegasResult(False, max_rounds, slack, None)


def identity_error(QT: np.ndarray, KT: np.ndarray, d: float, rows: int = 16,
                   panel: int = 512) -> float:
    """max |X W_Q (X W_K)^T / sqrt(d) - QT[:d].T KT[:d] / d| on a ``rows x rows`` corner, with the
    explicit fixed weights (multiplied in column panels), divided by a float64 rounding bound:
    <= 1 means the searched logits are those of the fixed module applied to X up to rounding."""
    if math.isnan(d):
        return math.nan
    d = int(d)
    m = min(rows, QT.shape[1])
    s = math.sqrt(d)
    X = np.hstack([QT[:d, :m].T / s, KT[:d, :m].T / s])
    XQ, XK = np.empty((m, d)), np.empty((m, d))
    for c0 in range(0, d, panel):
        c1 = min(d, c0 + panel)
        W_Q, W_K = fixed_weight_columns(d, c0, c1)
        XQ[:, c0:c1] = X @ W_Q
        XK[:, c0:c1] = X @ W_K
    via_weights = XQ @ XK.T / s
    direct = QT[:d, :m].T @ KT[:d, :m] / d
    bound = 16 * (2 * d) * U64 * float(np.abs(X).max()) ** 2 * d + 1e-300
    return float(np.abs(via_weights - direct).max() / bound)
