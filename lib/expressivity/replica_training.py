"""Independent replicas of one model trained side by side under the training protocol.

A job trains ``R`` replicas of a model (one per seed) at once: every parameter carries the replica
dimension first (``(R, ...)``), so one batched operation serves all of them, and they share nothing,
so each follows its own trajectory. The pieces:

- ``FlatReplicas``: the trainable parameters of the replicas as one flat tensor ``theta: (R, P)``
  and their gradients as one tensor beside it (the model's parameters become leaves that are views
  of the first, their gradients views of the second), so that the optimiser is a handful of
  operations on two tensors and a stopped replica leaves the batch by dropping its row (``keep``);
- ``ReplicaAdam``: Adam (Kingma & Ba 2015, Algorithm 1, as ``torch.optim.Adam`` computes it) with
  one learning rate per replica,

      m <- b1 m + (1 - b1) g,   v <- b2 v + (1 - b2) g^2,
      theta_r <- theta_r - lr_r (m / (1 - b1^t)) / (sqrt(v / (1 - b2^t)) + eps),

  so that each replica decays its own learning rate when the protocol says so;
- ``train_replicas``: the loop, at one learning rate for every replica or one per replica (a grid
  of rates side by side: ``replica_rates``). Every ``protocol.every`` steps it evaluates all active
  replicas on the device and brings their losses and accuracies to the host in one transfer (no
  per-step ``.item()``), lets each replica's ``Monitor`` decide (stop, decay, go on), drops the
  stopped replicas from the batch, and otherwise runs optimiser steps. On a GPU the step
  (forward, backward, Adam) is captured once per batch shape as a CUDA graph and replayed
  (``graphs=True``): small models are launch-bound there.

Replica ``r``'s mathematics does not depend on which other replicas share its batch. Its rounding
may: a kernel can block a batched product or a reduction differently for another number of rows
(as it does for another instruction set), so a seed's bytes are fixed by the config (same config,
same bytes out) but can differ at rounding level from those of the same seed trained alone.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence
from typing import Protocol as Interface

import torch
from torch import nn

from expressivity.joblog import Progress
from expressivity.training_protocol import Monitor, Protocol


class FlatReplicas:
    """The trainable parameters of ``module`` (each ``(R, ...)``: one row per replica) side by side
    in one tensor ``flat: (R, P)``, and their gradients in one tensor ``grad: (R, P)``. Each
    parameter of the module becomes a leaf that is a view of ``flat``, its ``.grad`` a view of
    ``grad``: a backward adds each parameter's gradient in place into ``grad`` (``zero_grad``
    before each step), with no autograd node between the parameters and ``flat`` and nothing to
    bind before a forward, and the optimiser is a handful of operations on ``flat`` and ``grad``.
    Buffers stay in the module and are shared by every replica. Move the module to its device
    before building this."""

    def __init__(self, module: nn.Module):
        self.slots: list[tuple[nn.Module, str, torch.Size]] = []
        rows = []
        for mod in module.modules():
            for name, p in mod._parameters.items():
                if p is None or not p.requires_grad:
                    continue
                rows.append(p.detach().reshape(p.shape[0], -1))
                self.slots.append((mod, name, p.shape[1:]))
        if not rows:
            raise ValueError("the module has no trainable parameter")
        replicas = {r.shape[0] for r in rows}
        if len(replicas) != 1:
            raise ValueError(f"every parameter must have the replica dimension first; got leading "
                             f"sizes {sorted(replicas)}")
        self.sizes = [r.shape[1] for r in rows]
        self._place(torch.cat(rows, 1))

    def _place(self, flat: torch.Tensor) -> None:
        """Hold ``flat`` and a zero ``grad`` beside it, and make each parameter of the module a
        leaf viewing its columns of ``flat`` with its ``.grad`` viewing those of ``grad``."""
        self.flat, self.grad = flat, torch.zeros_like(flat)
        for (mod, name, shape), value, grad in zip(self.slots, flat.split(self.sizes, 1),
                                                   self.grad.split(self.sizes, 1), strict=True):
            param = nn.Parameter(value.view(self.replicas, *shape))
            param.grad = grad.view(self.replicas, *shape)
            mod._parameters[name] = param

    @property
    def replicas(self) -> int:
        return int(self.flat.shape[0])

    def zero_grad(self) -> None:
        self.grad.zero_()

    def backward(self, loss: torch.Tensor) -> None:
        """``loss.backward()``, adding the parameters' gradients into ``grad``. A parameter with
        the replica stride of ``flat`` has a gradient with the same stride, which torch's
        accumulator warns does not "obey the gradient layout contract" (dense gradients are
        faster to hand to a distributed reduction); it adds in place all the same."""
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="grad and param do not obey")
            loss.backward()

    def keep(self, rows: torch.Tensor) -> None:
        """Keep the replicas ``rows`` (indices into the current rows), in that order."""
        self._place(self.flat[rows])

    def parameters_per_replica(self) -> int:
        return int(self.flat.shape[1])


def replica_rates(lr: float | Sequence[float], replicas: int) -> list[float]:
    """The learning rates of ``replicas`` replicas: ``lr`` is one rate for every replica or one
    per replica, each a finite number > 0."""
    rates = [lr] * replicas if isinstance(lr, (int, float)) else list(lr)
    if len(rates) != replicas:
        raise ValueError(f"lr must be one number or one per replica ({replicas}), got "
                         f"{len(rates)}")
    for rate in rates:
        if isinstance(rate, bool) or not (isinstance(rate, (int, float)) and 0 < rate < math.inf):
            raise ValueError(f"lr must be a finite number > 0, got {rate!r}")
    return [float(rate) for rate in rates]


def rates_tensor(lr: float | Sequence[float], flat: torch.Tensor) -> torch.Tensor:
    """``replica_rates`` of the replicas of ``flat: (R, P)`` as a ``(R, 1)`` tensor beside it."""
    return torch.tensor([[r] for r in replica_rates(lr, flat.shape[0])], dtype=flat.dtype,
                        device=flat.device)


class ReplicaAdam:
    """Adam on ``FlatReplicas`` with one learning rate per replica (``lr: (R, 1)``); the step count
    and the bias corrections live on the device, so a step can be captured in a CUDA graph."""

    def __init__(self, params: FlatReplicas, lr: float | Sequence[float],
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8):
        self.params, self.betas, self.eps = params, betas, eps
        flat = params.flat
        self.lr = rates_tensor(lr, flat)
        self.m, self.v = torch.zeros_like(flat), torch.zeros_like(flat)
        self.t = torch.zeros((), dtype=flat.dtype, device=flat.device)

    @torch.no_grad()
    def step(self) -> None:
        flat, g, (b1, b2) = self.params.flat, self.params.grad, self.betas
        self.t += 1
        self.m.lerp_(g, 1 - b1)
        self.v.mul_(b2).addcmul_(g, g, value=1 - b2)
        bias1, bias2 = 1 - torch.pow(b1, self.t), torch.sqrt(1 - torch.pow(b2, self.t))
        denom = self.v.sqrt().div_(bias2).add_(self.eps)
        flat.addcdiv_(self.m * (self.lr / bias1), denom, value=-1.0)

    def keep(self, rows: torch.Tensor) -> None:
        self.lr, self.m, self.v = self.lr[rows], self.m[rows], self.v[rows]


class Job(Interface):
    """What ``train_replicas`` needs from a training job (its replicas are the rows of its
    ``FlatReplicas``; every tensor below has them first)."""

    def batch(self, step: int) -> Sequence[torch.Tensor]:
        """The inputs of optimiser step ``step`` (the same shapes at every step)."""

    def loss(self, *batch: torch.Tensor) -> torch.Tensor:
        """Per-replica training loss ``(R,)`` on ``batch`` (differentiable)."""

    def evaluate(self) -> tuple[torch.Tensor, torch.Tensor]:
        """Per-replica loss and accuracy ``(R,)`` on the metric the protocol watches."""

    def keep(self, rows: torch.Tensor) -> None:
        """Drop the data of the replicas not in ``rows``."""


class _Step:
    """One optimiser step: eager, or a CUDA graph captured per batch shape and replayed."""

    def __init__(self, params: FlatReplicas, opt: ReplicaAdam, job: Job, graphs: bool):
        if graphs and params.flat.device.type != "cuda":
            raise ValueError("graphs=True needs the replicas on a CUDA device")
        self.params, self.opt, self.job, self.graphs = params, opt, job, graphs
        self.graph: torch.cuda.CUDAGraph | None = None
        self.static: list[torch.Tensor] = []

    def reset(self) -> None:
        """Forget the captured graph (the replicas' shapes changed)."""
        self.graph, self.static = None, []

    def _eager(self, batch: Sequence[torch.Tensor]) -> None:
        self.params.zero_grad()
        self.params.backward(self.job.loss(*batch).sum())
        self.opt.step()

    def __call__(self, step: int) -> None:
        batch = self.job.batch(step)
        if not self.graphs:
            self._eager(batch)
        elif self.graph is None:
            self._capture(batch)
        else:
            for static, value in zip(self.static, batch, strict=True):
                static.copy_(value)
            self.graph.replay()

    def _capture(self, batch: Sequence[torch.Tensor]) -> None:
        """Run this step eagerly on a side stream (the warm-up CUDA graphs need), then capture the
        next ones: the graph reads its inputs from static copies and updates ``flat`` and
        ``grad`` in place. No autograd node of the warm-up outlives it (the parameters are leaves,
        and nothing keeps a view of them with its history), so the capture's backward meets no
        gradient accumulator made on the side stream: one that it did would wait on a stream
        outside the capture and invalidate it (torch 2.13, ``set_override_stale_capture_stream``)."""
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            self._eager(batch)
        torch.cuda.current_stream().wait_stream(side)
        self.static = [b.clone() for b in batch]
        self.graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(self.graph):
            self._eager(self.static)


def train_replicas(params: FlatReplicas, job: Job, protocol: Protocol,
                   lr: float | Sequence[float], *,
                   optimizer: Callable[[FlatReplicas, list[float]], ReplicaAdam] = ReplicaAdam,
                   on_stop: Callable[[int, int], None] | None = None, graphs: bool = False,
                   progress: Progress | None = None, done_before: float = 0.0,
                   ) -> tuple[list[Monitor], list[list[dict]]]:
    """Train the replicas of ``params`` at learning rate ``lr`` (one for all, or one per
    replica: a grid of rates trained side by side) until each stops under ``protocol``;
    ``on_stop(replica, row)`` runs when a replica stops, before it leaves the batch (``row``: its
    current row, e.g. to keep its weights). Returns one ``Monitor`` per replica and
    its curve ``[{"step", "loss", "accuracy"}]`` (every evaluation until it stopped). ``progress``
    counts steps from ``done_before``.

    ``optimizer(params, lr)`` builds the optimiser (``ReplicaAdam`` by default); another one (SGD
    with momentum, say) needs the same three members: ``lr`` (a ``(R, 1)`` tensor, one learning
    rate per replica, which the loop scales by each monitor's ``lr_factor``), ``step()`` (one
    update from ``params.grad``, capturable in a CUDA graph) and ``keep(rows)``."""
    if not isinstance(protocol, Protocol):
        raise TypeError(f"protocol must be a training_protocol.Protocol, got {protocol!r}")
    base = replica_rates(lr, params.replicas)  # each replica's rate before its decay
    opt = optimizer(params, base)
    step_fn = _Step(params, opt, job, graphs)
    monitors = [Monitor(protocol) for _ in range(params.replicas)]
    curves: list[list[dict]] = [[] for _ in monitors]
    active = list(range(params.replicas))
    for step in range(protocol.budget + 1):
        if protocol.evaluates(step):
            with torch.no_grad():
                loss, acc = (v.tolist() for v in torch.stack(job.evaluate()).cpu())
            kept = []
            for row, replica in enumerate(active):
                monitor = monitors[replica]
                curves[replica].append({"step": step, "loss": loss[row], "accuracy": acc[row]})
                if monitor.observe(step, loss[row], acc[row]):
                    if on_stop is not None:
                        on_stop(replica, row)
                else:
                    kept.append(row)
                    opt.lr[row] = base[replica] * monitor.lr_factor
            if progress is not None:
                progress.update(done_before + step, accuracy=max(acc), running=len(kept))
            if not kept:
                break
            if len(kept) < len(active):
                rows = torch.tensor(kept, device=params.flat.device)
                for part in (params, opt, job):
                    part.keep(rows)
                active = [active[row] for row in kept]
                step_fn.reset()
        step_fn(step)
    return monitors, curves
