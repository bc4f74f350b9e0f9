"""Memorization in minibatches: the tied one-layer model trained by SGD with momentum or by Adam.

Kajitsuka & Sato 2024 train their rank-1 model with SGD (per secondary sources; notes
``kajitsuka_sato.md`` Sec. 6); ``expressivity.training.memorize`` trains it full-batch with Adam.
Here the same ``TokenClassifier`` replicas (one per seed, side by side) see one minibatch of
``batch`` sequences per step, the sequences of each epoch in a random order, under the project's
protocol (``expressivity.training_protocol``; evaluated every ``protocol.every`` steps on the whole
training set):

- ``ReplicaSGD``: SGD with momentum (Polyak's heavy ball as ``torch.optim.SGD`` computes it,
  ``b <- mu b + g``, ``theta_r <- theta_r - lr_r b``) with one learning rate per replica, the
  optimiser ``replica_training.train_replicas`` builds from a factory;
- ``memorize_minibatch``: the training job. The order of the sequences is drawn from ``order_rng``
  (one permutation per epoch) and shared by the replicas: seeds differ by their initial weights, a
  seed's run does not depend on which seeds train beside it. On a CUDA device each step (the
  minibatch's rows gathered on the device, forward, backward, optimiser) is a CUDA graph, as in
  ``training.memorize`` (``graphs``, default: on CUDA): the GPU's cost model plans these jobs at
  the captured memorization step's measured rate.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

from expressivity.arguments import integer
from expressivity.datasets import TokenDataset
from expressivity.joblog import Progress
from expressivity.replica_training import FlatReplicas, ReplicaAdam, rates_tensor, train_replicas
from expressivity.training import ClassifierReplicas, cuda_graphs, token_losses
from expressivity.training_protocol import Protocol
from expressivity.transformer_models import SIGMAS, TokenClassifier

#: The optimisers a minibatch run can use.
OPTIMISERS = ("sgd", "adam")


class ReplicaSGD:
    """SGD with momentum ``mu`` on ``FlatReplicas``, one learning rate per replica (``lr: (R, 1)``)."""

    def __init__(self, params: FlatReplicas, lr: float | Sequence[float], momentum: float = 0.9):
        if not 0 <= momentum < 1:
            raise ValueError(f"momentum must be in [0, 1), got {momentum!r}")
        flat = params.flat
        self.params, self.momentum = params, momentum
        self.lr = rates_tensor(lr, flat)
        self.buf = torch.zeros_like(flat)

    @torch.no_grad()
    def step(self) -> None:
        self.buf.mul_(self.momentum).add_(self.params.grad)
        self.params.flat.sub_(self.lr * self.buf)

    def keep(self, rows: torch.Tensor) -> None:
        self.lr, self.buf = self.lr[rows], self.buf[rows]


class _MiniBatches:
    """Every step ``batch`` sequences (the same for every replica), a new order every epoch."""

    def __init__(self, model: TokenClassifier, X: torch.Tensor, y: torch.Tensor, sigma: str,
                 batch: int, order_rng: np.random.Generator, eval_sequences: int):
        self.model, self.X, self.y, self.sigma, self.size = model, X, y, sigma, batch
        self.eval_sequences = eval_sequences
        self.rng, self.per_epoch = order_rng, X.shape[0] // batch
        self.epoch, self.order = -1, None

    def batch(self, step: int) -> tuple[torch.Tensor]:
        epoch, k = divmod(step, self.per_epoch)
        if epoch != self.epoch:  # steps come in order: one permutation per epoch
            self.epoch = epoch
            self.order = torch.as_tensor(self.rng.permutation(self.X.shape[0]),
                                         device=self.X.device)
        return (self.order[k * self.size:(k + 1) * self.size],)

    def loss(self, rows: torch.Tensor) -> torch.Tensor:
        return token_losses(self.model(self.X[rows], self.sigma), self.y[rows])[0]

    def evaluate(self) -> tuple[torch.Tensor, torch.Tensor]:
        """Per-replica mean loss and accuracy over every sequence, ``eval_sequences`` at a time
        (so that a paper-size dataset's forward pass stays within memory), weighted by length."""
        N = self.X.shape[0]
        loss = acc = 0.0
        for start in range(0, N, self.eval_sequences):
            part = slice(start, min(N, start + self.eval_sequences))
            chunk_loss, chunk_acc = token_losses(self.model(self.X[part], self.sigma), self.y[part])
            share = (part.stop - part.start) / N
            loss, acc = loss + share * chunk_loss.double(), acc + share * chunk_acc
        return loss, acc

    def keep(self, rows: torch.Tensor) -> None:
        pass


def memorize_minibatch(ds: TokenDataset, *, width: int | Sequence[int], seeds: tuple[int, ...],
                       protocol: Protocol, lr: float | Sequence[float], batch: int,
                       optimiser: str, order_rng: np.random.Generator, eval_sequences: int,
                       momentum: float = 0.9,
                       heads: int = 1, head_size: int = 1, sigma: str = "softmax",
                       dtype: torch.dtype = torch.float32, device: torch.device | None = None,
                       graphs: bool | None = None, progress: Progress | None = None,
                       done_before: float = 0.0) -> dict:
    """Train one ``TokenClassifier`` per seed on ``ds`` in minibatches of ``batch`` sequences
    with ``optimiser`` (``"sgd"`` with ``momentum``, or ``"adam"``) at learning rate ``lr`` and
    FFN width ``width`` (each one for all, or one per seed: a grid of rates and widths side by
    side; ``"ffn_parameters"`` is the first replica's) until each stops under
    ``protocol`` (steps; training accuracy every ``protocol.every`` steps, over the whole set
    ``eval_sequences`` sequences at a time, so a paper-size forward pass fits). ``heads = 0``: no
    attention; ``graphs``: the steps as CUDA graphs (default: on CUDA). Returns ``{"runs": [per
    seed: the monitor's result and "w", "lam" at the stop (None without attention)],
    "ffn_parameters", "attention_parameters"}``."""
    if optimiser not in OPTIMISERS:
        raise ValueError(f"optimiser must be one of {OPTIMISERS}, got {optimiser!r}")
    if sigma not in SIGMAS:
        raise ValueError(f"sigma must be one of {SIGMAS}, got {sigma!r}")
    if not isinstance(protocol, Protocol):
        raise TypeError(f"protocol must be a training_protocol.Protocol, got {protocol!r}")
    batch = integer("batch", batch, 1, ds.N)
    eval_sequences = integer("eval_sequences", eval_sequences, 1)
    c = ClassifierReplicas(ds, width=width, heads=heads, head_size=head_size, w_fixed=None,
                           causal=False, dtype=dtype, seeds=seeds, device=device)
    factory = ReplicaAdam if optimiser == "adam" else (
        lambda p, rate: ReplicaSGD(p, rate, momentum))
    monitors, _ = train_replicas(c.params, _MiniBatches(c.model, c.X, c.y, sigma, batch, order_rng,
                                                               eval_sequences),
                                 protocol, lr, optimizer=factory, on_stop=c.snapshot,
                                 graphs=cuda_graphs(graphs, c.device), progress=progress,
                                 done_before=done_before)
    return {"runs": c.runs(monitors), **c.sizes}
