"""Jobs of the Theorem 1 study (``expressivity.theorem1``): random one-layer attentions on the
counterexample, and the explicit softmax memorizer token by token."""

from __future__ import annotations

import numpy as np

from expressivity.rng import generator
from expressivity.theorem1 import (
    THEOREM1_LABELS,
    THEOREM1_TOKENS,
    explicit_memorizer,
    random_heads,
    shared_token_gap,
    shared_tokens_equal_exactly,
    theorem1_sequences,
)


def theorem1_search(*, seed: int, n_draws: int, d: int, heads_max: int, head_size_max: int,
                    weight_scales: list[float], tie_tol: float,
                    exact_draws: int) -> list[dict[str, object]]:
    """Random one-layer multi-head attentions on the Theorem 1 pair: per draw the output gap at the
    shared tokens under hardmax and softmax, and (for the first ``exact_draws``) whether the hardmax
    outputs are equal in exact rational arithmetic."""
    rows = []
    for draw in range(n_draws):
        rng = generator(seed, "hardmax_vs_softmax.theorem1", draw=draw)
        e = rng.standard_normal(d)
        e /= np.linalg.norm(e)
        h = int(rng.integers(1, heads_max + 1))
        s = int(rng.integers(1, head_size_max + 1))
        scale = float(rng.choice(weight_scales))
        heads = random_heads(rng, d, h, s, scale)
        rows.append({
            "draw": draw, "heads": h, "head_size": s, "weight_scale": scale,
            "gap_hardmax": shared_token_gap(heads, e, "hardmax", tie_tol=tie_tol),
            "gap_softmax": shared_token_gap(heads, e, "softmax"),
            "hardmax_equal_exact": shared_tokens_equal_exactly(heads, e) if draw < exact_draws
            else None,
        })
    return rows


def memorizer_table(*, d: int, lam: float) -> list[dict[str, object]]:
    """Every token of the Theorem 1 dataset through ``explicit_memorizer``: label and output."""
    e = np.eye(d)[0]
    model = explicit_memorizer(e, lam=lam)
    rows = []
    for seq, (X, labels) in enumerate(zip(theorem1_sequences(e), THEOREM1_LABELS, strict=True)):
        for k, (t, y, f, o) in enumerate(zip(THEOREM1_TOKENS[seq], labels, model.features(X),
                                             model(X), strict=True)):
            rows.append({"sequence": seq + 1, "position": k, "token": t, "label": int(y),
                         "feature": float(f), "output": float(o), "predicted": int(np.rint(o)),
                         "n_parameters": model.n_parameters})
    return rows


def theorem1_tables(*, seed: int, n_draws: int, d: int, heads_max: int, head_size_max: int,
                    weight_scales: list[float], tie_tol: float, exact_draws: int,
                    lam: float) -> dict[str, list[dict]]:
    """The job's two tables: ``search`` (``theorem1_search``) and ``memorizer``
    (``memorizer_table`` in the same dimension ``d``)."""
    search = theorem1_search(seed=seed, n_draws=n_draws, d=d, heads_max=heads_max,
                             head_size_max=head_size_max, weight_scales=weight_scales,
                             tie_tol=tie_tol, exact_draws=exact_draws)
    return {"search": search, "memorizer": memorizer_table(d=d, lam=lam)}
