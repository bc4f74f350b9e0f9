"""Jobs of the Boltzmann-operator study: random vectors checked by ``expressivity.boltzmann``, and
the hardmax-limit curves of the figure; ``chunk_cost`` plans a chunk's resources."""

from __future__ import annotations

import logging
import math

import numpy as np

from expressivity.attention import boltz
from expressivity.boltzmann import check_vector
from expressivity.joblog import Progress
from expressivity.rng import generator

_LOG = logging.getLogger(__name__)

#: Sizes of the example vectors of the hardmax-limit figure.
CURVE_SIZES = (4, 16, 64)


def random_vector(
    rng: np.random.Generator, size_min: int, size_max: int, scale_max: float, tie_fraction: float
) -> np.ndarray:
    """A test vector: size uniform in ``[size_min, size_max]``, scale log-uniform in
    ``[1e-3, scale_max]``; with probability ``tie_fraction`` the entries are small integers times
    the scale, so that ties (the equality cases) occur."""
    n = int(rng.integers(size_min, size_max + 1))
    scale = 10 ** rng.uniform(-3, math.log10(scale_max))
    if rng.random() < tie_fraction:
        return scale * rng.integers(-3, 4, size=n).astype(float)
    return scale * rng.standard_normal(n)


def check_vectors(
    *, seed: int, first: int, last: int, size_min: int, size_max: int, scale_max: float,
    tie_fraction: float, spreads: list[float], arb_dps: int, log: logging.Logger = _LOG,
) -> list[dict[str, object]]:
    """Rows of ``check_vector`` for vectors ``first .. last - 1``; vector ``i`` has its own stream,
    so the rows do not depend on how the range is split into jobs. Progress lines go to ``log``."""
    if not 0 <= first < last:
        raise ValueError(f"need 0 <= first < last, got first={first}, last={last}")
    if not 2 <= size_min <= size_max:
        raise ValueError(f"need 2 <= size_min <= size_max, got {size_min}, {size_max}")
    if not (math.isfinite(scale_max) and scale_max > 1e-3):
        raise ValueError(f"scale_max must be a finite number > 1e-3, got {scale_max}")
    if not 0 <= tie_fraction <= 1:
        raise ValueError(f"tie_fraction must be in [0, 1], got {tie_fraction}")
    progress = Progress(log, "Boltzmann vectors", last - first)
    rows = []
    for i in range(first, last):
        rng = generator(seed, "hardmax_vs_softmax.boltzmann", vector=i)
        a = random_vector(rng, size_min, size_max, scale_max, tie_fraction)
        rows.append({"vector": i, **check_vector(rng, a, np.asarray(spreads, float), arb_dps)})
        progress.update(i + 1 - first)
    return rows


def chunk_range(*, chunk: int, n_chunks: int, n_vectors: int) -> tuple[int, int]:
    """``(first, last)``: the vectors of job ``chunk`` of ``n_chunks``."""
    if not 0 <= chunk < n_chunks <= n_vectors:
        raise ValueError(f"need 0 <= chunk < n_chunks <= n_vectors, got chunk={chunk}, "
                         f"n_chunks={n_chunks}, n_vectors={n_vectors}")
    return chunk * n_vectors // n_chunks, (chunk + 1) * n_vectors // n_chunks


def check_chunk(*, seed: int, chunk: int, n_chunks: int, n_vectors: int, size_min: int,
                size_max: int, scale_max: float, tie_fraction: float, spreads: list[float],
                arb_dps: int, log: logging.Logger = _LOG) -> list[dict[str, object]]:
    """Job ``chunk`` of ``n_chunks``: ``check_vectors`` on its share of the ``n_vectors`` vectors."""
    first, last = chunk_range(chunk=chunk, n_chunks=n_chunks, n_vectors=n_vectors)
    return check_vectors(seed=seed, first=first, last=last, size_min=size_min,
                         size_max=size_max, scale_max=scale_max, tie_fraction=tie_fraction,
                         spreads=spreads, arb_dps=arb_dps, log=log)


def chunk_cost(*, n_chunks: int, n_vectors: int, size_max: int, scale_max: float,
               arb_dps: int) -> tuple[float, int]:
    """``(CPU seconds, peak bytes)`` of the largest chunk, for planning resources.

    Measured here (2 cores shared, 2026-11): about 1 ms per vector of length 64 in float64 plus
    a length-proportional part; about a fifth of the vectors need ball arithmetic, whose cost
    grows with the digits (up to ``2 (arb_dps + spread / ln 10)``, the spread of a vector of scale
    ``scale_max`` about ``6 scale_max`` nats). A prediction: the cluster's margin is added by the
    workflow (``job_resources``). Memory: the rows and the interpreter."""
    per_chunk = -(-n_vectors // n_chunks)
    digits = 2 * (arb_dps + 6 * scale_max / math.log(10))
    per_vector = 1.0e-3 + 4.0e-6 * size_max + 1.0e-9 * size_max * digits
    return per_chunk * per_vector, 300 * 2**20 + 400 * per_chunk


def limit_curves(*, seed: int, example_betas: int,
                 sizes: tuple[int, ...] = CURVE_SIZES) -> list[dict[str, object]]:
    """``boltz(beta a)/beta`` against ``example_betas`` values of ``beta`` in ``[1e-2, 1e3]`` with
    both bounds, for one random normal vector of each size (figure data)."""
    rows = []
    for example, n in enumerate(sizes):
        a = generator(seed, "hardmax_vs_softmax.curves", example=example).standard_normal(n)
        top = float(a.max())
        for beta in np.logspace(-2, 3, example_betas):
            rows.append({"example": example, "n": n, "beta": beta,
                         "boltz_over_beta": float(boltz(beta * a)) / beta,
                         "max": top, "lower_bound": top - math.log(n) / beta})
    return rows
