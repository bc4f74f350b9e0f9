"""Sparse attention patterns of Yun et al. (2020b) and the models they survey.

A sparse Transformer of Yun et al. (2020b, "O(n) connections are expressive enough") lets query
``k`` of layer ``l`` attend only the keys in an index set ``A_k^l``, and the sets repeat in a cycle
of ``p`` patterns ``A^1, ..., A^p``. Here a pattern is a boolean mask ``M: (n, n)`` with
``M[k, j]`` True iff query ``k`` may attend key ``j`` (tokens are rows, 0-indexed), directly usable
as ``expressivity.attention.self_attention(X, heads, mask=M)`` and as a torch boolean mask. The
conditions a cycle must meet (Assumption 1) are checked in ``expressivity.assumption1``.

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
  j <= k}``, ``A^2_k = {j <= k : (k - j) mod w = 0}``. Causal masks cannot satisfy Assumption 1.3
  (token 0 never sees a later token).

The construction of the patterns with these defaults is ours where the notes mark the paper's
exact index sets as recalled [M].
"""

from __future__ import annotations

import math

import numpy as np

from expressivity.arguments import integer

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
        out[key] = integer(f"pattern {name!r}: parameter {key}", value,
                           0 if key in ("g", "r") else 1)
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
    n = integer("sequence length n", n, 1)
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
