"""The sequence encoders of the trained-models stage, ``R`` independent replicas side by side.

Tokens are rows: a replica's batch is ``(B, n)`` token ids, its activations ``X: (B, n, d)``; every
tensor here carries the replica dimension first (``tokens: (R, B, n)``, ``X: (R, B, n, d)``, every
parameter ``(R, ...)``), one replica per training seed, and no parameter is shared, so each replica
is the model its seed alone would build and train (its initial weights come from its own generator,
drawn in a fixed order). One batched operation serves all replicas: no ``torch.vmap``.

- ``MaskedSelfAttention``: multi-head softmax attention, scores scaled by ``1/sqrt(d_head)``, with a
  boolean mask (Yun et al. 2020b: ``mask[k, j]`` True iff query ``k`` may attend key ``j``), one
  for all heads or one per head ``M_h``,
  ``sum_h softmax_{M_h}(Q_h K_h^T / sqrt(d_h)) V_h W_O^h`` (the residual is added by the block);
- ``BilinearProjection``: Yun et al. 2020a, Sec. 5, ``BProj(Z) = W_O Z W_P`` in column form
  (``Z: (d, n)``); in row form ``X = Z^T``: ``W_P^T X W_O^T``, token mixing with weights that do not
  depend on the input;
- ``DepthwiseSeparableConv``: a per-channel convolution of odd width ``k`` along the tokens (zero
  padding, same length), ``Y[i, c] = b_c + sum_t w[c, t] X[i + t - (k - 1)/2, c]``, then a
  point-wise linear map (Kaiser et al. 2017);
- ``SequenceEncoder``: token embedding + learned positions, pre-LayerNorm residual blocks
  ``X + Mix(LN(X))``, ``X + FFN(LN(X))``, and a per-token linear readout. LayerNorm is not in the
  papers' definitions (they omit it); we add it so that small models train reliably (ours, [O]).
  ``hybrid_mixers`` lists the layers of Yun et al. 2020a's hybrids: alternatives below attention.

Initialisation follows torch's defaults per replica: linear and convolution weights and biases
uniform in ``+-1/sqrt(fan_in)``, embeddings ``N(0, 1)``, LayerNorm ``(1, 0)``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from contextlib import nullcontext

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

from expressivity.arguments import integer
from expressivity.transformer_models import check_seeds

MIXERS = ("attention", "bilinear", "conv")


def generators(seeds) -> list[torch.Generator]:
    """One CPU generator per replica, seeded by its seed (checked by ``check_seeds``)."""
    return [torch.Generator().manual_seed(s) for s in check_seeds(seeds)]


def _uniform(gens: Sequence[torch.Generator], shape: tuple, bound: float) -> nn.Parameter:
    return nn.Parameter(torch.stack([(2 * torch.rand(shape, generator=g) - 1) * bound
                                     for g in gens]))


def _normal(gens: Sequence[torch.Generator], shape: tuple, std: float,
            mean: torch.Tensor | float = 0.0) -> nn.Parameter:
    return nn.Parameter(torch.stack([mean + std * torch.randn(shape, generator=g) for g in gens]))


def _constant(gens: Sequence[torch.Generator], shape: tuple, value: float) -> nn.Parameter:
    return nn.Parameter(torch.full((len(gens), *shape), float(value)))


class Linear(nn.Module):
    """``X W + b`` per replica: ``X: (R, ..., i)``, ``W: (R, i, o)``, ``b: (R, o)``."""

    def __init__(self, fan_in: int, fan_out: int, gens: Sequence[torch.Generator],
                 bias: bool = True):
        super().__init__()
        bound = 1 / math.sqrt(fan_in)
        self.W = _uniform(gens, (fan_in, fan_out), bound)
        self.b = _uniform(gens, (fan_out,), bound) if bias else None

    def forward(self, X: torch.Tensor) -> torch.Tensor:
        flat = X.reshape(X.shape[0], -1, X.shape[-1])
        out = (torch.bmm(flat, self.W) if self.b is None
               else torch.baddbmm(self.b.unsqueeze(1), flat, self.W))
        return out.view(*X.shape[:-1], out.shape[-1])


class LayerNorm(nn.Module):
    """LayerNorm over the last axis with a gain and a bias per replica."""

    def __init__(self, d: int, gens: Sequence[torch.Generator]):
        super().__init__()
        self.gain, self.bias = _constant(gens, (d,), 1.0), _constant(gens, (d,), 0.0)

    def forward(self, X: torch.Tensor) -> torch.Tensor:
        shape = (X.shape[0],) + (1,) * (X.ndim - 2) + (X.shape[-1],)
        return torch.addcmul(self.bias.view(shape), F.layer_norm(X, X.shape[-1:]),
                             self.gain.view(shape))


class MaskedSelfAttention(nn.Module):
    """Multi-head softmax attention with an optional mask shared by the replicas, ``(n, n)`` for
    every head or ``(heads, n, n)`` one per head (every row must allow a key); returns
    ``sum_h A_h V_h W_O^h``."""

    def __init__(self, d_model: int, heads: int, mask: np.ndarray | None = None,
                 gens: Sequence[torch.Generator] | None = None):
        super().__init__()
        d_model, heads = integer("d_model", d_model, 1), integer("heads", heads, 1)
        if d_model % heads:
            raise ValueError(f"d_model={d_model} is not divisible by heads={heads}")
        gens = generators((0,)) if gens is None else gens
        self.heads = heads
        self.qkv = Linear(d_model, 3 * d_model, gens, bias=False)  # [W_Q W_K W_V]
        self.out = Linear(d_model, d_model, gens, bias=False)
        if mask is not None:
            mask = np.asarray(mask, dtype=bool)
            if mask.ndim == 3 and mask.shape[0] != heads:
                raise ValueError(f"a mask per head needs {heads} masks, got {mask.shape[0]}")
            empty = np.argwhere(~mask.any(axis=-1))
            if len(empty):
                where = "" if mask.ndim == 2 else f" of head {int(empty[0][0])}"
                raise ValueError(f"mask row {int(empty[0][-1])}{where} attends to no key")
            self.register_buffer("mask", torch.as_tensor(mask))
        else:
            self.mask = None

    def forward(self, X: torch.Tensor) -> torch.Tensor:
        R, B, n, d = X.shape
        q, k, v = (part.reshape(R * B, n, self.heads, d // self.heads).transpose(1, 2)
                   for part in self.qkv(X).split(d, dim=-1))
        # one fused kernel on the CPU (deterministic); on CUDA the plain product form, whose
        # backward is deterministic, where the fused kernels' are not
        with sdpa_kernel(SDPBackend.MATH) if X.is_cuda else nullcontext():
            heads = F.scaled_dot_product_attention(q, k, v, attn_mask=self.mask)
        return self.out(heads.transpose(1, 2).reshape(R, B, n, d))


class BilinearProjection(nn.Module):
    """``W_P^T X W_O^T`` per replica (Yun et al. 2020a, Sec. 5, row form): ``W_P: (n, n)`` starts
    at ``I + N(0, 1/n)``, ``W_O: (d, d)``."""

    def __init__(self, n: int, d_model: int, gens: Sequence[torch.Generator] | None = None):
        super().__init__()
        n, d_model = integer("n", n, 1), integer("d_model", d_model, 1)
        gens = generators((0,)) if gens is None else gens
        self.W_P = _normal(gens, (n, n), 1 / math.sqrt(n), torch.eye(n))
        self.out = Linear(d_model, d_model, gens, bias=False)

    def forward(self, X: torch.Tensor) -> torch.Tensor:
        return self.out(torch.einsum("rjk,rbjd->rbkd", self.W_P, X))


class DepthwiseSeparableConv(nn.Module):
    """A per-channel convolution of odd width ``kernel`` along the tokens (weights ``(d, kernel)``
    and a bias per channel), then a point-wise linear map, per replica. The convolution is one
    batched product with each channel's banded ``(n, n)`` matrix, ``band[c, i, j] = w[c, j - i +
    kernel // 2]`` inside the band and 0 outside (zero padding): the sums of a grouped
    ``conv1d``, whose backward on the CPU took a quarter of a hybrid's step (ours, [O]). The band
    is itself a product, ``band[c] = sum_t w[c, t] S_t`` with the 0/1 shift matrices ``S_t[i, j]
    = [j - i + kernel // 2 = t]``: an indexed gather's backward (``index_put_`` with
    accumulation, sorted under deterministic algorithms) cannot be captured in a CUDA graph."""

    def __init__(self, d_model: int, kernel: int, gens: Sequence[torch.Generator] | None = None):
        super().__init__()
        d_model = integer("d_model", d_model, 1)
        if integer("kernel", kernel, 1) % 2 == 0:
            raise ValueError(f"kernel must be a positive odd integer, got {kernel}")
        gens = generators((0,)) if gens is None else gens
        bound = 1 / math.sqrt(kernel)
        self.depthwise = _uniform(gens, (d_model, kernel), bound)
        self.depthwise_bias = _uniform(gens, (d_model,), bound)
        self.pointwise = Linear(d_model, d_model, gens)

    def forward(self, X: torch.Tensor) -> torch.Tensor:
        n, kernel = X.shape[2], self.depthwise.shape[-1]
        positions = torch.arange(n, device=X.device)
        tap = positions[None, :] - positions[:, None] + kernel // 2  # (i, j) -> j - i + kernel // 2
        shifts = (tap == torch.arange(kernel, device=X.device)[:, None, None]).to(X.dtype)
        band = torch.einsum("rct,tij->rcij", self.depthwise, shifts)
        mixed = torch.einsum("rcij,rbjc->rbic", band, X) + self.depthwise_bias[:, None, None, :]
        return self.pointwise(mixed)


class SequenceEncoder(nn.Module):
    """``R = len(seeds)`` replicas of: embedding + learned positions, ``len(mixers)`` pre-LN
    residual blocks, a per-token readout. ``mixers[l]`` is ``"attention"``, ``"bilinear"`` or
    ``"conv"``; ``masks[l]`` (attention only, optional) is layer ``l``'s sparse pattern, ``(n, n)``
    or ``(heads, n, n)`` (one per head).
    ``tokens: (R, B, n)`` int -> ``logits: (R, B, n, n_out)``."""

    def __init__(self, vocab: int, n: int, d_model: int, mixers: list[str], n_out: int,
                 heads: int = 2, ffn_width: int | None = None, masks: list | None = None,
                 kernel: int = 3, seeds: Sequence[int] = (0,)):
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
            if mask is not None and np.shape(mask) not in ((n, n), (heads, n, n)):
                raise ValueError(f"masks[{layer}] has shape {np.shape(mask)}; expected ({n}, {n}) "
                                 f"or one per head ({heads}, {n}, {n})")
        ffn_width = 2 * d_model if ffn_width is None else integer("ffn_width", ffn_width, 1)
        gens = generators(seeds)
        self.n, self.vocab = n, vocab
        self.embed = _normal(gens, (vocab, d_model), 1.0)
        self.position = _normal(gens, (n, d_model), 1 / math.sqrt(d_model))
        self.mix, self.ffn_in, self.ffn_out = nn.ModuleList(), nn.ModuleList(), nn.ModuleList()
        self.norm1, self.norm2 = nn.ModuleList(), nn.ModuleList()
        for layer, kind in enumerate(mixers):
            self.norm1.append(LayerNorm(d_model, gens))
            if kind == "attention":
                mask = None if masks is None else masks[layer]
                self.mix.append(MaskedSelfAttention(d_model, heads, mask, gens))
            elif kind == "bilinear":
                self.mix.append(BilinearProjection(n, d_model, gens))
            else:
                self.mix.append(DepthwiseSeparableConv(d_model, kernel, gens))
            self.norm2.append(LayerNorm(d_model, gens))
            self.ffn_in.append(Linear(d_model, ffn_width, gens))
            self.ffn_out.append(Linear(ffn_width, d_model, gens))
        self.final_norm = LayerNorm(d_model, gens)
        self.readout = Linear(d_model, n_out, gens)

    @property
    def replicas(self) -> int:
        return int(self.embed.shape[0])

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        if tokens.ndim != 3 or tokens.shape[0] != self.replicas or tokens.shape[-1] != self.n:
            raise ValueError(f"tokens must have shape (R, B, n) = ({self.replicas}, B, {self.n}), "
                             f"got {tuple(tokens.shape)}")
        if tokens.dtype.is_floating_point or tokens.dtype == torch.bool:
            raise ValueError(f"tokens must be integer token ids in 0..{self.vocab - 1}, got "
                             f"dtype {tokens.dtype}")
        R, (_, B, n), V = self.replicas, tokens.shape, self.vocab
        # the embedding as a product with one-hot rows: no index kernel (graph-safe on CUDA)
        one_hot = (tokens.reshape(R, B * n, 1) == torch.arange(V, device=tokens.device))
        X = torch.bmm(one_hot.to(self.embed.dtype), self.embed).view(R, B, n, -1)
        X = X + self.position[:, None]
        blocks = zip(self.mix, self.norm1, self.norm2, self.ffn_in, self.ffn_out, strict=True)
        for mix, n1, n2, f1, f2 in blocks:
            X = X + mix(n1(X))
            X = X + f2(torch.relu(f1(n2(X))))
        return self.readout(self.final_norm(X))


def hybrid_mixers(alternative: str, attention_layers: int, depth: int) -> list[str]:
    """``depth`` layers: ``depth - k`` of ``alternative`` below ``k`` attention layers on top."""
    if alternative not in MIXERS:
        raise ValueError(f"unknown alternative {alternative!r}; use one of {', '.join(MIXERS)}")
    depth = integer("depth", depth, 1)
    integer("attention_layers", attention_layers, 0, depth)
    return [alternative] * (depth - attention_layers) + ["attention"] * attention_layers
