"""The training loops: full-batch memorization and encoders on fresh batches (PyTorch, CPU default).

Both run under the stage's protocol (``expressivity.training_protocol``): early stopping at the
target accuracy, a plateau rule, a step budget, and one outcome per run (``reached``, ``plateau``,
``budget``).

- ``memorize``: Kajitsuka & Sato 2024, Sec. 6, reconstructed (notes ``kajitsuka_sato.md`` Sec. 6.3,
  [D]; the paper's dataset, optimiser settings and figure were not retrievable). One
  ``TokenClassifier`` per seed (``expressivity.transformer_models``: tied ``W_Q = W_K = W_V``,
  learned temperature, separate ``W_O``, ReLU FFN, per-token classifier), all seeds trained side by
  side as independent replicas with full-batch Adam on one token dataset; the metric is the
  training accuracy, evaluated every epoch. The attention normaliser is softmax, hardmax (trained
  with the straight-through estimator) or uniform (``lam = 0``).
- ``train_encoders``: one ``SequenceEncoder`` per seed, trained side by side with Adam on fresh
  batches of a sequence task (``expressivity.tasks``: Yun et al. 2020b's copying, the counting task
  for Yun et al. 2020a, Sec. 5); the metric is the token accuracy on a held-out set drawn once per
  seed, evaluated every ``protocol.every`` steps.

Both minimise the cross-entropy of the scored positions, ``-mean log softmax(logits)[target]``,
and report the token accuracy, ``mean(argmax logits == target)``. Every random draw comes from the
seeds given or the job's generator (``expressivity.torch_runtime``): same config, same bytes out.
Progress goes to a ``expressivity.joblog.Progress`` (done/total steps, elapsed, remaining).
"""

from __future__ import annotations

import copy

import numpy as np
import torch
from torch.func import functional_call, stack_module_state

from expressivity.arguments import integer
from expressivity.datasets import TokenDataset
from expressivity.joblog import Progress
from expressivity.tasks import TASKS, task_classes
from expressivity.torch_runtime import check_device, torch_seed
from expressivity.training_protocol import Monitor, Protocol
from expressivity.transformer_models import SIGMAS, SequenceEncoder, TokenClassifier, check_seeds


def _check_lr(lr: float) -> None:
    if isinstance(lr, bool) or not (isinstance(lr, (int, float)) and 0 < lr < float("inf")):
        raise ValueError(f"lr must be a finite number > 0, got {lr!r}")


def _check_protocol(protocol) -> None:
    if not isinstance(protocol, Protocol):
        raise TypeError(f"protocol must be a training_protocol.Protocol, got {protocol!r}")


def memorize(ds: TokenDataset, *, width: int, seeds: tuple[int, ...], protocol: Protocol,
             lr: float, heads: int = 1, head_size: int = 1, w_fixed: np.ndarray | None = None,
             sigma: str = "softmax", record_every: int = 10, dtype: torch.dtype = torch.float32,
             device: torch.device | None = None, progress: Progress | None = None,
             done_before: float = 0.0) -> dict:
    """Train one ``TokenClassifier`` per seed with full-batch Adam on ``ds`` until each stops.

    ``heads = 0`` gives the attention-free baseline. Epoch ``e`` is the model after ``e`` Adam steps;
    each replica stops under ``protocol`` (its training accuracy and loss, every epoch). Returns
    ``{"runs": [per seed: the monitor's result (outcome, stopped_at, steps_to_target, loss,
    accuracy) and "w", "lam" (its attention weights at the stop, None without attention)],
    "curve": [{"seed", "epoch", "loss", "accuracy"}] every ``record_every`` epochs and at each
    stop, "ffn_parameters", "attention_parameters"}``. ``progress`` counts epochs from
    ``done_before``.
    """
    _check_lr(lr)
    _check_protocol(protocol)
    if sigma not in SIGMAS:
        raise ValueError(f"sigma must be one of {SIGMAS}, got {sigma!r}")
    record_every = integer("record_every", record_every, 1)
    if not (isinstance(dtype, torch.dtype) and dtype.is_floating_point):
        raise ValueError(f"dtype must be a floating-point torch dtype, got {dtype!r}")
    device, seeds = check_device(device), check_seeds(seeds)
    model = TokenClassifier(ds.d, int(ds.labels.max()) + 1, width, heads, head_size, w_fixed,
                            dtype, seeds).to(device)
    X = torch.as_tensor(ds.inputs(), dtype=dtype, device=device)
    y = torch.as_tensor(ds.labels, device=device)
    opt = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=lr,
                           foreach=True)
    monitors = [Monitor(protocol) for _ in seeds]
    snapshots: list[dict | None] = [None] * len(seeds)
    curve = []
    for epoch in range(protocol.budget + 1):
        logits = model(X, sigma)
        losses = torch.nn.functional.cross_entropy(
            logits.reshape(-1, logits.shape[-1]), y.repeat(len(seeds), 1, 1).reshape(-1),
            reduction="none").reshape(len(seeds), -1).mean(1)
        accs = (logits.detach().argmax(-1) == y).double().reshape(len(seeds), -1).mean(1)
        for r, monitor in enumerate(monitors):
            if snapshots[r] is not None:
                continue
            loss, acc = float(losses[r].detach()), float(accs[r])
            stopped = monitor.observe(epoch, loss, acc)
            if epoch % record_every == 0 or stopped:
                curve.append({"seed": seeds[r], "epoch": epoch, "loss": loss, "accuracy": acc})
            if stopped:
                snapshots[r] = _attention_snapshot(model, r)
        if progress is not None:
            progress.update(done_before + epoch, running=sum(s is None for s in snapshots))
        if all(s is not None for s in snapshots):
            break
        opt.zero_grad()
        losses.sum().backward()
        opt.step()
    return {"runs": [{**m.result(), **snap} for m, snap in zip(monitors, snapshots, strict=True)],
            "curve": curve, "ffn_parameters": model.ffn_parameters(),
            "attention_parameters": model.attention_parameters()}


def _attention_snapshot(model: TokenClassifier, replica: int) -> dict:
    """Replica ``replica``'s attention weights ``w: (h, d, s)`` and temperatures ``lam: (h,)``."""
    if model.attention is None:
        return {"w": None, "lam": None}
    att = model.attention
    return {"w": att.w[replica].detach().cpu().numpy().copy(),
            "lam": att.log_lam[replica].detach().exp().cpu().numpy().copy()}


def train_encoders(rngs: list[np.random.Generator], *, task: str, n: int, vocab: int,
                   mixers: list[str], protocol: Protocol, batch: int, lr: float,
                   masks: list | None = None, d_model: int = 32, heads: int = 2, kernel: int = 3,
                   eval_size: int = 512, device: torch.device | None = None,
                   progress: Progress | None = None, done_before: float = 0.0) -> list[dict]:
    """Train one ``SequenceEncoder`` per generator in ``rngs`` with Adam on fresh batches of
    ``task`` until ``protocol`` stops it; the metric is the token accuracy on a held-out set of
    ``eval_size`` sequences.

    The models are trained side by side (``torch.func.vmap`` over their stacked parameters: one
    dispatch for all of them; they share nothing, so each follows its own Adam trajectory). Model
    ``i`` draws its held-out set, its initialisation (``torch_seed(rngs[i])``) and then its batches
    from ``rngs[i]``. Returns per model the monitor's result (outcome, stopped_at, steps_to_target,
    loss and accuracy on the held-out set at the stop) with ``"curve": [{"step", "loss",
    "accuracy"}]`` (held out, every ``protocol.every`` steps until it stopped) and ``"parameters"``
    (trainable, per model). ``progress`` counts steps from ``done_before``.
    """
    sampler = TASKS.get(task)
    if sampler is None:
        raise ValueError(f"unknown task {task!r}; use one of {', '.join(TASKS)}")
    _check_lr(lr)
    _check_protocol(protocol)
    batch, eval_size = integer("batch", batch, 1), integer("eval_size", eval_size, 1)
    if not rngs or not all(isinstance(rng, np.random.Generator) for rng in rngs):
        raise TypeError(f"rngs must be a non-empty list of numpy Generators, got {rngs!r}")
    device = check_device(device)
    n_in, n_out = task_classes(task, vocab)

    def draw(size: int) -> list[torch.Tensor]:
        parts = [sampler(rng, size, n, vocab) for rng in rngs]
        return [torch.as_tensor(np.stack([p[i] for p in parts]), device=device) for i in range(3)]

    test = draw(eval_size)
    models = []
    for rng in rngs:
        torch.manual_seed(torch_seed(rng))
        models.append(SequenceEncoder(n_in, n, d_model, mixers, n_out, heads=heads, masks=masks,
                                      kernel=kernel).to(device))
    params, buffers = stack_module_state(models)
    template = copy.deepcopy(models[0]).to("meta")
    forward = torch.vmap(lambda p, b, x: functional_call(template, (p, b), (x,)))
    opt = torch.optim.Adam(list(params.values()), lr=lr, foreach=True)
    monitors = [Monitor(protocol) for _ in rngs]
    curves: list[list[dict]] = [[] for _ in rngs]

    def losses_and_accuracies(tokens, targets, scored) -> tuple[torch.Tensor, torch.Tensor]:
        logits = forward(params, buffers, tokens)
        per_token = torch.nn.functional.cross_entropy(
            logits.reshape(-1, logits.shape[-1]), targets.reshape(-1), reduction="none")
        weight = scored.reshape(len(rngs), -1).to(per_token.dtype)
        counts = weight.sum(1)
        loss = (per_token.reshape(len(rngs), -1) * weight).sum(1) / counts
        right = ((logits.argmax(-1) == targets) & scored).reshape(len(rngs), -1).sum(1)
        return loss, right.double() / counts

    for step in range(0, protocol.budget + 1):
        if step % protocol.every == 0 or step == protocol.budget:
            with torch.no_grad():
                loss, acc = losses_and_accuracies(*test)
            for i, monitor in enumerate(monitors):
                if monitor.outcome is None:
                    curves[i].append({"step": step, "loss": float(loss[i]),
                                      "accuracy": float(acc[i])})
                    monitor.observe(step, float(loss[i]), float(acc[i]))
            if progress is not None:
                progress.update(done_before + step, accuracy=float(acc.min()),
                                running=sum(m.outcome is None for m in monitors))
            if all(m.outcome is not None for m in monitors):
                break
        loss, _ = losses_and_accuracies(*draw(batch))
        opt.zero_grad()
        loss.sum().backward()
        opt.step()
    size = sum(p.numel() for p in models[0].parameters() if p.requires_grad)
    return [{**m.result(), "curve": curve, "parameters": size}
            for m, curve in zip(monitors, curves, strict=True)]
