"""Small trainable transformer layers in PyTorch (tokens are rows: ``X: (B, n, d)``).

Row form of one self-attention layer (Yun et al. 2020a, eq. (1); Kajitsuka & Sato 2024, Sec. 2), as
in ``expressivity.attention``: with ``Q = X W_Q``, ``K = X W_K``, ``V = X W_V`` per head,

    F(X) = X + sum_h sigma_rows(lam_h Q_h K_h^T) V_h W_O^h.

Modules here:

- ``TiedAttention``: ``W_Q = W_K = W_V = w_h: (d, s)`` tied per head (optionally causal), a learned
  inverse temperature ``lam_h = exp(log_lam_h)`` and a separate ``W_O^h: (s, d)``. With one head of
  size ``s = 1`` every weight matrix has rank 1: the model of Kajitsuka & Sato 2024, Thm 2 (rank-1
  weights; their construction uses ``W_K = v^T``, ``W_Q = lam v^T``, ``W_V = v^T``, notes Sec. 3.2,
  [R]). The tied experiment is our reconstruction of their Sec. 6 (notes Sec. 6.3, [D]): the paper's
  hyper-parameters were not retrievable. The normaliser ``sigma`` is softmax, hardmax (exact, ties
  averaged; trained with the straight-through estimator: hardmax forward, softmax gradient) or
  uniform (``lam = 0``, mean pooling).
- ``TokenClassifier``: ``TiedAttention`` (or none) followed by a two-layer ReLU network of width
  ``q`` whose output layer is the per-token classifier, ``logits = ReLU(H W_1 + b_1) W_2 + b_2``
  (the FFN ``F^(FF)`` of the paper, with its output read as class scores). Both hold ``R``
  independent replicas (one per training seed, the leading dimension of every parameter), so that
  the seeds of a full-batch run train side by side in one pass; buffers (a fixed ``w``) are
  shared by the replicas. Replicas may differ in width: a narrower one is zero-padded to the
  widest, and its padded units stay zero in training (a unit with no weights in or out has no
  activation and no gradient), so it computes its own width's network.

The sequence encoders of the copying and token-mixing experiments are in
``expressivity.sequence_encoder``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import torch
from torch import nn

from expressivity.arguments import finite_array, integer

SIGMAS = ("softmax", "hardmax", "uniform")


def check_seeds(seeds) -> tuple[int, ...]:
    """``seeds`` as a non-empty tuple of integers >= 0 (one per replica)."""
    seeds = tuple(seeds)
    if not seeds:
        raise ValueError("seeds must hold at least one seed (one per replica), got none")
    return tuple(integer(f"seeds[{i}]", s, 0) for i, s in enumerate(seeds))


def _check_tokens_in(X: torch.Tensor, d: int) -> None:
    """Token vectors ``X: (B, n, d)``."""
    if X.ndim != 3 or X.shape[-1] != d:
        raise ValueError(f"X must have shape (B, n, d) with d = {d}, got {tuple(X.shape)}")


def _hardmax(S: torch.Tensor) -> torch.Tensor:
    """Row-wise hardmax with exact tie averaging: each maximiser of a row gets ``1 / |argmax|``
    (Yun et al. 2020a convention; ``expressivity.attention.hardmax`` with ``tie_tol = 0``)."""
    winners = (S == S.amax(dim=-1, keepdim=True)).to(S.dtype)
    return winners / winners.sum(dim=-1, keepdim=True)


def _normalise(S: torch.Tensor, sigma: str, causal: bool = False) -> torch.Tensor:
    """Row-stochastic weights from scores ``S: (..., n, n)``.

    ``softmax``: differentiable. ``hardmax``: the forward value is the exact hardmax, the gradient
    that of the softmax (straight-through estimator, Bengio et al. 2013), so a model can be *trained*
    with hardmax attention; its outputs are hardmax outputs. ``uniform``: every allowed key gets the
    same weight (``lam = 0``: mean pooling, the attention Kajitsuka & Sato's Theorem 2 rules out).
    ``causal``: masked attention, row ``k`` allows the keys ``j <= k`` only (score ``-inf`` above
    the diagonal, so the three normalisers act on the prefix ``1..k``).
    """
    if sigma not in SIGMAS:
        raise ValueError(f"unknown attention normaliser {sigma!r}; use one of {', '.join(SIGMAS)}")
    if sigma == "uniform":
        S = torch.zeros_like(S)
    if causal:
        n = S.shape[-1]
        allowed = torch.ones(n, n, dtype=torch.bool, device=S.device).tril()
        S = S.masked_fill(~allowed, float("-inf"))
    soft = torch.softmax(S, dim=-1)
    if sigma != "hardmax":
        return soft
    return soft + (_hardmax(S.detach()) - soft).detach()


class TiedAttention(nn.Module):
    """``R`` independent replicas of multi-head self-attention with ``W_Q = W_K = W_V = w_h`` tied.

    ``F(X) = X + sum_h sigma(lam_h (X w_h)(X w_h)^T) (X w_h) W_O^h`` with ``X: (B, n, d)``,
    ``w: (R, h, d, s)``, ``W_O: (R, h, s, d)``, ``lam_h = exp(log_lam_h) > 0``; the output is
    ``(R, B, n, d)``, one layer per replica (replicas are trained side by side, one per seed: they
    share no parameter, so their gradients and Adam updates are independent).

    ``w_fixed`` (shape ``(h, d, s)``, a buffer shared by every replica) freezes ``w`` at given
    values (the ablation "projection vector fixed at the construction's value"); the temperature
    and ``W_O`` stay trainable. ``seeds`` (one per replica) draw each replica's initial weights.
    ``causal``: masked attention, query ``k`` attends to keys ``j <= k`` only (``_normalise``;
    Kajitsuka & Sato's extension to masked attention [V2], ``expressivity.rank1.layer``).
    """

    def __init__(self, d: int, heads: int = 1, head_size: int = 1,
                 w_fixed: np.ndarray | None = None, dtype=torch.float64,
                 seeds: tuple[int, ...] = (0,), causal: bool = False):
        super().__init__()
        d, heads = integer("d", d, 1), integer("heads", heads, 1)
        head_size, seeds = integer("head_size", head_size, 1), check_seeds(seeds)
        if not isinstance(causal, bool):
            raise ValueError(f"causal must be True or False, got {causal!r}")
        self.d, self.heads, self.head_size, self.causal = d, heads, head_size, causal
        w, W_O = [], []
        for seed in seeds:
            gen = torch.Generator().manual_seed(int(seed))
            w.append(torch.randn(heads, d, head_size, generator=gen, dtype=dtype) / math.sqrt(d))
            W_O.append(torch.randn(heads, head_size, d, generator=gen, dtype=dtype)
                       / math.sqrt(head_size))
        if w_fixed is None:
            self.w = nn.Parameter(torch.stack(w))
        else:
            w_fixed = finite_array("w_fixed", w_fixed)
            if w_fixed.shape != (heads, d, head_size):
                raise ValueError(f"w_fixed has shape {w_fixed.shape}; expected "
                                 f"{(heads, d, head_size)}")
            self.register_buffer("w", torch.as_tensor(w_fixed, dtype=dtype))
        self.log_lam = nn.Parameter(torch.zeros(len(seeds), heads, dtype=dtype))
        self.W_O = nn.Parameter(torch.stack(W_O))

    def weights(self, X: torch.Tensor, sigma: str = "softmax") -> torch.Tensor:
        """Attention weights ``(R, B, h, n, n)``: row ``k`` holds query ``k``'s weights."""
        return self._weights(self._project(X), sigma)

    def _project(self, X: torch.Tensor) -> torch.Tensor:
        """``Z = X w_h``: ``(R, B, h, n, s)`` (the fixed ``w`` is shared by the replicas)."""
        _check_tokens_in(X, self.d)
        (B, n, d), R, h, s = X.shape, self.replicas, self.heads, self.head_size
        w = self.w if self.w.ndim == 4 else self.w.expand(R, -1, -1, -1)
        # one product for every replica and head: (B n, d) (d, R h s)
        Z = X.reshape(B * n, d) @ w.permute(2, 0, 1, 3).reshape(d, R * h * s)
        return Z.view(B, n, R, h, s).permute(2, 0, 3, 1, 4)

    @property
    def replicas(self) -> int:
        return int(self.W_O.shape[0])

    def _weights(self, Z: torch.Tensor, sigma: str) -> torch.Tensor:
        lam = torch.exp(self.log_lam)[:, None, :, None, None]
        return _normalise(lam * (Z @ Z.transpose(-1, -2)), sigma, self.causal)

    def forward(self, X: torch.Tensor, sigma: str = "softmax") -> torch.Tensor:
        Z = self._project(X)
        R, B, h, n, s = Z.shape
        heads = (self._weights(Z, sigma) @ Z).transpose(2, 3).reshape(R, B * n, h * s)
        return X + torch.bmm(heads, self.W_O.reshape(R, h * s, self.d)).view(R, B, n, self.d)


def ffn_parameters(d: int, width: int, n_classes: int) -> int:
    """Weights and biases of the ReLU network ``ReLU(H W_1 + b_1) W_2 + b_2`` of width ``q``:
    ``q (d + 1) + (q + 1) C``."""
    return width * (d + 1) + (width + 1) * n_classes


def replica_widths(width: int | Sequence[int], replicas: int) -> tuple[int, ...]:
    """The FFN width of each of ``replicas`` replicas: ``width`` is one for all or one per
    replica, each an integer >= 1."""
    widths = list(width) if isinstance(width, (list, tuple)) else [width] * replicas
    if len(widths) != replicas:
        raise ValueError(f"width must be one integer or one per replica ({replicas}), got "
                         f"{len(widths)}")
    return tuple(integer("width", w, 1) for w in widths)


class TokenClassifier(nn.Module):
    """``R`` replicas of one layer ``F^(FF) o F^(SA)`` of Kajitsuka & Sato 2024 read out per token.

    ``X: (B, n, d) -> logits: (R, B, n, C)``: ``H = TiedAttention(X)`` (or ``H = X`` when
    ``heads = 0``: the attention-free, token-wise baseline), then
    ``logits = ReLU(H W_1 + b_1) W_2 + b_2`` with ``W_1: (d, q)``, ``W_2: (q, C)`` per replica
    (initialised as ``torch.nn.Linear``: uniform in ``+-1/sqrt(fan_in)``). ``width`` is one ``q``
    for every replica or one per replica (each drawn at its own width, then zero-padded to the
    widest: the module docstring). ``sigma`` picks the attention normaliser (``SIGMAS``); ``seeds``
    has one seed per replica; ``causal`` masks the attention (``TiedAttention``).
    """

    def __init__(self, d: int, n_classes: int, width: int | Sequence[int], heads: int = 1,
                 head_size: int = 1, w_fixed: np.ndarray | None = None, dtype=torch.float64,
                 seeds: tuple[int, ...] = (0,), causal: bool = False):
        super().__init__()
        d = integer("d", d, 1)
        n_classes, heads = integer("n_classes", n_classes, 1), integer("heads", heads, 0)
        seeds = check_seeds(seeds)
        self.d, self.n_classes = d, n_classes
        self.widths = replica_widths(width, len(seeds))
        self.attention = (TiedAttention(d, heads, head_size, w_fixed, dtype, seeds, causal)
                          if heads > 0 else None)
        params = {"W_1": [], "b_1": [], "W_2": [], "b_2": []}
        widest = max(self.widths)
        for seed, q in zip(seeds, self.widths, strict=True):
            gen = torch.Generator().manual_seed(int(seed) + 1)
            for name, shape, fan_in, pad in (("W_1", (d, q), d, (0, widest - q)),
                                             ("b_1", (q,), d, (0, widest - q)),
                                             ("W_2", (q, n_classes), q, (0, 0, 0, widest - q)),
                                             ("b_2", (n_classes,), q, (0, 0))):
                u = torch.rand(shape, generator=gen, dtype=dtype)
                params[name].append(nn.functional.pad((2 * u - 1) / math.sqrt(fan_in), pad))
        self.W_1, self.b_1, self.W_2, self.b_2 = (nn.Parameter(torch.stack(params[k]))
                                                  for k in ("W_1", "b_1", "W_2", "b_2"))

    @property
    def replicas(self) -> int:
        return int(self.W_1.shape[0])

    def forward(self, X: torch.Tensor, sigma: str = "softmax") -> torch.Tensor:
        _check_tokens_in(X, self.d)
        if self.attention is None:
            H = X.expand(self.replicas, *X.shape)
        else:
            H = self.attention(X, sigma)
        R, B, n, d = H.shape
        hidden = torch.relu(torch.baddbmm(self.b_1[:, None], H.reshape(R, B * n, d), self.W_1))
        return torch.baddbmm(self.b_2[:, None], hidden, self.W_2).view(R, B, n, -1)

    def ffn_parameters(self, replica: int = 0) -> int:
        """Weights and biases of replica ``replica``'s ReLU network at its own width
        (``ffn_parameters``; padding excluded)."""
        return ffn_parameters(self.d, self.widths[replica], self.n_classes)

    def attention_parameters(self) -> int:
        """Trainable attention parameters of one replica (``w`` counts only when learned)."""
        if self.attention is None:
            return 0
        return sum(p[0].numel() for p in self.attention.parameters())
