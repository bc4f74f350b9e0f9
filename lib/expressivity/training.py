"""What gradient training reaches on the questions the constructions answer (PyTorch, CPU default).

Four experiments, each a function returning tidy rows (one dict per observation):

1. ``memorize``: Kajitsuka & Sato 2024, Sec. 6, reconstructed (notes ``kajitsuka_sato.md`` Sec. 6.3,
   [D]; the paper's dataset, optimiser settings and figure were not retrievable). A one-layer
   ``TokenClassifier`` (tied ``W_Q = W_K = W_V``, learned temperature, separate ``W_O``, ReLU FFN,
   per-token classifier) trained with full-batch Adam on a token-wise separated dataset
   (``expressivity.datasets``) with permutation-consistent labels; training accuracy against epoch.
   Evaluation with hardmax instead of softmax uses the trained weights unchanged.
2. ``copy_task`` / ``train_encoder``: Yun et al. 2020b, Sec. 5 (copying task, [S] quoted: "Except for
   the STAR and RANDOM patterns, we can see that the networks learn to copy the sequences with four
   sparse attention layers"). Our small version ([O]): the first ``n/2`` positions hold random
   tokens, the last ``n/2`` a blank; position ``n/2 + i`` must output token ``i``. Encoders of depth
   ``L`` cycle through the pattern's masks (``expressivity.sparse_patterns``).
3. ``count_task``: a synthetic task that needs context for Yun et al. 2020a, Sec. 5 (attention versus
   bilinear projection versus depth-wise separable convolution, and hybrids; [M], ours at toy
   scale): every token's label is the number of times it occurs in its sequence.
4. Determinism: every random draw comes from ``expressivity.rng`` generators; the torch seed of a
   job is drawn from its generator (``torch_seed``); ``configure_torch`` switches on deterministic
   algorithms and fixes the number of threads. Same config, same bytes out.

Also here: ``construction_parameters`` (the parameter count of the explicit construction, notes
Sec. 4.3 [D]: ``2 n N + d`` FFN weights by Zhang et al. 2017 Thm 1 plus ``4 d`` rank-1 attention
weights) and ``hardmax_ceiling`` (the best accuracy any FFN can reach on the hardmax context of the
tied rank-1 layer).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import TextIO

import numpy as np
import torch

from expressivity.datasets import TokenDataset
from expressivity.transformer_models import SequenceEncoder, TokenClassifier


def configure_torch(threads: int = 1, device: str = "cpu") -> torch.device:
    """Deterministic torch: ``use_deterministic_algorithms(True)``, ``threads`` CPU threads.

    ``device`` is ``"cpu"``, ``"cuda"`` or ``"auto"`` (a GPU when one is present, else the CPU).
    CUDA needs ``CUBLAS_WORKSPACE_CONFIG`` for deterministic matrix products; it is set here.
    """
    if threads < 1:
        raise ValueError(f"threads must be >= 1, got {threads}")
    if device not in ("cpu", "cuda", "auto"):
        raise ValueError(f"device must be 'cpu', 'cuda' or 'auto', got {device!r}")
    torch.set_num_threads(threads)
    os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
    torch.use_deterministic_algorithms(True)
    if device == "auto":
        device = "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cuda" and not torch.cuda.is_available():
        raise ValueError("device 'cuda' requested but torch sees no GPU; use 'cpu' or 'auto'")
    return torch.device(device)


def device_name(device: torch.device) -> str:
    """``"cpu"`` or ``"cuda:<GPU name>"``, for the CSV."""
    if device.type == "cuda":
        return f"cuda:{torch.cuda.get_device_name(device)}"
    return "cpu"


def run_info(device: torch.device, dtype: torch.dtype = torch.float32) -> dict[str, object]:
    """Columns every table of the stage carries: device, threads, precision, torch version."""
    return {"device": device_name(device), "threads": torch.get_num_threads(),
            "precision": str(dtype).removeprefix("torch."), "torch": torch.__version__}


def token_ceiling(ds: TokenDataset) -> float:
    """Best training accuracy of any token-wise map without attention: each token's majority
    label over all its occurrences, summed, over ``n N`` (the attention-free baseline's bound)."""
    counts: dict[int, dict[int, int]] = {}
    for t, y in zip(ds.sequences.reshape(-1), ds.labels.reshape(-1), strict=True):
        c = counts.setdefault(int(t), {})
        c[int(y)] = c.get(int(y), 0) + 1
    return sum(max(c.values()) for c in counts.values()) / ds.sequences.size


def torch_seed(rng: np.random.Generator) -> int:
    """A torch seed drawn from a job's numpy generator (so it derives from the root seed)."""
    return int(rng.integers(0, 2**62))


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


# --------------------------------------------------------------------------------------------
# 1. Memorization with a one-layer tied low-rank transformer (Kajitsuka & Sato 2024, Sec. 6)
# --------------------------------------------------------------------------------------------

def construction_parameters(N: int, n: int, d: int) -> dict[str, int]:  # noqa: N803
    """Parameter count of the explicit one-layer memorizer (notes Sec. 4.3, [D]).

    Rank-1 attention ``W_O, W_V, W_K, W_Q``: ``4 d``. Zhang et al. 2017 Thm 1 FFN on the ``m = n N``
    contextual points (scalar labels): ``2 m + d`` weights with ``m`` hidden units.
    """
    for name, value in (("N", N), ("n", n), ("d", d)):
        if value < 1:
            raise ValueError(f"{name} must be >= 1, got {value}")
    m = n * N
    return {"attention": 4 * d, "ffn": 2 * m + d, "ffn_width": m, "total": 4 * d + 2 * m + d}


def hardmax_ceiling(ds: TokenDataset, w: np.ndarray) -> float:
    """Best training accuracy of any token-wise map after one tied rank-1 *hardmax* layer.

    With ``z_j = w^T x_j`` and score ``lam z_k z_j`` (``lam > 0``), hardmax attends the key with the
    largest ``z`` when ``z_k > 0``, the smallest when ``z_k < 0``, and averages all keys when
    ``z_k = 0`` (Kajitsuka & Sato 2024, Thm 1 mechanism; notes Sec. 2). The layer's output at token
    ``k`` is therefore a function of (token, that extreme/mean): each group of equal keys can carry
    one label, and the ceiling is the sum of the groups' majority counts over ``n N``.
    """
    w = np.asarray(w, dtype=float).reshape(-1)
    z = ds.vocab @ w
    zs = z[ds.sequences]
    groups: dict[tuple, dict[int, int]] = {}
    for i in range(ds.N):
        top, bottom, mean = zs[i].max(), zs[i].min(), zs[i].mean()
        for k in range(ds.n):
            zk = zs[i, k]
            ctx = ("max", top) if zk > 0 else ("min", bottom) if zk < 0 else ("mean", mean)
            key = (int(ds.sequences[i, k]), *ctx)
            counts = groups.setdefault(key, {})
            y = int(ds.labels[i, k])
            counts[y] = counts.get(y, 0) + 1
    return sum(max(c.values()) for c in groups.values()) / (ds.N * ds.n)


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


def minimal_width(ds: TokenDataset, widths: list[int], **train) -> tuple[int | None, list[dict]]:
    """The smallest width in increasing ``widths`` whose training reaches 100 %, and every run.

    Widths are tried in order and the search stops at the first success, so the returned width is
    the smallest *tried* width that training fits within its epoch budget (an upper bound on the
    smallest width that could memorize ``ds``; training can miss a solution that exists).
    """
    runs = []
    for q in widths:
        res = memorize(ds, width=q, **train)
        runs.append({"width": q, "accuracy": res["accuracy"],
                     "epochs_to_perfect": res["epochs_to_perfect"],
                     "ffn_parameters": res["model"].ffn_parameters()})
        if res["accuracy"] == 1.0:
            return q, runs
    return None, runs


# --------------------------------------------------------------------------------------------
# 2./3. Sequence tasks for encoders (Yun et al. 2020b copying; Yun et al. 2020a, Sec. 5)
# --------------------------------------------------------------------------------------------

def copy_task(rng: np.random.Generator, batch: int, n: int, vocab: int):
    """Copy the first half into the second half (our small copying task, [O]).

    Tokens ``1..vocab`` are content, ``0`` is the blank. Returns ``tokens: (B, n)``, ``targets:
    (B, n)`` and ``scored: (B, n)`` bool: position ``n/2 + i`` must output token ``i`` (only the
    second half is scored). Needs even ``n``.
    """
    if n % 2 or n < 2:
        raise ValueError(f"copying needs an even length n >= 2, got {n}")
    half = n // 2
    content = rng.integers(1, vocab + 1, size=(batch, half))
    tokens = np.concatenate([content, np.zeros((batch, half), dtype=content.dtype)], axis=1)
    targets = np.concatenate([content, content], axis=1)
    scored = np.zeros((batch, n), dtype=bool)
    scored[:, half:] = True
    return tokens, targets, scored


def count_task(rng: np.random.Generator, batch: int, n: int, vocab: int, cap: int = 6):
    """Label every token with the number of times it occurs in its sequence (capped at ``cap``).

    A permutation-equivariant task that needs the whole sequence ([O]). Tokens are ``0..vocab-1``;
    labels are ``1..cap`` (class ``cap`` means "``cap`` or more"); every position is scored.
    """
    if vocab < 1 or cap < 1:
        raise ValueError(f"need vocab, cap >= 1, got {vocab}, {cap}")
    tokens = rng.integers(0, vocab, size=(batch, n))
    counts = (tokens[:, :, None] == tokens[:, None, :]).sum(-1)
    return tokens, np.minimum(counts, cap), np.ones((batch, n), dtype=bool)


TASKS: dict[str, Callable] = {"copy": copy_task, "count": count_task}


def task_classes(task: str, vocab: int, cap: int = 6) -> tuple[int, int]:
    """(input vocabulary size, number of output classes) of a task."""
    if task == "copy":
        return vocab + 1, vocab + 1
    if task == "count":
        return vocab, cap + 1
    raise ValueError(f"unknown task {task!r}; use one of {', '.join(TASKS)}")


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


def hybrid_mixers(alternative: str, attention_layers: int, depth: int) -> list[str]:
    """``depth`` layers: ``depth - k`` of ``alternative`` below ``k`` attention layers on top."""
    if not 0 <= attention_layers <= depth:
        raise ValueError(f"attention_layers must be in [0, {depth}], got {attention_layers}")
    return [alternative] * (depth - attention_layers) + ["attention"] * attention_layers
