"""Contextual mappings by selective shifts (Yun et al. 2020a, Lemma 6; Yun et al. 2020b, sparse).

Provenance: the construction is our reconstruction (shared/papers/yun_fang.md sections 1.4 and
2.4, tagged [M] recalled + [N] checked + [O] ours for the sparse version); the paper's constants
may differ. Everything is in units of ``delta``: a grid token ``L_k = delta * k_k`` (digits
``k_k in {0..m-1}^d``) is fed as its digits, which a linear map provides. The construction is
homogeneous (scaling ``Z`` by ``c > 0`` scales the scores by ``c^2``, the thresholds and values by
``c``), so this is the same network; in these units every value is an integer and float64 is exact
while the values stay below ``2^52``.

Projection (row form): ``u = (1, B, ..., B^(d-1))`` with ``B = 1/delta = m``, so ``code_k = u . k_k``
is the base-``m`` number with digits ``k_k``: an injective code of grid tokens in ``[0, D)``,
``D = m^d = delta^-d``.

Selective shift (two heads, head size 1, hardmax; a constant feature 1 carries the query bias)::

    psi(Z; b)_k   = e_1 * (u.Z) sigma_H[(u.Z_j)(u.Z_k - b)]_j         (max_j u.Z_j if u.Z_k > b,
                                                                       min_j u.Z_j if u.Z_k < b)
    Psi(Z; b, b') = psi(Z; b) - psi(Z; b')
                  = e_1 * 1{b < u.Z_k < b'} (max_j u.Z_j - min_j u.Z_j)

Dense network (Lemma 6): for every code ``c = 0..D-1`` in increasing order one layer
``Z <- Z + D Psi(Z; c - 1/2, c + 1/2)``, then one global shift ``Z <- Z + D^(n+1) Psi(Z; -1/2,
B_1 + 1/2)`` whose window holds every value reached (``B_1 = (D+1)^n (D-1)`` bounds them): ``D + 1``
attention layers. The contextual mapping is ``q(L) = u . g_c(L)`` (one number per token).

Sparse / positional network (Yun et al. 2020b; notes 2.4, ours [O+N]): tokens get the positional
offset ``E_{gamma(i)} = i * 1`` along a Hamiltonian path ``gamma`` (in units of delta: ``i m`` per
digit), codes use base ``B = n m`` (range ``R = (n m)^d``), every owned code gets one selective
shift with factor ``K = R`` under a pattern that contains the token's path predecessor (identity
layers are inserted to reach that pattern in the cycle), then ``s`` "max" layers
``Z <- Z + C_t e_1 max_{j in A_k} u.Z_j`` with ``C_t`` = current value bound + 1 spread the ID.
Pitfall (notes 2.4): the shift factor must exceed the whole code range; ``K = D`` fails for FIXED
and window patterns.

Two engines run the same list of layers: ``run_integer`` (exact integers: int64 while the values
stay below 2^62, Python integers from the first layer that could pass it) and ``run_attention``
(real attention matrices through ``expressivity.attention.attention_weights``: hardmax, or softmax
at inverse temperature ``beta`` on the scores in units of ``delta^2``; ``beta_real = beta /
delta^2``).

Softmax instead of hardmax (Yun et al. 2020a, step 3: ``sigma_H`` is the limit of
``softmax(beta .)``): ``softmax_beta`` derives an inverse temperature at which every softmax
output of the dense network stays within a given margin of its hardmax code (the bound is in its
docstring). What the outputs are measured against (Lemma 6's properties, the codes' separation,
the softmax deviation) is in ``contextual_mapping``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from expressivity.arguments import finite_number as _finite_number
from expressivity.arguments import integer as _check_count
from expressivity.assumption1 import hamiltonian_path, reach_steps
from expressivity.attention import Head, attention_weights
from expressivity.quantization import check_inverse_delta

#: float64 integers are exact (and ordered exactly by the hardmax scores) below this bound.
FLOAT64_EXACT = 2**52
INT64_SAFE = 2**62


@dataclass(frozen=True)
class ShiftLayer:
    """One attention layer: ``kind`` ``"select"`` (two heads, window ``lo <= code <= hi`` in
    integers, i.e. thresholds ``b = lo - 1/2``, ``b' = hi + 1/2``) or ``"max"`` (one head);
    ``scale`` is the output factor; ``mask`` indexes the pattern cycle (``None``: dense)."""

    kind: str
    lo: int
    hi: int
    scale: int
    mask: int | None = None


@dataclass
class ShiftNetwork:
    """A selective-shift network: its layers, pattern cycle, projection and bounds."""

    m: int
    d: int
    n: int
    base: int
    layers: list[ShiftLayer]
    masks: list[np.ndarray] | None = None
    identity_layers: int = 0
    value_bound: int = 0
    positional: bool = False
    path: list[int] | None = None
    notes: dict = field(default_factory=dict)

    @property
    def u(self) -> np.ndarray:
        """``u = (1, B, ..., B^(d-1))`` (integers; exact in float64 for the sizes used)."""
        return np.array([self.base**i for i in range(self.d)], dtype=np.int64)

    @property
    def attention_layers(self) -> int:
        return len(self.layers) + self.identity_layers

    @property
    def float64_exact(self) -> bool:
        """Every value (and so every hardmax decision) is exact in float64."""
        return self.value_bound < FLOAT64_EXACT

    def parameters(self) -> int:
        """Attention parameters: per head ``W_Q: (d+1, 1)`` (the bias row included), ``W_K, W_V:
        (d, 1)``, ``W_O: (1, d)``, so ``4 d + 1``; two heads per select layer, one per max layer;
        identity layers count 0."""
        heads = sum(2 if layer.kind == "select" else 1 for layer in self.layers)
        return heads * (4 * self.d + 1)


def codes(digits: np.ndarray, base: int) -> np.ndarray:
    """``u . k`` for digits ``(..., d)``: the base-``base`` code (int64; object beyond int64).
    The digits must be integers in ``0..base-1`` (else the code is not injective)."""
    base, digits = _check_count("base", base, 2), np.asarray(digits)
    whole = digits.dtype == object or np.issubdtype(digits.dtype, np.integer) or (
        np.isfinite(digits).all() and np.array_equal(digits, np.round(digits)))
    if digits.ndim < 1 or (digits.size and not (
            whole and digits.min() >= 0 and digits.max() < base)):
        raise ValueError(f"digits must be integers in 0..{base - 1} along a last axis, got "
                         f"dtype {digits.dtype}, shape {digits.shape}")
    if digits.dtype != object:
        digits = digits.astype(np.int64)  # float64 integers (quantize's digits) as integers
    d = digits.shape[-1]
    if base ** d >= INT64_SAFE:
        u = np.array([base**i for i in range(d)], dtype=object)
        return (digits.astype(object) * u).sum(axis=-1)
    u = np.array([base**i for i in range(d)], dtype=np.int64)
    return digits.astype(np.int64) @ u


def dense_network(m: int, d: int, n: int) -> ShiftNetwork:
    """Lemma 6 of Yun et al. (2020a), reconstructed: ``D`` selective shifts and a global shift."""
    m = check_inverse_delta(m)
    d, n = _check_count("d", d, 1), _check_count("n", n, 1)
    D = m**d
    layers = [ShiftLayer("select", c, c, D) for c in range(D)]
    b1 = (D + 1) ** n * (D - 1)
    layers.append(ShiftLayer("select", 0, b1, D ** (n + 1)))
    bound = b1 * (1 + D ** (n + 1))
    return ShiftNetwork(m=m, d=d, n=n, base=m, layers=layers, value_bound=bound)


def dense_code_range(m: int, d: int, n: int) -> tuple[int, int] | None:
    """``(t_l, t_r)``: the smallest and the largest value of the dense network's contextual mapping
    over the grid inputs with distinct tokens (None when ``n > m^d``: there is none), from ``n + 1``
    inputs instead of all ``C(m^d, n)``.

    Closed form of the recursion (ours [D], checked against ``run_integer`` in the tests). Sort
    the codes ``c_1 < ... < c_n``. The one-code windows are met in increasing order, each token once,
    and a shifted value (at least ``D``) exceeds every code, so token i is shifted when its code is
    the smallest unshifted value and the largest is ``v_{i-1}`` (``c_n`` for i = 1)::

        v_1 = c_1 + D (c_n - c_1),    v_i = c_i + D (v_{i-1} - c_i)   (increasing in i),

    and the global shift adds ``D^(n+1) (v_n - v_1)`` to every token. Both ``min_k q_k = v_1 +
    D^(n+1) (v_n - v_1)`` and ``max_k q_k = v_n + D^(n+1) (v_n - v_1)`` are linear in ``c``. The
    sorted distinct codes are the integer points of ``{0 <= c_1, c_i + 1 <= c_(i+1), c_n <= D - 1}``
    (with ``e_i = c_i - i + 1`` the order simplex ``0 <= e_1 <= ... <= e_n <= D - n``, whose vertices
    are integral), so a linear function takes its extremes at the vertices: the first j codes
    ``0..j-1`` and the other ``n - j`` at the top, ``D - n + j..D - 1``, for ``j = 0..n``."""
    m = check_inverse_delta(m)
    d, n = _check_count("d", d, 1), _check_count("n", n, 1)
    D = m**d
    if n > D:
        return None
    vertices = np.array([list(range(j)) + list(range(D - n + j, D)) for j in range(n + 1)],
                        dtype=np.int64)
    digits = np.stack([(vertices // m**i) % m for i in range(d)], axis=-1)
    q = run_integer(dense_network(m, d, n), digits)
    return int(min(min(row) for row in q.tolist())), int(max(max(row) for row in q.tolist()))


def positional_offsets(n: int, m: int, path: list[int] | None = None) -> np.ndarray:
    """``E / delta``: position ``path[i]`` gets offset ``i m`` on every digit, ``(n,)`` int."""
    n, m = _check_count("n", n, 1), check_inverse_delta(m)
    path = list(range(n)) if path is None else path
    if sorted(np.asarray(path).tolist()) != list(range(n)):
        raise ValueError(f"path must be an order of the positions 0..{n - 1}, got {path!r}")
    off = np.zeros(n, dtype=np.int64)
    off[np.asarray(path)] = np.arange(n) * m
    return off


def positional_network(m: int, d: int, n: int, masks: list[np.ndarray] | None = None,
                       shift_factor: int | None = None) -> ShiftNetwork:
    """The positional / sparse network (Yun et al. 2020b construction as reconstructed in our
    notes 2.4). ``masks=None`` is dense attention (Theorem 3 of Yun et al. 2020a: the columns of
    ``X + E`` are all distinct). ``shift_factor`` defaults to the code range ``R = (n m)^d``
    (smaller values reproduce the notes' pitfall). Raises ``ValueError`` when the pattern violates
    Assumption 1."""
    m = check_inverse_delta(m)
    d, n = _check_count("d", d, 1), _check_count("n", n, 1)
    if shift_factor is not None:
        shift_factor = _check_count("shift_factor", shift_factor, 1)
    if masks is None:
        masks = [np.ones((n, n), dtype=bool)]
        dense = True
    else:
        dense = False
        if len(masks) == 0:
            raise ValueError("masks must hold at least one (n, n) mask")
        for i, x in enumerate(masks):
            if np.shape(x) != (n, n):
                raise ValueError(f"masks[{i}] has shape {np.shape(x)}; expected ({n}, {n})")
        masks = [np.asarray(x, dtype=bool) for x in masks]
    p = len(masks)
    if not all(np.all(np.diag(x)) for x in masks):
        raise ValueError("the pattern lacks self-loops (Assumption 1.1)")
    found, path = hamiltonian_path(masks)
    if found is not True:
        raise ValueError("no Hamiltonian path found in the pattern (Assumption 1.2)")
    base = n * m
    R = base**d
    K = R if shift_factor is None else int(shift_factor)
    owner_codes = []
    for i, k in enumerate(path):
        lo = np.arange(i * m, (i + 1) * m)
        grid = np.stack(np.meshgrid(*([lo] * d), indexing="ij"), axis=-1).reshape(-1, d)
        owner_codes += [(int(c), k, i) for c in codes(grid, base)]
    owner_codes.sort()
    layers: list[ShiftLayer] = []
    identity = 0
    t = 0
    for c, k, i in owner_codes:
        if i > 0:
            pred = path[i - 1]
            wait = next(w for w in range(p) if masks[(t + w) % p][k, pred])
            identity += wait
            t += wait
        layers.append(ShiftLayer("select", c, c, K, mask=None if dense else t % p))
        t += 1
    bound = (K + 1) ** n * R
    rotated = masks[t % p:] + masks[: t % p]
    s = reach_steps(rotated)
    if s is None:
        raise ValueError("tokens are never all reached (Assumption 1.3)")
    for _ in range(s):
        C = bound + 1
        layers.append(ShiftLayer("max", 0, 0, C, mask=None if dense else t % p))
        bound = bound + C * bound
        t += 1
    return ShiftNetwork(m=m, d=d, n=n, base=base, layers=layers,
                        masks=None if dense else masks, identity_layers=identity,
                        value_bound=bound, positional=True, path=path,
                        notes={"s": s, "K": K, "R": R, "p": p})


def check_digits(net: ShiftNetwork, digits) -> np.ndarray:
    """``digits`` as int64 ``(N, n, d)`` with every entry in ``{0, ..., m - 1}`` (a grid input of
    ``net``); a ``ValueError`` naming ``digits`` otherwise."""
    arr = np.asarray(digits)
    if arr.ndim != 3 or arr.shape[1:] != (net.n, net.d):
        raise ValueError(f"digits must have shape (N, n, d) = (N, {net.n}, {net.d}), "
                         f"got {arr.shape}")
    if arr.size and not np.issubdtype(arr.dtype, np.integer):
        if not (np.isfinite(arr).all() and np.array_equal(arr, np.round(arr))):
            raise ValueError("digits must be integers (the grid point is delta * digits)")
    arr = arr.astype(np.int64)
    if arr.size and (arr.min() < 0 or arr.max() >= net.m):
        raise ValueError(f"digits must lie in 0..{net.m - 1} (1/delta = {net.m}), got "
                         f"{int(arr.min())}..{int(arr.max())}")
    return arr


def input_codes(net: ShiftNetwork, digits: np.ndarray) -> np.ndarray:
    """Codes ``(N, n)`` of grid inputs ``digits: (N, n, d)`` (positional offsets added)."""
    digits = check_digits(net, digits)
    if net.positional:
        digits = digits + positional_offsets(net.n, net.m, net.path)[:, None]
    return codes(digits, net.base)


def _masked_extrema(V: np.ndarray, mask: np.ndarray | None):
    if mask is None:
        mx = V.max(axis=1, keepdims=True)
        mn = V.min(axis=1, keepdims=True)
        return mx, mn
    big = V.max() + 1
    small = V.min() - 1
    W = V[:, None, :]
    mx = np.where(mask[None], W, small).max(axis=-1)
    mn = np.where(mask[None], W, big).min(axis=-1)
    return mx, mn


def run_integer(net: ShiftNetwork, digits: np.ndarray) -> np.ndarray:
    """The exact integer reference: ``q(L)`` for every input, ``(N, n)`` (int64 while every value
    stays below ``INT64_SAFE``, Python integers from the first layer whose result could not).

    Select layer: ``v_k += scale * 1{lo <= v_k <= hi} (max_{A_k} v - min_{A_k} v)``; max layer:
    ``v_k += scale * max_{A_k} v``.
    """
    V = input_codes(net, digits)
    for layer in net.layers:
        mask = None if layer.mask is None else net.masks[layer.mask]
        if layer.kind == "select":
            # only the inputs with a token in the window change (few, for a one-code window)
            inside = (V >= layer.lo) & (V <= layer.hi)
            rows = np.unique(np.flatnonzero(inside) // V.shape[1])
            if rows.size:
                sub = V[rows]
                mx, mn = _masked_extrema(sub, mask)
                step = np.where(inside[rows], mx - mn, 0)
                if _past_int64(sub, step, layer.scale):
                    V, sub, step = V.astype(object), sub.astype(object), step.astype(object)
                V[rows] = sub + layer.scale * step
        else:
            mx, _ = _masked_extrema(V, mask)
            if _past_int64(V, mx, layer.scale):
                V, mx = V.astype(object), mx.astype(object)
            V = V + layer.scale * mx
    return V


def _past_int64(V: np.ndarray, step: np.ndarray, scale: int) -> bool:
    """Whether int64 ``V + scale * step`` could reach ``INT64_SAFE`` (False for Python
    integers, which are exact)."""
    if V.dtype == object:
        return False
    top = int(np.abs(V).max(initial=0)) + scale * int(np.abs(step).max(initial=0))
    return top >= INT64_SAFE or scale >= INT64_SAFE


def layer_heads(net: ShiftNetwork, layer: ShiftLayer) -> list[Head]:
    """The real attention heads of one layer on tokens ``(digits, 1)`` of width ``d + 1``."""
    d = net.d
    u = np.append(net.u.astype(float), 0.0)[:, None]
    e1 = np.zeros((1, d + 1))
    e1[0, 0] = 1.0
    if layer.kind == "select":
        heads = []
        for b, sign in ((layer.lo - 0.5, 1.0), (layer.hi + 0.5, -1.0)):
            wq = u.copy()
            wq[d, 0] = -b
            heads.append(Head(W_Q=wq, W_K=u, W_V=u, W_O=sign * float(layer.scale) * e1))
        return heads
    wq = np.zeros((d + 1, 1))
    wq[d, 0] = 1.0
    return [Head(W_Q=wq, W_K=u, W_V=u, W_O=float(layer.scale) * e1)]


def _hardmax_exact(S: np.ndarray, mask: np.ndarray | None) -> np.ndarray:
    """Row-wise hardmax with tie averaging in exact rational arithmetic (object arrays).

    The same rule as ``expressivity.attention.hardmax`` (each maximiser gets ``1/|argmax|``),
    kept exact: float64 cannot hold ``1/3``, so a three-way tie of equal values ``v`` returns
    ``3 * fl(1/3) * v``, which can differ from ``v`` in the last bit."""
    if mask is not None:
        low = S.min() - 1
        S = np.where(mask, S, low)
    top = S.max(axis=-1, keepdims=True)
    winners = S == top
    count = winners.sum(axis=-1, keepdims=True)
    inv = np.vectorize(lambda c: Fraction(1, int(c)), otypes=[object])(count)
    return np.where(winners, inv, Fraction(0)).astype(object)


def run_attention_exact(net: ShiftNetwork, digits: np.ndarray) -> np.ndarray:
    """The hardmax attention layers of ``run_attention`` in exact rational arithmetic: the same
    weight matrices (every float64 entry is taken exactly as a ``Fraction``), exact scores and
    exact tie-averaged hardmax. Slow; used to recheck inputs where float64 tie weights round."""
    digits = check_digits(net, digits)
    if net.positional:
        digits = digits + positional_offsets(net.n, net.m, net.path)[:, None]
    to_frac = np.vectorize(Fraction, otypes=[object])
    X = to_frac(np.concatenate([digits, np.ones(digits.shape[:-1] + (1,), np.int64)], axis=-1))
    for layer in net.layers:
        mask = None if layer.mask is None else net.masks[layer.mask]
        out = X.copy()
        for head in layer_heads(net, layer):
            W_Q, W_K, W_V, W_O = (to_frac(w) for w in (head.W_Q, head.W_K, head.W_V, head.W_O))
            Q, K, Vh = X @ W_Q, X @ W_K, X @ W_V
            S = Q * np.swapaxes(K, -1, -2)
            out = out + (_hardmax_exact(S, mask) @ Vh) @ W_O
        X = out
    return X[..., : net.d] @ net.u.astype(object)


def compare_with_reference(net: ShiftNetwork, digits: np.ndarray, q) -> dict:
    """Hardmax attention matrices against the integer reference ``q`` on every input.

    float64 first (exact while the values stay below 2^52, except that tie weights like 1/3
    round); inputs that differ are recomputed with ``run_attention_exact``. Returns the float64
    mismatching entries, the inputs rechecked, and the mismatches left in exact arithmetic."""
    qa = run_attention(net, digits, "hardmax")
    check_outputs(q, qa.shape)
    qf = np.asarray(q, dtype=float)
    bad = np.flatnonzero(np.any(qa != qf, axis=1))
    exact_mism = 0
    if bad.size:
        qe = run_attention_exact(net, np.asarray(digits)[bad])
        exact_mism = int(np.sum(qe != np.asarray(q, dtype=object)[bad]))
    return {"matrix_mismatches_float64": int(np.sum(qa != qf)),
            "matrix_rechecked_exact": int(bad.size), "matrix_mismatches": exact_mism}


def run_attention(net: ShiftNetwork, digits: np.ndarray, sigma: str = "hardmax",
                  beta: float = 1.0) -> np.ndarray:
    """The network as real attention layers in float64: ``q = u . g_c(L)``, ``(N, n)``.

    Tokens are ``(digits (+ positional offset), 1)``; each layer is
    ``X <- X + sum_heads sigma(beta Q K^T) V W_O`` with ``sigma`` from ``expressivity.attention``
    (batched over the inputs; masked where the layer has a pattern). Exact only while
    ``net.float64_exact``.
    """
    if sigma not in ("softmax", "hardmax"):
        raise ValueError(f"sigma must be 'softmax' or 'hardmax', got {sigma!r}")
    if not _finite_number("beta", beta) > 0:
        raise ValueError(f"beta (an inverse temperature) must be > 0, got {beta!r}")
    digits = check_digits(net, digits)
    if net.positional:
        digits = digits + positional_offsets(net.n, net.m, net.path)[:, None]
    X = np.concatenate([digits.astype(float), np.ones(digits.shape[:-1] + (1,))], axis=-1)
    for layer in net.layers:
        mask = None if layer.mask is None else net.masks[layer.mask]
        out = X.copy()
        for head in layer_heads(net, layer):
            # Batched S = Q K^T and A V for head size s, by broadcasting (fast for small n, s).
            Q, K, Vh = X @ head.W_Q, X @ head.W_K, X @ head.W_V
            S = np.einsum("...ks,...js->...kj", Q, K) if Q.shape[-1] > 1 else Q * K.swapaxes(-1, -2)
            A = attention_weights(S, sigma, beta=beta, mask=mask)
            AV = np.einsum("...kj,...js->...ks", A, Vh) if Vh.shape[-1] > 1 else (
                (A * Vh.swapaxes(-1, -2)).sum(axis=-1, keepdims=True))
            out += AV @ head.W_O
        X = out
    return X[..., : net.d] @ net.u.astype(float)


def check_outputs(q, shape: tuple[int, ...]) -> None:
    """The outputs ``q`` of a network on inputs whose codes have ``shape`` ``(N, n)``."""
    if np.shape(q) != shape:
        raise ValueError(f"q must have the shape (N, n) = {shape} of the inputs, got {np.shape(q)}")


def softmax_beta(net: ShiftNetwork, margin: float) -> float:
    """An inverse temperature (units of ``delta^2``) at which softmax keeps every output of the
    dense network within ``margin`` of its hardmax code, in exact arithmetic.

    Derivation. A head's score gap between its hardmax key ``j*`` and a key ``j`` of another
    value is ``|v_k - b| |v_j - v_j*| >= Delta_j / 2`` (integer values ``v``, half-integer
    thresholds ``b``), so its output deviates from ``v_j*`` by at most
    ``sum_j Delta_j exp(-beta Delta_j / 2) <= (n - 1) exp(-beta / 2) = eps`` (``beta >= 2``).
    In the ``D`` scan layers (factor ``D``) a token outside the window gains at most ``2 D eps``
    (both heads pick the same key: their exact parts cancel), so ``A = 2 D^2 eps`` over the scan;
    each token is shifted at most once, gaining ``D`` times the errors of the max and min tokens,
    so after the scan every error is at most ``M = A sum_{i=0..n} (2D)^i``. The global shift
    (factor ``G = D^(n+1)``) adds ``G (2 M + 2 eps)``: the final error is at most
    ``eps K``, ``K = 2 D^2 S (1 + 2 G) + 2 G``, ``S = sum_{i=0..n} (2D)^i``; ``beta`` solves
    ``(n - 1) exp(-beta/2) K = margin``. First order in the errors, which stay below
    ``margin / G`` before the last layer, far inside the half-unit gaps the argument uses.
    """
    if net.positional:
        raise ValueError("softmax_beta is derived for the dense network (dense_network) only")
    if not (isinstance(margin, (int, float, np.floating)) and margin > 0
            and math.isfinite(margin)):
        raise ValueError(f"margin must be a finite number > 0, got {margin!r}")
    if net.n < 2:
        return 2.0      # one token attends only itself: softmax equals hardmax
    D, n = net.m**net.d, net.n
    G = D ** (n + 1)
    S = sum((2 * D) ** i for i in range(n + 1))
    K = 2 * D**2 * S * (1 + 2 * G) + 2 * G
    return max(2.0, 2 * (math.log(n - 1) + math.log(K) - math.log(margin)))


def float64_exact_by_formula(m: int, d: int, n: int) -> bool:
    """The notes' criterion for the dense network: ``(2n+1) d log2(1/delta) < 53``."""
    m, d, n = check_inverse_delta(m), _check_count("d", d, 1), _check_count("n", n, 1)
    return (2 * n + 1) * d * math.log2(m) < 53
