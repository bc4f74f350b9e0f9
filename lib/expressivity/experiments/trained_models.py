"""Which instances the trained-models stage runs: one job's rows from its wildcards and settings.

One function per compute job. Each takes the job's wildcards (as Snakemake gives them: strings, or
the same values as numbers), the root ``seed``, the torch ``threads`` and ``device`` and the config
settings the job uses, all by keyword; configures torch (``expressivity.torch_runtime``); draws its
randomness from ``expressivity.rng`` streams named after the stage and the wildcards; writes its
progress lines to ``log``; and returns tidy rows (one dict per observation) that the workflow
writes as CSV.

- ``memorization_rows`` (Kajitsuka & Sato 2024, Sec. 6, reconstructed): one variant of the
  one-layer memorization run, ``learned`` (tied rank-1 ``w`` learned), ``fixed`` (``w`` fixed at
  the projection vector of the construction, ``expressivity.rank1.projection``) or
  ``no_attention`` (token-wise FFN); its accuracy curve and one summary row with the ceilings
  (``expressivity.accuracy_ceilings``) and the construction's parameter count.
- ``heads_rows``: the heads/rank ablation, ``h`` heads of tied head size ``s`` (or ``d``).
- ``width_rows``: the smallest FFN width training fits to 100 % at one ``N`` (``minimal_width``).
- ``copy_rows``: Yun et al. 2020b's copying task with one sparse pattern at one depth.
- ``mixers_rows``: Yun et al. 2020a, Sec. 5 at toy scale: one token-mixing model on the counting
  task.
"""

from __future__ import annotations

from typing import TextIO

from expressivity.accuracy_ceilings import hardmax_ceiling, token_ceiling
from expressivity.datasets import TokenDataset, token_separated_dataset
from expressivity.parameter_count import construction_parameters
from expressivity.rank1.projection import draw_projection
from expressivity.rng import generator
from expressivity.sparse_patterns import pattern_masks
from expressivity.torch_runtime import configure_torch, run_info, torch_seed
from expressivity.training import memorize, train_encoder
from expressivity.transformer_models import hybrid_mixers

STAGE = "trained_models"


def _dataset(seed: int, *, vocab_size: int, d: int, n: int, N: int,  # noqa: N803
             n_classes: int) -> TokenDataset:
    """The token-wise separated dataset with ``N`` sequences; one stream per ``N``."""
    return token_separated_dataset(generator(seed, f"{STAGE}.dataset", N=N), vocab_size, d, n, N,
                                   n_classes)


def memorization_rows(*, variant: str, seed: int, threads: int, device: str, vocab_size: int,
                      d: int, n: int, N: int, n_classes: int, width: int, epochs: int,  # noqa: N803
                      lr: float, record_every: int,
                      log: TextIO | None = None) -> tuple[list[dict], list[dict]]:
    """One memorization variant: ``(curve rows, [summary row])``."""
    dev = configure_torch(threads, device)
    ds = _dataset(seed, vocab_size=vocab_size, d=d, n=n, N=N, n_classes=n_classes)
    rng = generator(seed, f"{STAGE}.memorize", variant=variant)
    w_fixed, heads = None, 1
    if variant == "fixed":
        v, _, _ = draw_projection(rng, ds.vocab)
        w_fixed = v.reshape(1, ds.d, 1)
    elif variant == "no_attention":
        heads = 0
    elif variant != "learned":
        raise ValueError(f"unknown variant {variant!r}; use learned, fixed or no_attention")
    res = memorize(ds, width=width, heads=heads, head_size=1, w_fixed=w_fixed, epochs=epochs,
                   lr=lr, seed=torch_seed(rng), record_every=record_every, device=dev, log=log,
                   label=variant)
    model = res["model"]
    attention = model.attention  # None without attention
    curve = [{"variant": variant, **point} for point in res["curve"]]
    summary = {
        "variant": variant, "N": ds.N, "n": ds.n, "d": ds.d, "vocab_size": ds.vocab_size,
        "n_classes": int(ds.labels.max()) + 1, "width": width, "epochs_budget": epochs, "lr": lr,
        "accuracy": res["accuracy"], "accuracy_hardmax": res["accuracy_hardmax"],
        "epochs_to_perfect": res["epochs_to_perfect"],
        "hardmax_ceiling": (hardmax_ceiling(ds, attention.w.detach().cpu().numpy()[0, :, 0])
                            if attention is not None else float("nan")),
        "token_ceiling": token_ceiling(ds),
        "temperature": (float(attention.log_lam.detach().exp()[0]) if attention is not None
                        else float("nan")),
        "ffn_parameters": model.ffn_parameters(),
        "attention_parameters": model.attention_parameters(),
        "construction_parameters": construction_parameters(ds.N, ds.n, ds.d)["total"],
        **run_info(dev),
    }
    return curve, [summary]


def heads_rows(*, heads: int | str, size: int | str, seed: int, threads: int, device: str,
               vocab_size: int, d: int, n: int, N: int, n_classes: int, width: int,  # noqa: N803
               epochs: int, lr: float, record_every: int,
               log: TextIO | None = None) -> list[dict]:
    """``heads`` tied heads of size ``size`` (``"d"``: full rank) on the memorization dataset."""
    label, heads = str(size), int(heads)
    head_size = d if label == "d" else int(label)
    dev = configure_torch(threads, device)
    ds = _dataset(seed, vocab_size=vocab_size, d=d, n=n, N=N, n_classes=n_classes)
    rng = generator(seed, f"{STAGE}.heads", heads=heads, size=label)
    res = memorize(ds, width=width, heads=heads, head_size=head_size, epochs=epochs, lr=lr,
                   seed=torch_seed(rng), record_every=record_every, device=dev, log=log,
                   label=f"h={heads} s={head_size}")
    return [{
        "heads": heads, "head_size": head_size, "head_size_label": label, "N": ds.N, "n": ds.n,
        "d": ds.d, "width": width, "epochs_budget": epochs, "accuracy": res["accuracy"],
        "accuracy_hardmax": res["accuracy_hardmax"], "epochs_to_perfect": res["epochs_to_perfect"],
        "attention_parameters": res["model"].attention_parameters(), **run_info(dev),
    }]


def minimal_width(ds: TokenDataset, widths: list[int], **train) -> tuple[int | None, list[dict]]:
    """The smallest width in increasing ``widths`` whose training reaches 100 %, and every run.

    Widths are tried in order and the search stops at the first success, so the returned width is
    the smallest *tried* width that training fits within its epoch budget (an upper bound on the
    smallest width that could memorize ``ds``; training can miss a solution that exists).
    ``train`` goes to ``expressivity.training.memorize``.
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


def width_rows(*, N: int | str, seed: int, threads: int, device: str,  # noqa: N803
               vocab_size: int, d: int, n: int, n_classes: int, lr: float, widths: list[int],
               epochs: int, log: TextIO | None = None) -> list[dict]:
    """The smallest width training fits at ``N`` (one tied rank-1 head), one row per width tried,
    next to the construction's width ``n N`` and parameter count."""
    N = int(N)  # noqa: N806
    dev = configure_torch(threads, device)
    ds = _dataset(seed, vocab_size=vocab_size, d=d, n=n, N=N, n_classes=n_classes)
    rng = generator(seed, f"{STAGE}.width", N=N)
    best, runs = minimal_width(ds, widths, heads=1, head_size=1, epochs=epochs, lr=lr,
                               seed=torch_seed(rng), record_every=epochs, device=dev, log=log,
                               label=f"N={N}")
    construction = construction_parameters(N, ds.n, ds.d)
    return [{
        "N": N, "n": ds.n, "d": ds.d, **run, "reached": run["accuracy"] == 1.0,
        "minimal_width": best, "max_width_tried": max(widths),
        "construction_ffn_width": construction["ffn_width"],
        "construction_ffn_parameters": construction["ffn"],
        "construction_parameters": construction["total"], "epochs_budget": epochs,
        **run_info(dev),
    } for run in runs]


def copy_rows(*, pattern: str, depth: int | str, seed: int, threads: int, device: str, n: int,
              vocab: int, d_model: int, heads: int, steps: int, batch: int, lr: float,
              eval_size: int, record_every: int, log: TextIO | None = None) -> list[dict]:
    """An encoder of ``depth`` attention layers cycling through ``pattern``'s masks
    (``expressivity.sparse_patterns``) trained on the copy task."""
    depth = int(depth)
    dev = configure_torch(threads, device)
    cycle = pattern_masks(pattern, n, rng=generator(seed, f"{STAGE}.pattern", pattern=pattern))
    masks = [cycle[layer % len(cycle)] for layer in range(depth)]
    rng = generator(seed, f"{STAGE}.copy", pattern=pattern, depth=depth)
    res = train_encoder(rng, task="copy", n=n, vocab=vocab, mixers=["attention"] * depth,
                        masks=masks, d_model=d_model, heads=heads, steps=steps, batch=batch,
                        lr=lr, eval_size=eval_size, record_every=record_every, device=dev,
                        log=log, label=f"{pattern} L={depth}")
    return [{
        "pattern": pattern, "depth": depth, "n": n, "vocab": vocab, "cycle_length": len(cycle),
        "connections_max": max(int(m.sum()) for m in cycle), "accuracy": res["accuracy"],
        "steps": steps, "parameters": res["parameters"], **run_info(dev),
    }]


def mixers_rows(*, alternative: str, k: int | str, seed: int, threads: int, device: str, n: int,
                vocab: int, depth: int, kernel: int, d_model: int, heads: int, steps: int,
                batch: int, lr: float, eval_size: int, record_every: int,
                log: TextIO | None = None) -> list[dict]:
    """``depth - k`` layers of ``alternative`` below ``k`` attention layers, on the counting
    task."""
    k = int(k)
    dev = configure_torch(threads, device)
    mixers = hybrid_mixers(alternative, k, depth)
    rng = generator(seed, f"{STAGE}.mixers", alternative=alternative, k=k)
    res = train_encoder(rng, task="count", n=n, vocab=vocab, mixers=mixers, d_model=d_model,
                        heads=heads, kernel=kernel, steps=steps, batch=batch, lr=lr,
                        eval_size=eval_size, record_every=record_every, device=dev, log=log,
                        label="+".join(mixers))
    return [{
        "alternative": alternative, "attention_layers": k, "depth": depth,
        "layers": "+".join(mixers), "task": "count", "accuracy": res["accuracy"], "steps": steps,
        "parameters": res["parameters"], **run_info(dev),
    }]
