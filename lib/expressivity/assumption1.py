"""Assumption 1 of Yun et al. (2020b): the conditions a cycle of sparse patterns must meet.

A sparse Transformer lets query ``k`` of layer ``l`` attend only the keys in ``A_k^l``, the sets
repeating in a cycle of ``p`` patterns ``A^1, ..., A^p`` (boolean masks ``M: (n, n)``, ``M[k, j]``
True iff query ``k`` may attend key ``j``; built in ``expressivity.sparse_patterns``).

Assumption 1 (recalled [M] from Yun et al. 2020b; see shared/papers/yun_fang.md section 2):

1. self-loops: ``k in A_k^l`` for every ``k`` and ``l``;
2. Hamiltonian path: a permutation ``gamma`` with ``gamma(i) in union_l A^l_{gamma(i+1)}`` for
   ``i = 1..n-1`` (each token on the path attends its predecessor in some pattern);
3. reachability: with ``S_k^1 = A_k^1`` and ``S_k^t = union_{j in A_k^{(t-1) mod p + 1}} S_j^{t-1}``
   there is a finite ``s`` with ``S_k^s = [n]`` for all ``k`` (after ``s`` layers every token has
   heard from every token).
"""

from __future__ import annotations

import numpy as np

from expressivity.arguments import integer


def _check_masks(masks) -> list[np.ndarray]:
    """``masks`` as boolean ``(n, n)`` arrays, ``n >= 1``; a ``ValueError`` naming the mask that
    is not square, not of the first one's size, or holds values other than 0/1 (NaN included)."""
    if isinstance(masks, np.ndarray) and masks.ndim == 2:
        raise ValueError("masks must be a list of (n, n) masks (the cycle), got one 2-d array; "
                         "wrap it in a list")
    raw = [np.asarray(m) for m in masks]
    if not raw:
        raise ValueError("a pattern needs at least one mask")
    n = raw[0].shape[0] if raw[0].ndim else 0
    if n < 1:
        raise ValueError(f"masks[0] has shape {raw[0].shape}; a mask is (n, n) with n >= 1")
    for i, m in enumerate(raw):
        if m.shape != (n, n):
            raise ValueError(f"masks[{i}] has shape {m.shape}; expected ({n}, {n})")
        if m.dtype != bool and not np.isin(m, (0, 1)).all():
            raise ValueError(f"masks[{i}] must be boolean (or 0/1), got other values")
    return [m.astype(bool) for m in raw]


def reach_steps(masks, max_layers: int | None = None) -> int | None:
    """Condition 3: the smallest ``s`` with ``S_k^s = [n]`` for every ``k``, or ``None``.

    ``S^t`` is kept as packed bit rows; ``S^t_k`` is the OR of the rows ``S^{t-1}_j`` over
    ``j in A_k^{l_t}`` (``l_t = (t-1) mod p``). With self-loops the sets only grow, so an unchanged
    full cycle proves that ``s`` does not exist; otherwise the search stops at ``max_layers``
    (default ``4 n p``) and returns ``None``. A query that attends no key in some pattern has an
    empty set after that layer.
    """
    masks = _check_masks(masks)
    n, p = masks[0].shape[0], len(masks)
    if max_layers is not None:
        integer("max_layers", max_layers, 1)
    cap = 4 * n * p if max_layers is None else max_layers
    full = np.packbits(np.ones(n, dtype=bool))
    # CSR form of each mask over the queries that attend some key (numpy's reduceat mishandles
    # empty segments); a query that attends no key hears nothing: ``S^t_k`` is empty.
    csr = []
    for m in masks:
        rows, cols = np.nonzero(m)
        attends = m.any(axis=1)
        csr.append((cols, np.searchsorted(rows, np.flatnonzero(attends)), attends))
    monotone = all(np.all(np.diag(m)) for m in masks)
    S = np.packbits(masks[0], axis=1)
    t = 1
    last_change = 1
    while True:
        if np.array_equal(S, np.broadcast_to(full, S.shape)):
            return t
        if t >= cap or (monotone and t - last_change >= p):
            return None
        cols, starts, attends = csr[t % p]
        new = np.zeros_like(S)
        if cols.size:
            new[attends] = np.bitwise_or.reduceat(S[cols], starts, axis=0)
        if not np.array_equal(new, S):
            last_change = t + 1
        S = new
        t += 1


def heard_from(layers) -> np.ndarray:
    """Condition 3's sets after the given layers, as an encoder with residual connections computes
    them: ``H[k, j]`` True iff token ``j`` can reach position ``k``'s output through ``layers``
    (one mask per layer, bottom first; ``(n, n)``, or ``(heads, n, n)``, whose union over the
    heads routes), ``S_k^t = {k} | union_{j in A_k^t} S_j^{t-1}``, ``S_k^0 = {k}``.

    The residual ``X + Attn(X)`` keeps each position's own state, so ``k`` is in its own set
    whatever the mask (Assumption 1's self-loops hold by construction). A position's output is a
    function of the tokens in its set alone (the embedding, the layer norms and the feed-forward
    maps act position by position), so a token outside it cannot inform it (ours [D])."""
    if isinstance(layers, np.ndarray) and layers.ndim == 2:
        raise ValueError("layers must be a list of masks, one per layer, got one 2-d array; "
                         "wrap it in a list")
    routes = _check_masks([np.asarray(m).any(axis=0) if np.ndim(m) == 3 else m for m in layers])
    n = routes[0].shape[0]
    heard = np.eye(n, dtype=bool)
    for mask in routes:
        heard = ((mask | np.eye(n, dtype=bool)).astype(np.int64) @ heard) > 0
    return heard


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
    if budget is not None:
        integer("budget", budget, 1)
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
