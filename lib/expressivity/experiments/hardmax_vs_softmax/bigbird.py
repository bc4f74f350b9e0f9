"""Jobs of the BigBird study (``expressivity.bigbird``): furthest vectors at one ``n``."""

from __future__ import annotations

import math

import numpy as np

from expressivity.bigbird import (
    furthest_reference,
    furthest_vector_attention,
    nearest_index,
    random_unit_vectors,
    sufficient_beta,
)
from expressivity.rng import generator


def bigbird_table(*, seed: int, n: int, trials: int, beta_min: float, beta_max: float,
                  n_betas: int) -> list[dict[str, object]]:
    """BigBird Task 1 at one ``n`` with ``d = ceil(log2 n)^2``: per trial the hardmax exactness and
    the softmax accuracy on a log grid of ``beta`` plus the instance's ``sufficient_beta``."""
    d = math.ceil(math.log2(n)) ** 2
    rows = []
    for trial in range(trials):
        U = random_unit_vectors(generator(seed, "hardmax_vs_softmax.bigbird", n=n, trial=trial),
                                n, d)
        truth = furthest_reference(U)
        beta_suff = sufficient_beta(U)
        base = {"n": n, "d": d, "trial": trial, "beta_sufficient": beta_suff}
        hard = furthest_vector_attention(U, "hardmax")
        rows.append({**base, "sigma": "hardmax", "beta": math.inf,
                     "accuracy": float(np.mean(np.all(hard == U[truth], axis=1))),
                     "at_or_above_sufficient": True})
        betas = np.append(np.logspace(math.log10(beta_min), math.log10(beta_max), n_betas),
                          beta_suff)
        for beta in np.sort(betas[np.isfinite(betas)]):
            soft = furthest_vector_attention(U, "softmax", beta=beta)
            rows.append({**base, "sigma": "softmax", "beta": float(beta),
                         "accuracy": float(np.mean(nearest_index(soft, U) == truth)),
                         "at_or_above_sufficient": bool(beta >= beta_suff)})
    return rows
