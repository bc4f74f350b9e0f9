"""The training jobs: full-batch memorization and encoders on fresh batches (PyTorch, CPU default).

Both train one replica per seed side by side (``expressivity.replica_training``: flat parameters,
Adam with a learning rate per replica, a replica leaves the batch when it stops) under the
project's protocol (``expressivity.training_protocol``: early stopping at the target, a
learning-rate decay by ``decay`` and a second window before a plateau, a step budget; outcomes
``reached``, ``plateau``, ``diverged``, ``budget``).

- ``memorize``: Kajitsuka & Sato 2024, Sec. 6, reconstructed (notes ``kajitsuka_sato.md`` Sec. 6.3,
  [D]; the paper's dataset, optimiser settings and figure were not retrievable). One
  ``TokenClassifier`` replica per seed (``expressivity.transformer_models``: tied
  ``W_Q = W_K = W_V``, learned temperature, separate ``W_O``, ReLU FFN, per-token classifier),
  trained with full-batch Adam on one token dataset; the metric is the training accuracy,
  evaluated every ``protocol.every`` epochs. The attention normaliser is softmax, hardmax (trained
  with the straight-through estimator) or uniform (``lam = 0``).
- ``train_encoders``: one ``SequenceEncoder`` replica per seed (``expressivity.sequence_encoder``),
  trained with Adam on fresh batches of a sequence task (``expressivity.tasks``: Yun et al. 2020b's
  copying, the counting task for Yun et al. 2020a, Sec. 5); the metric is the token accuracy on a
  held-out set drawn once per seed, evaluated every ``protocol.every`` steps.

Both minimise the cross-entropy of the scored positions, ``-mean log softmax(logits)[target]``,
and report the token accuracy, ``mean(argmax logits == target)``. Every random draw comes from the
seeds given or the job's generators (``expressivity.torch_runtime``): same config, same bytes out,
and a seed's run does not depend on the other seeds of its job. On a CUDA device the optimiser
step of ``memorize`` is a CUDA graph (``graphs``, default: on CUDA); ``train_encoders``'s steps
run eagerly unless ``graphs=True`` (``ENCODER_GRAPHS``: its capture fails on an H100 and an H200
with torch 2.11, cudaErrorStreamCaptureInvalidated, 2026-11-26). Progress goes to a
``expressivity.joblog.Progress`` (done/total steps, elapsed, remaining).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch
from torch.nn import functional as F

from expressivity.arguments import integer
from expressivity.datasets import TokenDataset
from expressivity.joblog import Progress
from expressivity.replica_training import FlatReplicas, replica_rates, train_replicas
from expressivity.sequence_encoder import SequenceEncoder
from expressivity.tasks import TASKS, task_classes
from expressivity.torch_runtime import check_device, torch_seed
from expressivity.training_protocol import Protocol
from expressivity.transformer_models import SIGMAS, TokenClassifier, check_seeds

#: Whether ``train_encoders`` captures its steps as CUDA graphs by default: not until its capture
#: works on a GPU (tests/unit/test_training.py's CUDA-graph test failed there, for every mixer,
#: before the parameters became leaves; ``benchmarks/capture_probe.py`` says which piece fails).
ENCODER_GRAPHS = False


def _check_protocol(protocol) -> None:
    if not isinstance(protocol, Protocol):
        raise TypeError(f"protocol must be a training_protocol.Protocol, got {protocol!r}")


def cuda_graphs(graphs: bool | None, device: torch.device, default: bool = True) -> bool:
    """Whether the steps run as CUDA graphs: ``graphs``, or when None ``default`` on CUDA."""
    if graphs is None:
        return default and device.type == "cuda"
    if graphs and device.type != "cuda":
        raise ValueError(f"graphs=True needs a CUDA device, got {device}")
    return bool(graphs)


def token_losses(logits: torch.Tensor, targets: torch.Tensor,
                 scored: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """Per-replica mean cross-entropy and token accuracy (float64) of ``logits: (R, ..., C)``
    against ``targets`` (broadcast to ``(R, ...)``) over the positions ``scored`` (all if None)."""
    R, C = logits.shape[0], logits.shape[-1]
    targets = targets.expand(logits.shape[:-1]).reshape(R, -1)
    per_token = F.cross_entropy(logits.reshape(-1, C), targets.reshape(-1),
                                reduction="none").view(R, -1)
    right = logits.detach().argmax(-1).reshape(R, -1) == targets
    if scored is None:
        return per_token.mean(1), right.double().mean(1)
    weight = scored.expand(logits.shape[:-1]).reshape(R, -1)
    counts = weight.sum(1)
    loss = (per_token * weight.to(per_token.dtype)).sum(1) / counts.to(per_token.dtype)
    return loss, (right & weight).sum(1).double() / counts.double()


class _FullBatch:
    """Memorization: every step sees the whole dataset (shared by the replicas)."""

    def __init__(self, model: TokenClassifier, X: torch.Tensor, y: torch.Tensor, sigma: str):
        self.model, self.X, self.y, self.sigma = model, X, y, sigma

    def batch(self, step: int) -> tuple:
        return ()

    def loss(self) -> torch.Tensor:
        return token_losses(self.model(self.X, self.sigma), self.y)[0]

    def evaluate(self) -> tuple[torch.Tensor, torch.Tensor]:
        loss, acc = token_losses(self.model(self.X, self.sigma), self.y)
        return loss.double(), acc

    def keep(self, rows: torch.Tensor) -> None:
        pass


class ClassifierReplicas:
    """What a memorization run trains: one ``TokenClassifier`` per seed on ``ds`` (``model``,
    its flat parameters ``params``), the inputs ``X`` and labels ``y`` on ``device``, the sizes
    of the model, and ``snapshot``, the stop hook that keeps each replica's attention weights
    (``"w"``, ``"lam"``; None without attention) at its stop."""

    def __init__(self, ds: TokenDataset, *, width: int | Sequence[int], heads: int, head_size: int,
                 w_fixed: np.ndarray | None, causal: bool, dtype: torch.dtype,
                 seeds: tuple[int, ...], device: torch.device | None):
        self.device, self.seeds = check_device(device), check_seeds(seeds)
        self.model = TokenClassifier(ds.d, int(ds.labels.max()) + 1, width, heads, head_size,
                                     w_fixed, dtype, self.seeds, causal).to(self.device)
        # the first replica's (a caller that mixes widths counts each: ``ffn_parameters``)
        self.sizes = {"ffn_parameters": self.model.ffn_parameters(),
                      "attention_parameters": self.model.attention_parameters()}
        self.params = FlatReplicas(self.model)
        self.X = torch.as_tensor(ds.inputs(), dtype=dtype, device=self.device)
        self.y = torch.as_tensor(ds.labels, device=self.device)
        self.snapshots: list[dict] = [{"w": None, "lam": None} for _ in self.seeds]

    def snapshot(self, replica: int, row: int) -> None:
        att = self.model.attention
        if att is not None:
            w = att.w if att.w.ndim == 3 else att.w[row]  # a fixed w is shared by the replicas
            self.snapshots[replica] = {"w": w.detach().cpu().numpy().copy(),
                                       "lam": att.log_lam[row].detach().exp().cpu().numpy().copy()}

    def runs(self, monitors) -> list[dict]:
        """Per seed: its monitor's result with its attention weights at the stop."""
        return [{**m.result(), **snap} for m, snap in zip(monitors, self.snapshots, strict=True)]


def memorize(ds: TokenDataset, *, width: int, seeds: tuple[int, ...], protocol: Protocol,
             lr: float | Sequence[float], heads: int = 1, head_size: int = 1,
             w_fixed: np.ndarray | None = None,
             sigma: str = "softmax", causal: bool = False, dtype: torch.dtype = torch.float32,
             device: torch.device | None = None, graphs: bool | None = None,
             progress: Progress | None = None, done_before: float = 0.0) -> dict:
    """Train one ``TokenClassifier`` per seed (one replica each; a seed may repeat) with
    full-batch Adam on ``ds`` until each stops, at learning rate ``lr`` (one for all, or one per
    replica).

    ``heads = 0`` gives the attention-free baseline; ``causal`` masks the attention (query ``k``
    attends to keys ``j <= k``). Epoch ``e`` is the model after ``e`` Adam steps;
    each replica stops under ``protocol`` (its training accuracy and loss, every ``protocol.every``
    epochs). Returns ``{"runs": [per replica: the monitor's result (outcome, stopped_at,
    steps_to_target, lr_decayed, decayed_at, loss, accuracy) and "w", "lam" (its attention weights
    at the stop, None without attention)], "curve": [{"replica", "seed", "epoch", "loss",
    "accuracy"}] at every evaluation until each stopped, "ffn_parameters",
    "attention_parameters"}``. ``progress`` counts epochs from ``done_before``.
    """
    replica_rates(lr, len(check_seeds(seeds)))
    _check_protocol(protocol)
    if sigma not in SIGMAS:
        raise ValueError(f"sigma must be one of {SIGMAS}, got {sigma!r}")
    if not (isinstance(dtype, torch.dtype) and dtype.is_floating_point):
        raise ValueError(f"dtype must be a floating-point torch dtype, got {dtype!r}")
    c = ClassifierReplicas(ds, width=width, heads=heads, head_size=head_size, w_fixed=w_fixed,
                           causal=causal, dtype=dtype, seeds=seeds, device=device)
    monitors, curves = train_replicas(c.params, _FullBatch(c.model, c.X, c.y, sigma), protocol, lr,
                                      on_stop=c.snapshot, graphs=cuda_graphs(graphs, c.device),
                                      progress=progress, done_before=done_before)
    curve = [{"replica": r, "seed": seed, "epoch": p["step"], "loss": p["loss"],
              "accuracy": p["accuracy"]}
             for r, (seed, points) in enumerate(zip(c.seeds, curves, strict=True)) for p in points]
    return {"runs": c.runs(monitors), "curve": curve, **c.sizes}


#: Sequences per forward pass of a held-out evaluation (``_FreshBatches.evaluate``).
EVAL_CHUNK = 64


class _FreshBatches:
    """A sequence task: each replica draws its held-out set once, then its training batches, in
    blocks of ``every`` steps, from its own generator."""

    def __init__(self, model: SequenceEncoder, sampler, rngs: list[np.random.Generator],
                 test: list[torch.Tensor], *, n: int, vocab: int, batch: int, every: int,
                 device: torch.device):
        self.model, self.sampler, self.rngs, self.test = model, sampler, rngs, test
        self.n, self.vocab, self.size, self.every, self.device = n, vocab, batch, every, device
        self.block: list[torch.Tensor] | None = None

    def batch(self, step: int) -> list[torch.Tensor]:
        if self.block is None or step % self.every == 0:
            self.block = [t.view(len(self.rngs), self.every, self.size, self.n).transpose(0, 1)
                          for t in _draw(self.sampler, self.rngs, self.every * self.size, self.n,
                                         self.vocab, self.device)]
        return [t[step % self.every] for t in self.block]

    def loss(self, tokens: torch.Tensor, targets: torch.Tensor,
             scored: torch.Tensor) -> torch.Tensor:
        return token_losses(self.model(tokens), targets, scored)[0]

    def evaluate(self) -> tuple[torch.Tensor, torch.Tensor]:
        """The held-out loss and accuracy; the forward pass runs ``EVAL_CHUNK`` sequences at a
        time, whose activations stay in the CPU's cache (a sixth faster than all at once)."""
        tokens, targets, scored = self.test
        logits = torch.cat([self.model(part) for part in tokens.split(EVAL_CHUNK, 1)], 1)
        loss, acc = token_losses(logits, targets, scored)
        return loss.double(), acc

    def keep(self, rows: torch.Tensor) -> None:
        kept = rows.tolist()
        self.rngs = [self.rngs[r] for r in kept]
        self.test = [t[rows] for t in self.test]
        self.block = None


def _draw(sampler, rngs: list[np.random.Generator], size: int, n: int, vocab: int,
          device: torch.device) -> list[torch.Tensor]:
    """``size`` sequences of the task per generator: ``tokens, targets, scored``, each
    ``(R, size, n)``."""
    parts = [sampler(rng, size, n, vocab) for rng in rngs]
    return [torch.as_tensor(np.stack([p[i] for p in parts]), device=device) for i in range(3)]


def train_encoders(rngs: list[np.random.Generator], *, task: str, n: int, vocab: int,
                   mixers: list[str], protocol: Protocol, batch: int,
                   lr: float | Sequence[float],
                   masks: list | None = None, d_model: int = 32, heads: int = 2, kernel: int = 3,
                   eval_size: int = 512, device: torch.device | None = None,
                   graphs: bool | None = None, progress: Progress | None = None,
                   done_before: float = 0.0) -> list[dict]:
    """Train one ``SequenceEncoder`` replica per generator in ``rngs`` with Adam on fresh batches
    of ``task`` until ``protocol`` stops it, at learning rate ``lr`` (one for all, or one per
    replica); the metric is the token accuracy on a held-out set of ``eval_size`` sequences.

    Replica ``i`` draws its held-out set, its initialisation seed (``torch_seed(rngs[i])``) and
    then its batches (``protocol.every`` at a time) from ``rngs[i]``. Returns per replica the
    monitor's result (outcome, stopped_at, steps_to_target, lr_decayed, decayed_at, loss and
    accuracy on the held-out set at the stop) with ``"curve": [{"step", "loss", "accuracy"}]``
    (held out, at every evaluation until it stopped) and ``"parameters"`` (trainable, per
    replica). ``progress`` counts steps from ``done_before``.
    """
    sampler = TASKS.get(task)
    if sampler is None:
        raise ValueError(f"unknown task {task!r}; use one of {', '.join(TASKS)}")
    _check_protocol(protocol)
    batch, eval_size = integer("batch", batch, 1), integer("eval_size", eval_size, 1)
    if not rngs or not all(isinstance(rng, np.random.Generator) for rng in rngs):
        raise TypeError(f"rngs must be a non-empty list of numpy Generators, got {rngs!r}")
    replica_rates(lr, len(rngs))
    device = check_device(device)
    n_in, n_out = task_classes(task, vocab)
    test = _draw(sampler, rngs, eval_size, n, vocab, device)
    model = SequenceEncoder(n_in, n, d_model, mixers, n_out, heads=heads, masks=masks,
                            kernel=kernel, seeds=[torch_seed(rng) for rng in rngs]).to(device)
    params = FlatReplicas(model)
    job = _FreshBatches(model, sampler, list(rngs), test, n=n, vocab=vocab, batch=batch,
                        every=protocol.every, device=device)
    monitors, curves = train_replicas(params, job, protocol, lr,
                                      graphs=cuda_graphs(graphs, device, ENCODER_GRAPHS),
                                      progress=progress, done_before=done_before)
    size = params.parameters_per_replica()
    return [{**m.result(), "curve": curve, "parameters": size}
            for m, curve in zip(monitors, curves, strict=True)]
