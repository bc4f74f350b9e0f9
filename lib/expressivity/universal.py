"""End-to-end universal approximation by constructed (not trained) Transformers.

Two routes to approximate a continuous function ``f: [0, 1]^{n x d} -> R^{n x d}`` in ``L^p``:

1. Yun et al. (2020a), Theorem 2 / Proposition 4 (recalled [M], reconstructed; see
   shared/papers/yun_fang.md 1.4): quantize with ``d m`` feed-forward layers
   (``expressivity.quantization``), compute a contextual mapping with ``D + 1`` selective-shift
   attention layers (``expressivity.selective_shift``), then a token-wise value mapping, one
   width-1 FF layer per attainable value of ``q`` (Lemma 7): ``q -> f_bar(L)_k`` when ``q`` is a
   value of a grid input ``L`` with distinct tokens, ``0`` otherwise (property 4 puts the values of
   inputs with repeated tokens outside ``[t_l, t_r]``). ``f_bar`` is ``f`` at the cube centre (our
   choice). The modified Transformer (hardmax, activations in ``Phi``) is evaluated exactly; the
   step to softmax/ReLU only adds errors on sets of vanishing measure (not simulated here).
   With positional encoding ``E_j = (j - 1) 1`` (Theorem 3) the same pipeline approximates a
   function that is not permutation equivariant.
2. Kajitsuka & Sato (2024), Proposition 1 (statement verified, construction reconstructed [R/D];
   shared/papers/kajitsuka_sato.md section 5): one quantizing FFN, ONE rank-1 single-head softmax
   attention layer (``W_K = v^T``, ``W_Q = lam v^T``, ``W_V = v^T``, ``W_O = eps/(4 r_max) v``), one
   memorizing FFN (Zhang et al. 2017, ``expressivity.relu_interpolant``).
   Here ``lam`` is a configured practical value, not the paper's worst-case one (which needs
   hundreds of thousands of digits); the separation it reaches on the whole grid is measured.
   The attention layer is the memorization stage's rank-1 head (``expressivity.rank1.layer``).

Monte-Carlo ``L^p`` error: ``( mean_X sum_{k,i} |f(X)_{k,i} - g(X)_{k,i}|^p )^{1/p}`` on a seeded
uniform sample of ``[0, 1)^{n x d}`` (the domain has volume 1), with its standard error.

The rate at which the error falls with ``delta`` (``min(1, d/p)`` for Yun et al.'s equivariant
route, 1 for the others) is derived in ``expressivity.approximation_rate``.
"""

from __future__ import annotations

import itertools
import math

import mpmath
import numpy as np

from expressivity.approximation_rate import check_route
from expressivity.arguments import finite_array, finite_number, integer
from expressivity.attention import softmax
from expressivity.quantization import (
    check_budget,
    check_inverse_delta,
    quantize,
    quantizer_parameters,
)
from expressivity.rank1.layer import output_scale, rank1_attention
from expressivity.relu_interpolant import fit_relu_interpolant
from expressivity.selective_shift import (
    codes,
    dense_code_range,
    dense_network,
    positional_network,
    run_integer,
)

EQUIVARIANT_TARGETS = ("sin_mean", "softmax_average")
POSITIONAL_TARGETS = ("weighted_shift",)
TARGETS = EQUIVARIANT_TARGETS + POSITIONAL_TARGETS


def check_target(name: str) -> str:
    if name not in TARGETS:
        raise ValueError(f"unknown target {name!r}; known targets: {', '.join(TARGETS)}")
    return name


def target(name: str, X: np.ndarray) -> np.ndarray:
    """Targets on ``X: (..., n, d)``:

    - ``sin_mean``: ``f(X)_{k,i} = sin(2 pi X_{k,i}) * mean_j X_{j,i}`` (permutation equivariant);
    - ``softmax_average``: ``f(X)_k = sum_j softmax_j(<x_k, x_j>) x_j`` (equivariant);
    - ``weighted_shift``: ``f(X)_k = (k + 1)/n * x_{(k+1) mod n}`` (NOT equivariant).
    """
    check_target(name)
    X = finite_array("X", X, 2)
    if name == "sin_mean":
        return np.sin(2 * np.pi * X) * X.mean(axis=-2, keepdims=True)
    if name == "softmax_average":
        return softmax(X @ np.swapaxes(X, -1, -2)) @ X
    n = X.shape[-2]
    w = (np.arange(n) + 1.0) / n
    return w[:, None] * np.roll(X, -1, axis=-2)


def grid_target(name: str, digits: np.ndarray, m: int) -> np.ndarray:
    """``f_bar`` on grid inputs: ``f`` at the cube centres ``(digits + 1/2) / m``."""
    m = check_inverse_delta(m)
    return target(name, (np.asarray(digits, dtype=float) + 0.5) / m)


def lp_errors(F: np.ndarray, G: np.ndarray, ps=(1, 2)) -> dict:
    """Monte-Carlo ``L^p`` distances over a sample ``F, G: (S, n, d)`` and their standard errors.

    ``L^p = mu^(1/p)`` with ``mu = mean_X e(X)``, ``e(X) = sum_{k,i} |F - G|^p``; the standard
    error of ``mu`` is ``std(e) / sqrt(S)``, that of ``L^p`` by the delta method ``L^p se(mu) /
    (p mu)`` (``L<p>_se``; NaN for ``S < 2``, 0 when every ``e(X)`` is 0)."""
    F, G = finite_array("F", F), finite_array("G", G)
    for p in ps:
        if not finite_number("ps", p) >= 1:
            raise ValueError(f"ps must hold exponents p >= 1, got {p!r}")
    if F.shape != G.shape or F.ndim != 3 or F.shape[0] == 0:
        raise ValueError(f"F and G must have one shape (S, n, d) with S >= 1, got {F.shape} "
                         f"and {G.shape}")
    diff = np.abs(F - G).reshape(F.shape[0], -1)
    out = {}
    for p in ps:
        e = np.sum(diff**p, axis=1)
        mu = float(np.mean(e))
        out[f"L{p}"] = mu ** (1 / p)
        if len(e) < 2:
            se = math.nan
        elif mu == 0:
            se = 0.0
        else:
            se = mu ** (1 / p) * float(np.std(e, ddof=1)) / math.sqrt(len(e)) / (p * mu)
        out[f"L{p}_se"] = se
    return out


def sample(rng: np.random.Generator, size: int, n: int, d: int) -> np.ndarray:
    """``size`` uniform inputs of ``[0, 1)^{n x d}``."""
    for name, value in (("size", size), ("n", n), ("d", d)):
        integer(name, value, 1)
    return rng.random((size, n, d))


def check_sample(X) -> np.ndarray:
    """``X`` as a float array ``(S, n, d)`` of finite entries in ``[0, 1)``; a ``ValueError`` naming
    ``X`` otherwise."""
    X = np.asarray(X, dtype=float)
    if X.ndim != 3 or 0 in X.shape:
        raise ValueError(f"X must be a non-empty sample of shape (S, n, d), got {X.shape}")
    if not np.isfinite(X).all() or X.min() < 0 or X.max() >= 1:
        raise ValueError("X must hold finite inputs in [0, 1)")
    return X


def repeated_tokens(digits, m: int) -> np.ndarray:
    """For grid inputs ``digits: (S, n, d)`` (digits in ``0..m-1``), whether two tokens share a
    grid cell, ``(S,)`` bool."""
    c = np.sort(codes(digits, check_inverse_delta(m)), axis=1)
    return np.any(c[:, 1:] == c[:, :-1], axis=1)


def table_size(route: str, m: int, n: int, d: int) -> int:
    """Entries of the route's table at ``1/delta = m``: grid inputs with distinct tokens up to
    permutation ``C(m^d, n)`` (Yun et al.'s value mapping), multisets ``C(m^d + n - 1, n)`` (the
    Kajitsuka & Sato memorization), every grid input ``m^(n d)`` (positional route)."""
    check_route(route)
    m, n, d = check_inverse_delta(m), integer("n", n, 1), integer("d", d, 1)
    D = m**d
    if route == "yun":
        return math.comb(D, n)
    if route == "kajitsuka_sato":
        return math.comb(D + n - 1, n)
    return m ** (n * d)


def _class_digits(m: int, d: int, n: int, budget: int, repeats: bool) -> np.ndarray:
    """Canonical grid inputs: sets (or multisets when ``repeats``) of ``n`` tokens, sorted by
    code, as digits ``(C, n, d)``."""
    D = m**d
    count = math.comb(D + n - 1, n) if repeats else math.comb(D, n)
    check_budget(count, budget, f"value table 1/delta={m}, n={n}, d={d}")
    comb = itertools.combinations_with_replacement if repeats else itertools.combinations
    cls = np.array(list(comb(range(D), n)), dtype=np.int64).reshape(-1, n)
    digits = np.stack([(cls // m**i) % m for i in range(d)], axis=-1)
    return digits


def yun_route(name: str, X: np.ndarray, m: int, positional: bool = False,
              masks: list[np.ndarray] | None = None) -> dict:
    """Quantize -> selective-shift contextual mapping -> value mapping; errors and counts.

    The value mapping is the table ``q -> f_bar(L)_k`` over the grid inputs (canonical classes
    with distinct tokens; every grid input with positional encoding), one width-1 FF layer per
    entry (Lemma 7); a value that is not in the table must lie outside ``[t_l, t_r]`` (property 4)
    and maps to 0.

    The table is never built: the Monte-Carlo error needs the value map only at the sampled
    cells. Each sample's exact integer codes ``q`` are computed (``run_integer``) and checked to
    be a contextual mapping on the sample (``check_sample_codes``). Without positional encoding a
    sample with distinct tokens is itself a grid input, so its value is in the table and maps to
    ``f_bar`` at its own cell; a sample with a repeated token is checked against ``[t_l, t_r]``
    from ``selective_shift.dense_code_range`` (property 4) and maps to 0; the table has
    ``n C(m^d, n)`` entries. With positional encoding ``E_j = (j - 1) 1`` (Theorem 3) the tokens
    of every grid input are distinct, so every sample is a grid input and maps to ``f_bar`` at
    its own cell, no value lies outside the grid (property 4 cannot be violated), and the table
    has ``n m^(n d)`` entries. ``masks`` (a sparse pattern's cycle, Yun et al. 2020b) replace
    dense attention in the contextual mapping, whose layers then each see the pattern's
    connections (``connections``: the keys the queries of all attention layers attend, ``n^2``
    per dense layer).

    Injectivity is checked here on the sample only; on every grid input it is the job of the
    lemma6 (dense) and sparse_mapping (positional and sparse) jobs, within their grid budgets.

    ``bits_per_parameter`` is the width of the largest integer the exact network holds (its
    ``value_bound``, in units of delta), ``bits`` the parameters times it.
    """
    check_target(name)
    m = check_inverse_delta(m)
    X = check_sample(X)
    S, n, d = X.shape
    digits = quantize(X, m).astype(np.int64)
    if masks is not None and not positional:
        raise ValueError("a sparse pattern's masks need positional encoding (positional=True)")
    tokens = codes(digits, m)                                              # (S, n)
    if positional:
        net = positional_network(m, d, n, masks)
        q = run_integer(net, digits)
        # a token is its grid input and its position
        check_sample_codes(q, _token_keys(tokens, np.broadcast_to(np.arange(n), (S, n))))
        G = grid_target(name, digits, m)
        violations = 0
        ff_value_layers = n * m ** (n * d)
    else:
        net = dense_network(m, d, n)
        q = run_integer(net, digits)
        repeated = repeated_tokens(digits, m)
        # a token of a distinct-token input is its input's token set and its own grid cell
        distinct = tokens[~repeated]
        check_sample_codes(q[~repeated], _token_keys(np.sort(distinct, axis=1), distinct))
        G = np.where(repeated[:, None, None], 0.0, grid_target(name, digits, m))
        span = dense_code_range(m, d, n)
        violations = 0 if span is None else int(sum(
            span[0] <= int(v) <= span[1] for v in q[repeated].ravel()))
        ff_value_layers = n * math.comb(m**d, n)
    params = (quantizer_parameters(m, d) + net.parameters()
              + ff_value_layers * (3 * d + 1))
    bits_per_parameter = int(net.value_bound).bit_length() + 1  # and a sign
    connections = sum(n * n if layer.mask is None else int(net.masks[layer.mask].sum())
                      for layer in net.layers)
    return {
        "G": G,
        "layers_ff_quantize": d * m,
        "layers_attention": net.attention_layers,
        "layers_ff_value": ff_value_layers,
        "layers_total": d * m + net.attention_layers + ff_value_layers,
        "connections": connections,
        "connections_per_layer": connections / len(net.layers),
        "parameters": params,
        "bits_per_parameter": bits_per_parameter,
        "bits": params * bits_per_parameter,
        "property4_violations": violations,
        "precision": ("exact integers (hardmax, Phi activations); value map at the sampled "
                      "cells, injective on the sample"
                      + ("" if positional else ", property 4 per sample")),
    }


def _token_keys(rows: np.ndarray, own: np.ndarray) -> np.ndarray:
    """``(S, n, n + 1)``: for each token ``k`` of each sample, the sample's ``rows[s]`` (``(S,
    n)``) followed by ``own[s, k]``."""
    n = rows.shape[1]
    return np.concatenate([np.repeat(rows[:, None, :], n, axis=1), own[..., None]], axis=2)


def check_sample_codes(q: np.ndarray, keys: np.ndarray) -> None:
    """The contextual mapping on a sample (Yun et al. 2020a, Definition 3.1): the codes ``q: (S,
    n)`` (int64 or Python ints) of tokens with identities ``keys: (S, n, w)`` (integer rows: the
    token's grid input, or its class, and the token) are a function of the identity, one-to-one,
    so that a token-wise value map can read ``f_bar`` off the code. A ``ValueError`` counting the
    codes shared by different identities and the repeats of an identity with another code
    otherwise (the identities sorted, O(S n log(S n)); the codes hashed, not sorted: Python
    integers sort slowly)."""
    q = np.asarray(q).ravel()
    if q.size == 0:
        return
    rows = np.asarray(keys).reshape(q.size, -1)
    order = np.lexsort(rows.T[::-1])
    rows, q = rows[order], q[order]
    same = np.all(rows[1:] == rows[:-1], axis=1)        # the identity of the previous entry
    split = int(np.sum(same & np.asarray(q[1:] != q[:-1], dtype=bool)))
    first = q[np.concatenate([[True], ~same])].tolist()  # one code per identity
    shared = len(first) - len(set(first))
    if shared or split:
        raise ValueError(f"the contextual mapping repeats a value on the sample: {shared} code(s) "
                         f"shared by different tokens or inputs, {split} token(s) given another "
                         "code on a repeat; no value mapping")


def ks_route(name: str, X: np.ndarray, m: int, lam: float, budget: int,
             rng: np.random.Generator, dps: int = 40,
             certificate_budget: int | None = None) -> dict:
    """Kajitsuka & Sato's three-layer route: quantizing FFN, one rank-1 attention, Zhang FFN.

    FFN 1 maps a token to ``1 + (digits + 1/2)/m`` (cube centres shifted so that
    ``r_min >= 1``); the attention uses a random unit ``v`` (``v = 1`` for ``d = 1``),
    ``eps = 1/m`` (token separation) and ``r_max = 2 sqrt(d)``; FFN 2 memorizes every (token,
    context) point ``z = a . y`` of every grid multiset (repeated tokens included) with labels
    ``f_bar``.

    **Certificate** (over all ``C(m^d + n - 1, n)`` multisets, at most ``certificate_budget``;
    ``budget`` when None): the points are sorted (O(G log G)); two adjacent points with different
    labels must differ. A gap that clears the float64 rounding bound of the points is decided in
    float64; the others (float64 ties included) are recomputed in ball arithmetic
    (``_point_ball``: the exact rational tokens, the float64 weights taken exactly) and decided
    there; a pair that no precision up to ``ARB_BITS[-1]`` separates is counted in
    ``undecided_gaps`` (equal points with different labels would refute the mapping; balls cannot
    prove equality, so such a pair leaves the route undecided, not refuted).
    ``min_separation`` is the smallest certified gap between points with different labels, and
    ``bits_per_parameter`` the bits to resolve it relative to the largest point.

    **Memorization**: within ``budget`` multisets the Zhang FFN is solved in mpmath (``dps``
    digits) and its float64 residual is checked against its rounding bound; above it the FFN is
    not built (residual NaN), nor where float64 cannot resolve the points. The route's output on
    the sample is the exact network's, ``f_bar`` at the sample's cell (every multiset is
    memorized), valid when every gap is certified.
    """
    check_target(name)
    m = check_inverse_delta(m)
    X = check_sample(X)
    if not (isinstance(lam, (int, float, np.floating)) and math.isfinite(lam) and lam > 0):
        raise ValueError(f"lam must be a finite number > 0, got {lam!r}")
    integer("dps", dps, 16)  # mpmath digits
    integer("budget", budget, 1)
    certificate_budget = budget if certificate_budget is None else certificate_budget
    S, n, d = X.shape
    v = np.ones(1) if d == 1 else rng.normal(size=d)
    v = v / np.linalg.norm(v)
    eps, r_max = 1.0 / m, 2.0 * math.sqrt(d)
    W_O = output_scale(eps, r_max) * v
    a = np.ones(1) if d == 1 else rng.normal(size=d)
    cls = _class_digits(m, d, n, certificate_budget, repeats=True)
    z = rank1_attention(1.0 + (cls + 0.5) / m, v, lam, W_O) @ a            # (C, n)
    labels = grid_target(name, cls, m)                                      # (C, n, d)
    order = np.argsort(z.ravel(), kind="stable")
    zs, lab = z.ravel()[order], labels.reshape(-1, d)[order]
    same_label = np.all(lab[1:] == lab[:-1], axis=1)
    gaps = np.diff(zs)
    rounding = 8 * np.finfo(float).eps * float(np.max(np.abs(zs)))
    # adjacent points with different labels: decided in float64 above the rounding bound
    need = np.flatnonzero(~same_label)
    float_ok = gaps[need] > rounding
    certified = gaps[need][float_ok]
    undecided, arb_gaps = 0, []
    for pos in need[~float_ok]:
        gap = _ball_gap(cls, order[pos], order[pos + 1], m, v, lam, W_O, a)
        if gap is None:
            undecided += 1
        else:
            arb_gaps.append(gap)
    # log2 of the smallest certified gap (a ball's gap can lie far below float64's range)
    log2_gap = float(min([*np.log2(certified).tolist(), *arb_gaps], default=math.inf))
    zu, first = np.unique(zs, return_index=True)
    N = len(zu)
    out = {"memorized_points": N, "certified_points": int(zs.size),
           "gaps_in_arb": len(arb_gaps), "collapsed": bool(len(arb_gaps) or undecided),
           "undecided_gaps": undecided, "min_separation": 2.0**log2_gap,
           "log10_min_separation": log2_gap * math.log10(2),
           "memorization_residual": math.nan, "residual_bound": math.nan}
    built = len(cls) <= budget and not (len(arb_gaps) or undecided)
    if built:
        out.update(_zhang_residual(zu, lab[first], dps))
    G = grid_target(name, quantize(X, m).astype(np.int64), m)
    params = (3 * d * (m - 1) + d) + 4 * d + (d + N + d * N)
    # the points must be told apart: relative resolution min gap / max |z| (1 bit with one point)
    bits_per_parameter = 1.0 if not math.isfinite(log2_gap) else float(
        max(1, math.ceil(math.log2(float(np.max(np.abs(zu)))) - log2_gap)) + 1)
    return {
        "G": G,
        "layers_ff_quantize": 1,
        "layers_attention": 1,
        "layers_ff_value": 1,
        "layers_total": 3,
        "parameters": params,
        "bits_per_parameter": bits_per_parameter,
        "bits": params * bits_per_parameter,
        **out,
        "precision": ("float64 certificate" + (f", {len(arb_gaps)} gaps in ball arithmetic"
                                               if arb_gaps else "")
                      + (f"; FFN solved in mpmath ({dps} digits)" if built else
                         "; FFN not built (float64 cannot resolve the points)"
                         if len(cls) <= budget else
                         "; FFN not built (over memorization_budget)")),
    }


#: Precisions (bits) of the ball recomputation of a gap that float64 cannot decide.
ARB_BITS = (128, 512, 2048)


def _point_ball(tokens: np.ndarray, k: int, m: int, v, lam: float, W_O, a):
    """``z = a . (t_k + W_O sum_j softmax_j(lam z_k z) z_j)`` of token ``k`` of the grid
    multiset ``tokens: (n, d)`` (digits) as a ball: ``t = 1 + (digits + 1/2) / m`` exactly, the
    float64 ``v``, ``lam``, ``W_O``, ``a`` taken exactly."""
    from flint import arb

    T = [[1 + (arb(2 * int(x) + 1) / (2 * m)) for x in row] for row in tokens]
    vv, WO, aa, lm = ([arb(float(x)) for x in w] for w in (v, W_O, a, [lam]))
    zj = [sum((t * c for t, c in zip(row, vv, strict=True)), arb(0)) for row in T]
    w = [(lm[0] * zj[k] * x).exp() for x in zj]
    ctx = sum((wi * x for wi, x in zip(w, zj, strict=True)), arb(0)) / sum(w, arb(0))
    return sum(((T[k][i] + ctx * WO[i]) * aa[i] for i in range(len(aa))), arb(0))


def _ball_gap(cls: np.ndarray, i: int, j: int, m: int, v, lam: float, W_O, a) -> float | None:
    """The gap between the points of flat indices ``i`` and ``j`` (multiset ``index // n``, token
    ``index % n`` of ``cls``), decided in ball arithmetic at ``ARB_BITS``: log2 of its lower bound
    when a ball excludes 0 (no underflow), None when none does (equal, as far as these precisions
    tell)."""
    from flint import ctx

    n = cls.shape[1]
    for bits in ARB_BITS:
        with ctx.workprec(bits):
            diff = (_point_ball(cls[i // n], i % n, m, v, lam, W_O, a)
                    - _point_ball(cls[j // n], j % n, m, v, lam, W_O, a))
            if not diff.contains(0):
                return float(abs(diff).lower().log().mid()) / math.log(2)
    return None


def _zhang_residual(zu: np.ndarray, lab: np.ndarray, dps: int) -> dict:
    """The Zhang FFN through the points ``zu`` (increasing) with labels ``lab: (N, d)``, solved in
    mpmath with ``dps`` digits: its largest float64 residual on the points and the rigorous bound
    of its float64 evaluation."""
    d = lab.shape[1]
    with mpmath.workdps(dps):
        zm = [mpmath.mpf(float(t)) for t in zu]
        nets = [fit_relu_interpolant(zm, [mpmath.mpf(float(t)) for t in lab[:, i]])
                for i in range(d)]
        b = np.array([float(t) for t in nets[0].b])
        W = np.array([[float(t) for t in f.w] for f in nets])      # (d, N)
    # c(z) = sum_{b_j < z} w_j (z - b_j) = z P_k - Q_k with the prefix sums P_k = sum_{j<k} w_j,
    # Q_k = sum_{j<k} w_j b_j over the k biases below z (the biases increase): O(N log N).
    P = np.concatenate([np.zeros((d, 1)), np.cumsum(W, axis=1)], axis=1)
    Q = np.concatenate([np.zeros((d, 1)), np.cumsum(W * b, axis=1)], axis=1)
    k = np.searchsorted(b, zu, side="left")
    resid = float(np.max(np.abs(zu[:, None] * P[:, k].T - Q[:, k].T - lab)))
    # float64 evaluation of ``z P_k - Q_k`` with recursive prefix sums: at most
    # gamma_{N+2} (max|z| sum|w| + sum|w b|) with gamma_k = k eps / (1 - k eps) (Higham, Thm 4.4).
    u = (len(zu) + 2) * np.finfo(float).eps
    bound = float(u / (1 - u) * np.max(np.abs(zu).max() * np.abs(W).sum(axis=1)
                                      + np.abs(W * b).sum(axis=1)))
    return {"memorization_residual": resid, "residual_bound": bound}
