"""Which piece of an encoder's training step fails to capture as a CUDA graph (issue 26).

``memorize``'s steps capture and replay on an H100 and an H200; ``train_encoders``' capture fails
there (cudaErrorStreamCaptureInvalidated, every mixer; torch 2.11), so encoders run eagerly on a
GPU (``training.ENCODER_GRAPHS``) and plan at the eager step's rate. This probe captures each piece
of an encoder's step alone (forward, backward and, for the whole step, Adam), each in a fresh
process, since a failed capture can leave the CUDA context unusable, and reports which capture.
``train_encoders`` (attention and a convolution) and ``train_encoders_attention`` run the
library's own capture.

    python benchmarks/capture_probe.py            # every piece, one line each
    python benchmarks/capture_probe.py PIECE      # one piece in this process (what the above runs)

``benchmarks/device_check.sh training`` runs it and keeps the lines in ``training.json``. Without
a GPU every piece reports ``no GPU``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: The pieces, from the smallest to the whole step.
PIECES = ("layer_norm", "ffn", "attention", "attention_masked", "conv", "bilinear", "embedding",
          "token_losses", "encoder", "adam_step", "train_encoders", "train_encoders_attention")


def piece(name: str, device: str = "cuda"):
    """A function of no argument that runs ``name`` on ``device``: a scalar to differentiate, or
    (``adam_step``) the whole step, backward and Adam included, returning None."""
    import numpy as np
    import torch

    from expressivity import sequence_encoder as se
    from expressivity.replica_training import FlatReplicas, ReplicaAdam
    from expressivity.sparse_patterns import pattern_masks
    from expressivity.training import token_losses

    gens = se.generators((1, 2))
    dev = torch.device(device)
    R, B, n, d = 2, 4, 8, 16
    X = torch.randn(R, B, n, d, device=dev, requires_grad=True)
    tokens = torch.randint(0, 4, (R, B, n), device=dev)
    mask = pattern_masks("strided", n, rng=np.random.default_rng(0))[0]
    model = se.SequenceEncoder(4, n, d, ["attention", "conv"], 4, masks=[mask, None],
                               seeds=(1, 2)).to(dev)
    modules = {"layer_norm": se.LayerNorm(d, gens),
               "attention": se.MaskedSelfAttention(d, 2, gens=gens),
               "attention_masked": se.MaskedSelfAttention(d, 2, mask, gens),
               "conv": se.DepthwiseSeparableConv(d, 3, gens),
               "bilinear": se.BilinearProjection(n, d, gens)}
    if name in modules:
        module = modules[name].to(dev)
        return lambda: module(X).sum()
    if name == "ffn":
        f1, f2 = se.Linear(d, 2 * d, gens).to(dev), se.Linear(2 * d, d, gens).to(dev)
        return lambda: f2(torch.relu(f1(X))).sum()
    if name == "embedding":
        return lambda: (torch.bmm((tokens.reshape(R, B * n, 1) == torch.arange(
            4, device=dev)).to(X.dtype), X[:, 0, :4]) + X[:, 0, :1]).sum()
    targets, scored = tokens.flip(-1), tokens > 0
    if name == "token_losses":
        return lambda: token_losses(X[..., :4], targets, scored)[0].sum()
    if name == "encoder":
        return lambda: model(tokens).sum()
    params = FlatReplicas(model)
    opt = ReplicaAdam(params, 0.01)

    def step():
        params.zero_grad()
        params.backward(token_losses(model(tokens), targets, scored)[0].sum())
        opt.step()
    return step


def capture(name: str) -> str:
    """Capture ``name``'s forward and backward (warm-up on a side stream, as
    ``replica_training._Step`` does), replay it twice: "captures" or the error's first line."""
    import numpy as np
    import torch

    if not torch.cuda.is_available():
        return "no GPU"
    from expressivity.torch_runtime import configure_torch

    configure_torch(1, "cuda")
    if name.startswith("train_encoders"):
        from expressivity.training import train_encoders
        from expressivity.training_protocol import Protocol

        rngs = [np.random.default_rng(s) for s in (1, 2)]
        mixers = ["attention"] if name.endswith("attention") else ["attention", "conv"]
        train_encoders(rngs, task="copy", n=8, vocab=4, mixers=mixers,
                       protocol=Protocol(1.0, 20, 10, 10, 0.0), batch=4, lr=0.01, d_model=16,
                       eval_size=8, device="cuda", graphs=True)
        return "captures"
    fn = piece(name)

    def run():
        out = fn()
        if out is not None:
            out.backward()
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        run()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        run()
    graph.replay()
    graph.replay()
    torch.cuda.synchronize()
    return "captures"


def probe(pieces: tuple[str, ...] = PIECES, timeout: float = 30) -> dict[str, str]:
    """Each piece's outcome, each captured in a fresh process."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        filter(None, [str(ROOT / "lib"), os.environ.get("PYTHONPATH")]))}
    found = {}
    for name in pieces:
        try:
            proc = subprocess.run([sys.executable, __file__, name], capture_output=True, text=True,
                                  timeout=timeout, cwd=ROOT, env=env)
        except subprocess.TimeoutExpired:
            found[name] = f"no answer in {timeout:g} s"
            continue
        lines = proc.stdout.strip().splitlines()
        if proc.returncode == 0 and lines:
            found[name] = json.loads(lines[-1])
        else:
            errors = [line for line in proc.stderr.strip().splitlines() if "Error" in line]
            found[name] = (errors or proc.stderr.strip().splitlines() or ["no output"])[-1][:300]
    return found


def main() -> None:
    if len(sys.argv) > 1:
        print(json.dumps(capture(sys.argv[1])))
        return
    for name, outcome in probe().items():
        print(f"{name:18s} {outcome}")


if __name__ == "__main__":
    main()
