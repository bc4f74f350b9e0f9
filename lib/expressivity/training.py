"""The training loops: full-batch memorization and encoders on fresh batches (PyTorch, CPU default).

- ``memorize``: Kajitsuka & Sato 2024, Sec. 6, reconstructed (notes ``kajitsuka_sato.md`` Sec. 6.3,
  [D]; the paper's dataset, optimiser settings and figure were not retrievable). A one-layer
  ``TokenClassifier`` (``expressivity.transformer_models``: tied ``W_Q = W_K = W_V``, learned
  temperature, separate ``W_O``, ReLU FFN, per-token classifier) trained with full-batch Adam on a
  token-wise separated dataset (``expressivity.datasets``) with permutation-consistent labels;
  training accuracy against epoch. Evaluation with hardmax instead of softmax uses the trained
  weights unchanged.
- ``train_encoder``: a ``SequenceEncoder`` trained with Adam on fresh batches of a sequence task
  (``expressivity.tasks``: Yun et al. 2020b's copying, the counting task for Yun et al. 2020a,
  Sec. 5) and tested on a held-out set.

Both minimise the cross-entropy of the scored positions, ``-mean log softmax(logits)[target]``,
and report the token accuracy, ``mean(argmax logits == target)``. Every random draw comes from the
seed given or the job's generator (``expressivity.torch_runtime``): same config, same bytes out.
"""

from __future__ import annotations

import time
from typing import TextIO

import numpy as np
import torch

from expressivity.datasets import TokenDataset
from expressivity.tasks import TASKS, task_classes
from expressivity.torch_runtime import torch_seed
from expressivity.transformer_models import SequenceEncoder, TokenClassifier


class Progress:
    """Writes one line per block of epochs/steps to a log stream (not one per step)."""

    def __init__(self, log: TextIO | None, label: str, every: int):
        self.log, self.label, self.every = log, label, max(1, every)
        self.start = time.perf_counter()

    def __call__(self, step: int, total: int, **values: float) -> None:
        if self.log is None or (step % self.every and step != total):
            return
        text = " ".join(f"{k}={v:.4g}" for k, v in values.items())
        self.log.write(f"[{self.label}] {step}/{total} {text} "
                       f"({time.perf_counter() - self.start:.1f} s)\n")
        self.log.flush()


def _accuracy(logits: torch.Tensor, y: torch.Tensor) -> float:
    return float((logits.argmax(-1) == y).double().mean())


def memorize(ds: TokenDataset, *, width: int, heads: int = 1, head_size: int = 1,
             w_fixed: np.ndarray | None = None, epochs: int, lr: float, seed: int,
             record_every: int = 10, stop_at_perfect: bool = True,
             dtype: torch.dtype = torch.float32, device: torch.device | None = None,
             log: TextIO | None = None, label: str = "memorize") -> dict:
    """Train a ``TokenClassifier`` with full-batch Adam on ``ds``; return curve and summary.

    ``heads = 0`` gives the attention-free baseline. Returns ``{"curve": [{"epoch", "loss",
    "accuracy"}], "epochs_to_perfect": int | None, "accuracy": final softmax accuracy,
    "accuracy_hardmax": final accuracy with hardmax attention, "model": the trained model}``.
    Epoch ``e`` is the model after ``e`` Adam steps; the curve is recorded every ``record_every``
    epochs and at the last one (with ``stop_at_perfect``, training stops at the first epoch with
    100 % accuracy, so the final model is the one that memorized).
    """
    if epochs < 1 or lr <= 0:
        raise ValueError(f"need epochs >= 1 and lr > 0, got {epochs}, {lr}")
    device = torch.device("cpu") if device is None else device
    torch.manual_seed(seed)
    model = TokenClassifier(ds.d, int(ds.labels.max()) + 1, width, heads, head_size,
                            w_fixed, dtype).to(device)
    X = torch.as_tensor(ds.inputs(), dtype=dtype, device=device)
    y = torch.as_tensor(ds.labels, device=device)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    loss_fn = torch.nn.CrossEntropyLoss()
    progress = Progress(log, label, max(record_every, epochs // 10))
    curve, reached = [], None
    for epoch in range(epochs + 1):
        opt.zero_grad()
        logits = model(X)
        loss = loss_fn(logits.reshape(-1, logits.shape[-1]), y.reshape(-1))
        acc = _accuracy(logits.detach(), y)
        if acc == 1.0 and reached is None:
            reached = epoch
        done = epoch == epochs or (stop_at_perfect and reached is not None)
        if epoch % record_every == 0 or done:
            curve.append({"epoch": epoch, "loss": float(loss.detach()), "accuracy": acc})
        progress(epoch, epochs, loss=float(loss.detach()), accuracy=acc)
        if done:
            break
        loss.backward()
        opt.step()
    with torch.no_grad():
        final = _accuracy(model(X), y)
        hard = _accuracy(model(X, sigma="hardmax"), y) if heads > 0 else final
    return {"curve": curve, "epochs_to_perfect": reached, "accuracy": final,
            "accuracy_hardmax": hard, "model": model}


def train_encoder(rng: np.random.Generator, *, task: str, n: int, vocab: int, mixers: list[str],
                  masks: list | None = None, d_model: int = 32, heads: int = 2, kernel: int = 3,
                  steps: int, batch: int, lr: float, eval_size: int = 512,
                  record_every: int = 50, device: torch.device | None = None,
                  log: TextIO | None = None, label: str = "encoder") -> dict:
    """Train a ``SequenceEncoder`` with Adam on fresh batches of ``task``; test on a held-out set.

    All data come from ``rng`` (numpy); the torch initialisation from ``torch_seed(rng)``. Returns
    ``{"curve": [{"step", "loss", "accuracy"}], "accuracy": final held-out token accuracy on the
    scored positions, "parameters": number of trainable parameters}``.
    """
    sampler = TASKS.get(task)
    if sampler is None:
        raise ValueError(f"unknown task {task!r}; use one of {', '.join(TASKS)}")
    if steps < 1 or batch < 1 or lr <= 0:
        raise ValueError(f"need steps, batch >= 1 and lr > 0, got {steps}, {batch}, {lr}")
    device = torch.device("cpu") if device is None else device
    n_in, n_out = task_classes(task, vocab)
    torch.manual_seed(torch_seed(rng))
    model = SequenceEncoder(n_in, n, d_model, mixers, n_out, heads=heads, masks=masks,
                            kernel=kernel).to(device)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    test = [torch.as_tensor(a, device=device) for a in sampler(rng, eval_size, n, vocab)]
    progress = Progress(log, label, max(record_every, steps // 10))

    def evaluate() -> float:
        model.eval()
        with torch.no_grad():
            pred = model(test[0]).argmax(-1)
        model.train()
        return float((pred == test[1])[test[2]].double().mean())

    curve = []
    for step in range(1, steps + 1):
        tokens, targets, scored = (torch.as_tensor(a, device=device)
                                   for a in sampler(rng, batch, n, vocab))
        logits = model(tokens)
        loss = torch.nn.functional.cross_entropy(logits[scored], targets[scored])
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % record_every == 0 or step == steps:
            acc = evaluate()
            curve.append({"step": step, "loss": float(loss.detach()), "accuracy": acc})
            progress(step, steps, loss=float(loss.detach()), accuracy=acc)
    params = sum(p.numel() for p in model.parameters() if p.requires_grad)
    return {"curve": curve, "accuracy": curve[-1]["accuracy"], "parameters": params}
