"""Jobs of the Boltzmann-operator study: random vectors checked by ``expressivity.boltzmann``, and
the hardmax-limit curves of the figure."""

from __future__ import annotations

import math

import numpy as np

from expressivity.attention import boltz
from expressivity.boltzmann import check_vector
from expressivity.rng import generator

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
    tie_fraction: float, spreads: list[float], mp_dps: int,
) -> list[dict[str, object]]:
    """Rows of ``check_vector`` for vectors ``first .. last - 1``; vector ``i`` has its own stream,
    so the rows do not depend on how the range is split into jobs."""
    rows = []
    for i in range(first, last):
        rng = generator(seed, "hardmax_vs_softmax.boltzmann", vector=i)
        a = random_vector(rng, size_min, size_max, scale_max, tie_fraction)
        rows.append({"vector": i, **check_vector(rng, a, np.asarray(spreads, float), mp_dps)})
    return rows


def check_chunk(*, seed: int, chunk: int, n_chunks: int, n_vectors: int, size_min: int,
                size_max: int, scale_max: float, tie_fraction: float, spreads: list[float],
                mp_dps: int) -> list[dict[str, object]]:
    """Job ``chunk`` of ``n_chunks``: ``check_vectors`` on its share of the ``n_vectors`` vectors."""
    return check_vectors(seed=seed, first=chunk * n_vectors // n_chunks,
                         last=(chunk + 1) * n_vectors // n_chunks, size_min=size_min,
                         size_max=size_max, scale_max=scale_max, tie_fraction=tie_fraction,
                         spreads=spreads, mp_dps=mp_dps)


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
