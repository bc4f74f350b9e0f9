"""Sparse attention patterns and Assumption 1 of Yun et al. (2020b).

A sparse Transformer of Yun et al. (2020b, "O(n) connections are expressive enough") lets query
``k`` of layer ``l`` attend only the keys in an index set ``A_k^l``, and the sets repeat in a cycle
of ``p`` patterns ``A^1, ..., A^p``. Here a pattern is a boolean mask ``M: (n, n)`` with
``M[k, j]`` True iff query ``k`` may attend key ``j`` (tokens are rows, 0-indexed), directly usable
as ``expressivity.attention.self_attention(X, heads, mask=M)`` and as a torch boolean mask.

Assumption 1 (recalled [M] from Yun et al. 2020b; see shared/papers/yun_fang.md section 2):

1. self-loops: ``k in A_k^l`` for every ``k`` and ``l``;
2. Hamiltonian path: a permutation ``gamma`` with ``gamma(i) in union_l A^l_{gamma(i+1)}`` for
   ``i = 1..n-1`` (each token on the path attends its predecessor in some pattern);
3. reachability: with ``S_k^1 = A_k^1`` and ``S_k^t = union_{j in A_k^{(t-1) mod p + 1}} S_j^{t-1}``
   there is a finite ``s`` with ``S_k^s = [n]`` for all ``k`` (after ``s`` layers every token has
   heard from every token).

Pattern definitions (bidirectional versions as in Yun et al. 2020b; causal STRIDED as in Child et
al. 2019, repository openai/sparse_attention). Every mask of every pattern contains its diagonal
(self-loops), so no pattern here forbids them:

- ``dense``: ``p = 1``, all pairs.
- ``strided`` (``p = 2``, ``w = ceil(sqrt n)``): ``A^1_k = {k - ceil(w/2), ..., k + floor(w/2)}``
  (window, not cyclic), ``A^2_k = {j : (j - k) mod w = 0}`` (stride).
- ``fixed`` (``p = 2``, ``w = ceil(sqrt n)``): ``A^1_k`` = the block ``{j : floor(j/w) =
  floor(k/w)}``, ``A^2_k`` = the summary tokens (the last token of every block, the final partial
  block included: ``j mod w = w - 1`` or ``j = n - 1``) plus ``k`` itself.
- ``star`` (Star-Transformer, ``p = 1``): tokens ``0..n-2`` form a ring (``k-1, k, k+1`` modulo
  ``n - 1``) and all attend the relay token ``n - 1``, which attends everything.
- ``window`` (``p = 1``, half-width ``w = 1``): ``A_k = {j : |j - k| <= w}``.
- ``longformer`` (``p = 1``, ``w = 2``, ``g = 1``): window plus ``g`` global tokens ``0..g-1``
  that attend and are attended by every token.
- ``bigbird`` (``p = 1``, ``w = 1``, ``g = 1``, ``r = 2``): longformer plus ``r`` uniformly random
  keys per query (needs ``rng``).
- ``random`` (``r = 3``, ``p = 1``): self plus ``r`` random keys per query, ``p`` independent
  draws (needs ``rng``).
- ``causal_strided`` (Child et al. 2019, ``p = 2``, ``w = ceil(sqrt n)``): ``A^1_k = {j : k - w <
  j <= k}``, ``A^2_k = {j <= k : (k - j) mod w = 0}``. Causal masks cannot satisfy condition 3
  (token 0 never sees a later token).

The construction of the patterns with these defaults is ours where the notes mark the paper's
exact index sets as recalled [M].
"""

from __future__ import annotations

import math

import numpy as np

PATTERNS = (
    "dense", "strided", "fixed", "star", "window", "longformer", "bigbird", "random",
    "causal_strided",
)

#: Parameters each pattern accepts (with their defaults; ``None`` = depends on ``n``).
_PARAMS: dict[str, dict[str, int | None]] = {
    "dense": {},
    "strided": {"w": None},
    "fixed": {"w": None},
    "star": {},
    "window": {"w": 1},
    "longformer": {"w": 2, "g": 1},
    "bigbird": {"w": 1, "g": 1, "r": 2},
    "random": {"r": 3, "p": 1},
    "causal_strided": {"w": None},
}
_NEEDS_RNG = ("bigbird", "random")


def check_pattern_name(name: str) -> str:
    """Return ``name`` if it is a known pattern, else raise ``ValueError`` listing ``PATTERNS``."""
    if name not in PATTERNS:
        raise ValueError(f"unknown sparse pattern {name!r}; known patterns: {', '.join(PATTERNS)}")
    return name


def _params(name: str, n: int, given: dict) -> dict[str, int]:
    unknown = sorted(set(given) - set(_PARAMS[name]))
    if unknown:
        allowed = ", ".join(_PARAMS[name]) or "none"
        raise ValueError(f"pattern {name!r}: unknown parameter(s) {', '.join(unknown)}; "
                         f"allowed: {allowed}")
    out = {}
    for key, default in _PARAMS[name].items():
        value = given.get(key, default)
        if value is None:
            value = max(1, math.ceil(math.sqrt(n)))
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise ValueError(f"pattern {name!r}: parameter {key} must be an integer, got {value!r}")
        lowest = 0 if key in ("g", "r") else 1
        if value < lowest:
            raise ValueError(f"pattern {name!r}: parameter {key} must be >= {lowest}, got {value}")
        out[key] = int(value)
    if "g" in out and out["g"] > n:
        raise ValueError(f"pattern {name!r}: g = {out['g']} global tokens exceed n = {n}")
    return out


def _band(n: int, lo: int, hi: int) -> np.ndarray:
    """``M[k, j] = (k - lo <= j <= k + hi)``."""
    diff = np.arange(n)[None, :] - np.arange(n)[:, None]
    return (diff >= -lo) & (diff <= hi)


def _random_keys(n: int, r: int, rng: np.random.Generator) -> np.ndarray:
    """Each query gets ``min(r, n - 1)`` distinct random keys other than itself."""
    M = np.zeros((n, n), dtype=bool)
    r = min(r, n - 1)
    if r == 0:
        return M
    # A random permutation of the other keys per row: argsort of uniform noise with self last.
    noise = rng.random((n, n))
    noise[np.arange(n), np.arange(n)] = 2.0
    keys = np.argsort(noise, axis=1)[:, :r]
    M[np.arange(n)[:, None], keys] = True
    return M


def pattern_masks(name: str, n: int, rng: np.random.Generator | None = None,
                  **params) -> list[np.ndarray]:
    """The cycle of ``p`` boolean masks ``(n, n)`` of pattern ``name`` for length ``n``.

    ``mask[k, j]`` is True iff query ``k`` may attend key ``j``; every mask has self-loops. Unknown
    names or parameters raise ``ValueError`` before anything is built; ``random`` and ``bigbird``
    need ``rng``. See the module docstring for the index sets and the defaults.
    """
    check_pattern_name(name)
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"sequence length n must be a positive integer, got {n!r}")
    n = int(n)
    prm = _params(name, n, params)
    if name in _NEEDS_RNG and rng is None:
        raise ValueError(f"pattern {name!r} is random: pass rng=numpy.random.Generator")
    eye = np.eye(n, dtype=bool)
    idx = np.arange(n)
    if name == "dense":
        masks = [np.ones((n, n), dtype=bool)]
    elif name == "strided":
        w = prm["w"]
        stride = ((idx[None, :] - idx[:, None]) % w) == 0
        masks = [_band(n, math.ceil(w / 2), w // 2), stride]
    elif name == "fixed":
        w = prm["w"]
        block = (idx[:, None] // w) == (idx[None, :] // w)
        summary = (idx % w == w - 1) | (idx == n - 1)
        masks = [block, np.broadcast_to(summary, (n, n)) | eye]
    elif name == "star":
        M = eye.copy()
        if n > 1:
            ring = n - 1
            k = np.arange(ring)
            M[k, (k - 1) % ring] = True
            M[k, (k + 1) % ring] = True
            M[:, n - 1] = True
            M[n - 1, :] = True
        masks = [M]
    elif name == "window":
        masks = [_band(n, prm["w"], prm["w"])]
    elif name in ("longformer", "bigbird"):
        M = _band(n, prm["w"], prm["w"])
        M[: prm["g"], :] = True
        M[:, : prm["g"]] = True
        if name == "bigbird":
            M |= _random_keys(n, prm["r"], rng)
        masks = [M]
    elif name == "random":
        masks = [eye | _random_keys(n, prm["r"], rng) for _ in range(prm["p"])]
    else:  # causal_strided
        w = prm["w"]
        diff = idx[:, None] - idx[None, :]
        masks = [(diff >= 0) & (diff < w), (diff >= 0) & (diff % w == 0)]
    return [np.ascontiguousarray(m, dtype=bool) for m in masks]


def _check_masks(masks) -> list[np.ndarray]:
    masks = [np.asarray(m, dtype=bool) for m in masks]
    if not masks:
        raise ValueError("a pattern needs at least one mask")
    n = masks[0].shape[0]
    for i, m in enumerate(masks):
        if m.shape != (n, n):
            raise ValueError(f"mask {i} has shape {m.shape}; expected ({n}, {n})")
    return masks


def reach_steps(masks, max_layers: int | None = None) -> int | None:
    """Condition 3: the smallest ``s`` with ``S_k^s = [n]`` for every ``k``, or ``None``.

    ``S^t`` is kept as packed bit rows; ``S^t_k`` is the OR of the rows ``S^{t-1}_j`` over
    ``j in A_k^{l_t}`` (``l_t = (t-1) mod p``). With self-loops the sets only grow, so an unchanged
    full cycle proves that ``s`` does not exist; otherwise the search stops at ``max_layers``
    (default ``4 n p``) and returns ``None``.
    """
    masks = _check_masks(masks)
    n, p = masks[0].shape[0], len(masks)
    cap = 4 * n * p if max_layers is None else max_layers
    full = np.packbits(np.ones(n, dtype=bool))
    # CSR form of each mask: attended keys per query.
    csr = []
    for m in masks:
        rows, cols = np.nonzero(m)
        starts = np.searchsorted(rows, np.arange(n))
        csr.append((cols, starts))
    monotone = all(np.all(np.diag(m)) for m in masks)
    S = np.packbits(masks[0], axis=1)
    t = 1
    last_change = 1
    while True:
        if np.array_equal(S, np.broadcast_to(full, S.shape)):
            return t
        if t >= cap or (monotone and t - last_change >= p):
            return None
        cols, starts = csr[t % p]
        new = np.bitwise_or.reduceat(S[cols], starts, axis=0)
        if not np.array_equal(new, S):
            last_change = t + 1
        S = new
        t += 1


def hamiltonian_path(masks, budget: int | None = None) -> tuple[bool | None, list[int] | None]:
    """Condition 2 on the union graph: ``(found, gamma)``.

    ``gamma`` orders the tokens so that ``gamma[i+1]`` attends ``gamma[i]``. The identity and the
    reversed order are tried first, then a depth-first search with Warnsdorff's rule (fewest onward
    moves first) limited to ``budget`` node expansions (default ``200 n``). Returns ``(False,
    None)`` when impossibility is proved (more than one token attended by no other token, or more
    than one token attending no other token), ``(None, None)`` when the search ran out of budget.
    """
    masks = _check_masks(masks)
    n = masks[0].shape[0]
    U = np.logical_or.reduce(masks)
    if n == 1:
        return True, [0]
    # succ[i] = tokens that attend i (they may follow i on the path).
    off = U & ~np.eye(n, dtype=bool)
    if np.all(off[np.arange(1, n), np.arange(n - 1)]):
        return True, list(range(n))
    if np.all(off[np.arange(n - 1), np.arange(1, n)]):
        return True, list(range(n - 1, -1, -1))
    attended = off.any(axis=0)      # attended by some other token: can precede someone
    attends = off.any(axis=1)       # attends some other token: can follow someone
    if (~attended).sum() > 1 or (~attends).sum() > 1:
        return False, None
    succ = [np.flatnonzero(off[:, i]) for i in range(n)]
    budget = 200 * n if budget is None else budget
    expansions = 0
    starts = [int(np.flatnonzero(~attends)[0])] if (~attends).any() else range(n)
    for start in starts:
        visited = np.zeros(n, dtype=bool)
        visited[start] = True
        path = [start]
        stack = [iter(_ordered(succ[start], succ, visited))]
        while stack:
            if len(path) == n:
                return True, path
            nxt = next(stack[-1], None)
            if nxt is None:
                stack.pop()
                visited[path.pop()] = False
                continue
            expansions += 1
            if expansions > budget:
                return None, None
            visited[nxt] = True
            path.append(nxt)
            stack.append(iter(_ordered(succ[nxt], succ, visited)))
    return False, None


def _ordered(candidates, succ, visited) -> list[int]:
    free = [int(c) for c in candidates if not visited[c]]
    return sorted(free, key=lambda c: int(np.sum(~visited[succ[c]])))


def assumption1(masks, max_layers: int | None = None) -> dict:
    """The three conditions of Assumption 1 (Yun et al. 2020b) for the cycle ``masks``.

    Returns ``{"n", "p", "self_loops": bool, "hamiltonian_path": bool | None (None: undecided
    within the search budget), "path": list | None, "s": int | None (layers until every token has
    reached every token; None if never), "connections": [mask.sum() per pattern],
    "connections_max": int, "density_max": max connections / n^2, "satisfied": bool}``.
    """
    masks = _check_masks(masks)
    n = masks[0].shape[0]
    self_loops = bool(all(np.all(np.diag(m)) for m in masks))
    ham, path = hamiltonian_path(masks)
    s = reach_steps(masks, max_layers=max_layers)
    conns = [int(m.sum()) for m in masks]
    return {
        "n": n,
        "p": len(masks),
        "self_loops": self_loops,
        "hamiltonian_path": ham,
        "path": path,
        "s": s,
        "connections": conns,
        "connections_max": max(conns),
        "density_max": max(conns) / n**2,
        "satisfied": bool(self_loops and ham is True and s is not None),
    }


def assumption_table(n: int, names, rng: np.random.Generator) -> list[dict]:
    """One row per pattern at length ``n``: Assumption 1 and the connections."""
    for name in names:
        check_pattern_name(name)
    rows = []
    for name in names:
        a = assumption1(pattern_masks(name, n, rng=rng))
        rows.append({
            "pattern": name, "n": n, "p": a["p"], "self_loops": a["self_loops"],
            "hamiltonian_path": "undecided" if a["hamiltonian_path"] is None
            else str(a["hamiltonian_path"]).lower(),
            "s": -1 if a["s"] is None else a["s"], "satisfied": a["satisfied"],
            "connections_max": a["connections_max"],
            "connections_total": int(sum(a["connections"])),
            "density_max": a["density_max"],
        })
    return rows
