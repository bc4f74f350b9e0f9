"""Small trainable transformer layers in PyTorch (tokens are rows: ``X: (B, n, d)``).

Row form of one self-attention layer (Yun et al. 2020a, eq. (1); Kajitsuka & Sato 2024, Sec. 2), as
in ``expressivity.attention``: with ``Q = X W_Q``, ``K = X W_K``, ``V = X W_V`` per head,

    F(X) = X + sum_h sigma_rows(lam_h Q_h K_h^T) V_h W_O^h.

Modules here:

- ``TiedAttention``: ``W_Q = W_K = W_V = w_h: (d, s)`` tied per head, a learned inverse temperature
  ``lam_h = exp(log_lam_h)`` and a separate ``W_O^h: (s, d)``. With one head of size ``s = 1`` every
  weight matrix has rank 1: the model of Kajitsuka & Sato 2024, Thm 2 (rank-1 weights; their
  construction uses ``W_K = v^T``, ``W_Q = lam v^T``, ``W_V = v^T``, notes Sec. 3.2, [R]). The tied
  experiment is our reconstruction of their Sec. 6 (notes Sec. 6.3, [D]): the paper's
  hyper-parameters were not retrievable. The normaliser ``sigma`` is softmax, hardmax (exact, ties
  averaged; trained with the straight-through estimator: hardmax forward, softmax gradient) or
  uniform (``lam = 0``, mean pooling).
- ``TokenClassifier``: ``TiedAttention`` (or none) followed by a two-layer ReLU network of width
  ``q`` whose output layer is the per-token classifier, ``logits = ReLU(H W_1 + b_1) W_2 + b_2``
  (the FFN ``F^(FF)`` of the paper, with its output read as class scores). Both hold ``R``
  independent replicas (one per training seed, the leading dimension of every parameter), so that
  the seeds of a full-batch run train side by side in one pass.
- ``MaskedSelfAttention``, ``BilinearProjection``, ``DepthwiseSeparableConv``: the token-mixing
  layers compared by Yun et al. 2020a, Sec. 5 (bilinear projection ``X + W_O X W_P`` in column form
  becomes ``X + W_P^T X W_O^T`` in row form; depth-wise separable convolution after Kaiser et al.
  2017), and sparse attention with a boolean mask (Yun et al. 2020b: ``mask[k, j]`` True iff query
  ``k`` may attend key ``j``).
- ``SequenceEncoder``: token + learned positional embedding, then pre-LayerNorm residual blocks
  ``X + Mix(LN(X))``, ``X + FFN(LN(X))``, and a per-token linear readout. LayerNorm is not in the
  papers' definitions (they omit it); we add it so that small models train reliably (ours, [O]).
  ``hybrid_mixers`` lists the layers of Yun et al. 2020a's hybrids: alternatives below attention.
  Its seeds train side by side through ``torch.func`` (``expressivity.training``).
"""

from __future__ import annotations

import math

import numpy as np
import torch
from torch import nn

from expressivity.arguments import finite_array, integer

SIGMAS = ("softmax", "hardmax", "uniform")
MIXERS = ("attention", "bilinear", "conv")


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


def _normalise(S: torch.Tensor, sigma: str, mask: torch.Tensor | None = None) -> torch.Tensor:
    """Row-stochastic weights from scores ``S: (..., n, n)``.

    ``softmax``: differentiable. ``hardmax``: the forward value is the exact hardmax, the gradient
    that of the softmax (straight-through estimator, Bengio et al. 2013), so a model can be *trained*
    with hardmax attention; its outputs are hardmax outputs. ``uniform``: every allowed key gets the
    same weight (``lam = 0``: mean pooling, the attention Kajitsuka & Sato's Theorem 2 rules out).
    """
    if sigma not in SIGMAS:
        raise ValueError(f"unknown attention normaliser {sigma!r}; use one of {', '.join(SIGMAS)}")
    if sigma == "uniform":
        S = torch.zeros_like(S)
    if mask is not None:
        S = S.masked_fill(~mask, float("-inf"))
    soft = torch.softmax(S, dim=-1)
    if sigma == "uniform":
        return soft
    if sigma == "softmax":
        return soft
    return soft + (_hardmax(S.detach()) - soft).detach()


class TiedAttention(nn.Module):
    """``R`` independent replicas of multi-head self-attention with ``W_Q = W_K = W_V = w_h`` tied.

    ``F(X) = X + sum_h sigma(lam_h (X w_h)(X w_h)^T) (X w_h) W_O^h`` with ``X: (B, n, d)``,
    ``w: (R, h, d, s)``, ``W_O: (R, h, s, d)``, ``lam_h = exp(log_lam_h) > 0``; the output is
    ``(R, B, n, d)``, one layer per replica (replicas are trained side by side, one per seed: they
    share no parameter, so their gradients and Adam updates are independent).

    ``w_fixed`` (shape ``(h, d, s)``, the same for every replica) freezes ``w`` at given values (the
    ablation "projection vector fixed at the construction's value"); the temperature and ``W_O``
    stay trainable. ``seeds`` (one per replica) draw each replica's initial weights.
    """

    def __init__(self, d: int, heads: int = 1, head_size: int = 1,
                 w_fixed: np.ndarray | None = None, dtype=torch.float64,
                 seeds: tuple[int, ...] = (0,)):
        super().__init__()
        d, heads = integer("d", d, 1), integer("heads", heads, 1)
        head_size, seeds = integer("head_size", head_size, 1), check_seeds(seeds)
        self.d, self.heads, self.head_size = d, heads, head_size
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
            fixed = torch.as_tensor(w_fixed, dtype=dtype)
            self.register_buffer("w", fixed.expand(len(seeds), *fixed.shape).clone())
        self.log_lam = nn.Parameter(torch.zeros(len(seeds), heads, dtype=dtype))
        self.W_O = nn.Parameter(torch.stack(W_O))

    def weights(self, X: torch.Tensor, sigma: str = "softmax") -> torch.Tensor:
        """Attention weights ``(R, B, h, n, n)``: row ``k`` holds query ``k``'s weights."""
        return self._weights(self._project(X), sigma)

    def _project(self, X: torch.Tensor) -> torch.Tensor:
        _check_tokens_in(X, self.d)
        return torch.einsum("bnd,rhds->rbhns", X, self.w)

    def _weights(self, Z: torch.Tensor, sigma: str) -> torch.Tensor:
        lam = torch.exp(self.log_lam)[:, None, :, None, None]
        return _normalise(lam * (Z @ Z.transpose(-1, -2)), sigma)

    def forward(self, X: torch.Tensor, sigma: str = "softmax") -> torch.Tensor:
        Z = self._project(X)
        A = self._weights(Z, sigma)
        return X + torch.einsum("rbhnm,rbhms,rhsd->rbnd", A, Z, self.W_O)


class TokenClassifier(nn.Module):
    """``R`` replicas of one layer ``F^(FF) o F^(SA)`` of Kajitsuka & Sato 2024 read out per token.

    ``X: (B, n, d) -> logits: (R, B, n, C)``: ``H = TiedAttention(X)`` (or ``H = X`` when
    ``heads = 0``: the attention-free, token-wise baseline), then
    ``logits = ReLU(H W_1 + b_1) W_2 + b_2`` with ``W_1: (d, q)``, ``W_2: (q, C)`` per replica
    (initialised as ``torch.nn.Linear``: uniform in ``+-1/sqrt(fan_in)``). ``sigma`` picks the
    attention normaliser (``SIGMAS``); ``seeds`` has one seed per replica.
    """

    def __init__(self, d: int, n_classes: int, width: int, heads: int = 1, head_size: int = 1,
                 w_fixed: np.ndarray | None = None, dtype=torch.float64,
                 seeds: tuple[int, ...] = (0,)):
        super().__init__()
        d, width = integer("d", d, 1), integer("width", width, 1)
        n_classes, heads = integer("n_classes", n_classes, 1), integer("heads", heads, 0)
        seeds = check_seeds(seeds)
        self.d = d
        self.attention = (TiedAttention(d, heads, head_size, w_fixed, dtype, seeds) if heads > 0
                          else None)
        params = {"W_1": [], "b_1": [], "W_2": [], "b_2": []}
        for seed in seeds:
            gen = torch.Generator().manual_seed(int(seed) + 1)
            for name, shape, fan_in in (("W_1", (d, width), d), ("b_1", (width,), d),
                                        ("W_2", (width, n_classes), width),
                                        ("b_2", (n_classes,), width)):
                u = torch.rand(shape, generator=gen, dtype=dtype)
                params[name].append((2 * u - 1) / math.sqrt(fan_in))
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
        hidden = torch.relu(torch.einsum("rbnd,rdq->rbnq", H, self.W_1)
                            + self.b_1[:, None, None, :])
        return torch.einsum("rbnq,rqc->rbnc", hidden, self.W_2) + self.b_2[:, None, None, :]

    def ffn_parameters(self) -> int:
        """Weights and biases of one replica's ReLU network (``q(d + 1) + (q + 1) C``)."""
        return sum(p[0].numel() for p in (self.W_1, self.b_1, self.W_2, self.b_2))

    def attention_parameters(self) -> int:
        """Trainable attention parameters of one replica (``w`` counts only when learned)."""
        if self.attention is None:
            return 0
        return sum(p[0].numel() for p in self.attention.parameters())


class MaskedSelfAttention(nn.Module):
    """Standard multi-head softmax attention, scores scaled by ``1/sqrt(d_head)``, optional mask.

    ``mask: (n, n)`` boolean, ``mask[k, j]`` True iff query ``k`` may attend key ``j`` (sparse
    attention of Yun et al. 2020b; every row must allow a key). Returns ``sum_h A_h V_h W_O^h``
    (the residual is added by the block).
    """

    def __init__(self, d_model: int, heads: int, mask: np.ndarray | None = None):
        super().__init__()
        d_model, heads = integer("d_model", d_model, 1), integer("heads", heads, 1)
        if d_model % heads:
            raise ValueError(f"d_model={d_model} is not divisible by heads={heads}")
        self.heads = heads
        self.qkv = nn.Linear(d_model, 3 * d_model, bias=False)
        self.out = nn.Linear(d_model, d_model, bias=False)
        if mask is not None:
            mask = np.asarray(mask, dtype=bool)
            if not mask.any(axis=1).all():
                raise ValueError(f"mask row {int(np.flatnonzero(~mask.any(axis=1))[0])} attends "
                                 "to no key")
            self.register_buffer("mask", torch.as_tensor(mask))
        else:
            self.mask = None

    def forward(self, X: torch.Tensor) -> torch.Tensor:
        B, n, d = X.shape
        q, k, v = self.qkv(X).view(B, n, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        S = q @ k.transpose(-1, -2) / math.sqrt(d // self.heads)
        A = _normalise(S, "softmax", self.mask)
        return self.out((A @ v).transpose(1, 2).reshape(B, n, d))


class BilinearProjection(nn.Module):
    """Yun et al. 2020a, Sec. 5: ``BProj(Z) = W_O Z W_P`` (column form, ``Z: (d, n)``).

    Row form ``X = Z^T: (B, n, d)``: ``W_P^T X W_O^T``; ``W_P: (n, n)`` mixes tokens with weights
    that do not depend on the input (not permutation equivariant), ``W_O: (d, d)``.
    """

    def __init__(self, n: int, d_model: int):
        super().__init__()
        n, d_model = integer("n", n, 1), integer("d_model", d_model, 1)
        self.W_P = nn.Parameter(torch.eye(n) + torch.randn(n, n) / math.sqrt(n))
        self.out = nn.Linear(d_model, d_model, bias=False)

    def forward(self, X: torch.Tensor) -> torch.Tensor:
        return self.out(torch.einsum("jk,bjd->bkd", self.W_P, X))


class DepthwiseSeparableConv(nn.Module):
    """Depth-wise separable 1-d convolution (Kaiser et al. 2017): a per-channel convolution of
    odd width ``kernel`` along the tokens (zero padding, same length), then a point-wise linear map.
    """

    def __init__(self, d_model: int, kernel: int):
        super().__init__()
        d_model = integer("d_model", d_model, 1)
        if integer("kernel", kernel, 1) % 2 == 0:
            raise ValueError(f"kernel must be a positive odd integer, got {kernel}")
        self.depthwise = nn.Conv1d(d_model, d_model, kernel, padding=kernel // 2, groups=d_model)
        self.pointwise = nn.Linear(d_model, d_model)

    def forward(self, X: torch.Tensor) -> torch.Tensor:
        return self.pointwise(self.depthwise(X.transpose(1, 2)).transpose(1, 2))


class SequenceEncoder(nn.Module):
    """Embedding + learned positions, ``len(mixers)`` pre-LN residual blocks, per-token readout.

    ``mixers[l]`` is ``"attention"``, ``"bilinear"`` or ``"conv"``; ``masks[l]`` (attention only,
    optional) is layer ``l``'s sparse pattern. ``tokens: (B, n)`` int -> ``logits: (B, n, n_out)``.
    """

    def __init__(self, vocab: int, n: int, d_model: int, mixers: list[str], n_out: int,
                 heads: int = 2, ffn_width: int | None = None, masks: list | None = None,
                 kernel: int = 3):
        super().__init__()
        vocab, n = integer("vocab", vocab, 1), integer("n", n, 1)
        d_model, n_out = integer("d_model", d_model, 1), integer("n_out", n_out, 1)
        if not mixers:
            raise ValueError("mixers must name at least one layer, got none")
        unknown = [m for m in mixers if m not in MIXERS]
        if unknown:
            raise ValueError(f"unknown mixer {unknown[0]!r}; use one of {', '.join(MIXERS)}")
        if masks is not None and len(masks) != len(mixers):
            raise ValueError(f"{len(masks)} masks for {len(mixers)} layers")
        for layer, mask in enumerate(masks or []):
            if mask is not None and np.shape(mask) != (n, n):
                raise ValueError(f"masks[{layer}] has shape {np.shape(mask)}; expected ({n}, {n})")
        ffn_width = 2 * d_model if ffn_width is None else integer("ffn_width", ffn_width, 1)
        self.n, self.vocab = n, vocab
        self.embed = nn.Embedding(vocab, d_model)
        self.position = nn.Parameter(torch.randn(n, d_model) / math.sqrt(d_model))
        self.mix, self.ffn = nn.ModuleList(), nn.ModuleList()
        self.norm1, self.norm2 = nn.ModuleList(), nn.ModuleList()
        for layer, kind in enumerate(mixers):
            if kind == "attention":
                mask = None if masks is None else masks[layer]
                self.mix.append(MaskedSelfAttention(d_model, heads, mask))
            elif kind == "bilinear":
                self.mix.append(BilinearProjection(n, d_model))
            else:
                self.mix.append(DepthwiseSeparableConv(d_model, kernel))
            self.ffn.append(nn.Sequential(nn.Linear(d_model, ffn_width), nn.ReLU(),
                                          nn.Linear(ffn_width, d_model)))
            self.norm1.append(nn.LayerNorm(d_model))
            self.norm2.append(nn.LayerNorm(d_model))
        self.final_norm = nn.LayerNorm(d_model)
        self.readout = nn.Linear(d_model, n_out)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        if tokens.shape[-1] != self.n:
            raise ValueError(f"tokens: sequences have length {tokens.shape[-1]}; the model "
                             f"expects {self.n}")
        if tokens.dtype.is_floating_point or tokens.dtype == torch.bool:
            # (their range is not checked here: a data-dependent test breaks torch.func.vmap)
            raise ValueError(f"tokens must be integer token ids in 0..{self.vocab - 1}, got "
                             f"dtype {tokens.dtype}")
        X = self.embed(tokens) + self.position
        for mix, ffn, n1, n2 in zip(self.mix, self.ffn, self.norm1, self.norm2, strict=True):
            X = X + mix(n1(X))
            X = X + ffn(n2(X))
        return self.readout(self.final_norm(X))


def hybrid_mixers(alternative: str, attention_layers: int, depth: int) -> list[str]:
    """``depth`` layers: ``depth - k`` of ``alternative`` below ``k`` attention layers on top."""
    if alternative not in MIXERS:
        raise ValueError(f"unknown alternative {alternative!r}; use one of {', '.join(MIXERS)}")
    depth = integer("depth", depth, 1)
    integer("attention_layers", attention_layers, 0, depth)
    return [alternative] * (depth - attention_layers) + ["attention"] * attention_layers
