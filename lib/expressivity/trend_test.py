"""The Cochran-Armitage test for a trend in binomial proportions (Armitage 1955; Cochran 1954).

Groups ``i`` with ``k_i`` successes of ``n_i`` trials at scores ``x_i``; under "no trend" every
group has the pooled proportion ``p = sum k / sum n`` and

    T = sum_i x_i (k_i - n_i p),   Var T = p (1 - p) (sum_i n_i x_i^2 - (sum_i n_i x_i)^2 / N),

so ``z = T / sqrt(Var T)`` is asymptotically standard normal; a falling proportion gives z < 0.
Vectorised over replicates (rows of ``successes``) for power simulations.
"""

from __future__ import annotations

import numpy as np


def cochran_armitage(successes, trials, scores) -> tuple[np.ndarray, np.ndarray]:
    """``(z, p_falling)``: the statistic and the one-sided p-value of a proportion that falls with
    the score, for ``successes: (..., groups)`` of ``trials: (groups,)`` at ``scores: (groups,)``.
    NaN where every group has the same outcome in every trial (p = 0 or 1: no test)."""
    from scipy import stats  # on use: the workflow imports the claims registry at every start

    k = np.asarray(successes, dtype=float)
    n, x = np.asarray(trials, dtype=float), np.asarray(scores, dtype=float)
    if n.ndim != 1 or x.shape != n.shape or k.shape[-1:] != n.shape or n.size < 2:
        raise ValueError(f"need trials and scores of one shape (groups >= 2,) and successes (..., "
                         f"groups), got {k.shape}, {n.shape}, {x.shape}")
    if (n < 1).any() or (k < 0).any() or (k > n).any() or np.unique(x).size < 2:
        raise ValueError("need trials >= 1, 0 <= successes <= trials and two distinct scores")
    total = n.sum()
    p = k.sum(axis=-1) / total
    T = (k * x).sum(axis=-1) - p * (n * x).sum()
    spread = (n * x**2).sum() - (n * x).sum() ** 2 / total
    with np.errstate(divide="ignore", invalid="ignore"):
        z = T / np.sqrt(p * (1 - p) * spread)
    z = np.where((p > 0) & (p < 1), z, np.nan)
    return z, stats.norm.cdf(z)
