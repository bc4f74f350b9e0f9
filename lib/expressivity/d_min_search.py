"""d_min of one trial: the one-pass search, on the CPU or a GPU, over a long enough horizon.

Likhosherstov, Choromanski & Weller 2021 (arXiv 2106.03764; AAAI 2023): fixed W_Q, W_K and hidden
size d = O(log n) [V]; the construction and its precision notion are our reconstruction [R]. One
trial draws the prefix-coupled factors of ``fixed_module`` for a horizon d_max and runs the
one-pass search over the grid of d (``one_pass_search``: numpy and BLAS on the CPU;
``torch_search``: the same search in torch float64 on a GPU). A horizon too short to show d_min
(or to show that success lasts beyond it) is extended and the trial redone from the same generator
state, so the result does not depend on the first d_max chosen.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from expressivity.approximation_check import logit_values
from expressivity.arguments import device as check_device
from expressivity.arguments import integer
from expressivity.attention_mass import factor_mass, row_mass
from expressivity.fixed_module import coupled_factors, identity_error
from expressivity.one_pass_search import SearchResult, d_grid, one_pass_search
from expressivity.sparse_target import SparseTarget

#: Columns of the factors the identity check reads (a corner of the logits, ``identity_error``).
CORNER = 16


def search_d_min(target: SparseTarget, rng: np.random.Generator, eps_ratio: float,
                 eps_zero: float, d_max: int, *, d_start: int = 32, resolution: float = 0.03,
                 min_step: int = 16, horizon_factor: float = 1.1, max_extensions: int = 3,
                 form: str = "row", block: int = 128, device: str = "cpu",
                 tracked: np.ndarray | None = None,
                 progress: Callable[[int, int], None] | None = None) -> SearchResult:
    """d_min of one trial, with a horizon that is long enough.

    The search runs to ``d_max``; when the result does not reach ``horizon_factor * d_min <=
    d_max`` (or is censored) the trial is redone with ``d_max * 1.5`` from the SAME generator state
    (same G prefix, same grid prefix), at most ``max_extensions`` times. ``rng`` is left in the
    state after the last draw. Once some grid d works, d_min no longer depends on the horizon (the
    grids are prefixes of each other); the margin ``horizon_factor`` shows whether success lasts
    beyond it (``d_stable``). The cost is O(n^2 d_max) per pass: a restart costs a whole pass.

    ``device``: "cpu" runs this module's numpy search; "cuda" (or "auto" on a machine with a GPU)
    runs ``torch_search.one_pass_search_torch`` on the GPU, with the factors formed there
    (``torch_search.device_factors``: the same numbers; equal d_min wherever the decision margin
    exceeds the rounding bound). ``tracked``: the rows checked at every grid point, whose own d is
    ``row_d_min`` (None: every row, without pruning; see ``one_pass_search``). ``progress(rows_done,
    n)`` after each block of rows. The factors of the last pass are kept in ``factors`` (numpy
    arrays, or tensors on the GPU: ``host_factors`` and ``factor_mass_at`` read either).
    """
    d_max = integer("d_max", d_max, 1)
    search, factors, used = one_pass_search, coupled_factors, "cpu"
    if check_device(device) != "cpu":
        from expressivity.torch_runtime import resolve_device
        from expressivity.torch_search import device_factors, one_pass_search_torch

        used = resolve_device(device)
        if used != "cpu":
            def search(*args, **kwargs):
                return one_pass_search_torch(*args, **kwargs, device=used)

            def factors(*args):
                return device_factors(*args, device=used)
    B = logit_values(target, eps_ratio, eps_zero)
    state = rng.bit_generator.state
    for ext in range(max_extensions + 1):
        rng.bit_generator.state = state
        grid = d_grid(d_start, d_max, resolution, min_step)
        QT, KT = factors(target, B, rng, int(grid[-1]), form)
        res = search(target, QT, KT, grid, eps_ratio, eps_zero, block, tracked=tracked,
                     progress=progress)
        res.extensions = ext
        if not math.isnan(res.d_min) and horizon_factor * res.d_min <= grid[-1]:
            break
        d_max = math.ceil(d_max * 1.5)
    res.factors = (QT, KT)
    corner = [np.asarray(F[:, :CORNER]) if isinstance(F, np.ndarray) else F[:, :CORNER].cpu().numpy()
              for F in (QT, KT)]
    res.meta.update(identity_error=identity_error(*corner, res.d_min, rows=CORNER), device=used)
    return res


def host_factors(res: SearchResult) -> tuple[np.ndarray, np.ndarray]:
    """The search's factors ``(QT, KT)`` as numpy arrays (copied from the GPU if they are there)."""
    return tuple(F if isinstance(F, np.ndarray) else F.cpu().numpy() for F in res.factors)


def factor_mass_at(target: SparseTarget, res: SearchResult, d: int, rows: np.ndarray,
                   block: int) -> tuple[np.ndarray, np.ndarray]:
    """``attention_mass.factor_mass`` of the search's factors at d for ``rows``; on the GPU that
    holds them, the rows' logits are formed there (``torch_search.row_logits``)."""
    QT, KT = res.factors
    if isinstance(QT, np.ndarray):
        return factor_mass(target, QT, KT, d, rows, block)
    from expressivity.torch_search import row_logits

    parts = [row_mass(row_logits(QT, KT, d, rows[b0:b0 + block]), target.cols[rows[b0:b0 + block]],
                      target.vals[rows[b0:b0 + block]], target.real[rows[b0:b0 + block]])
             for b0 in range(0, len(rows), block)]
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])
