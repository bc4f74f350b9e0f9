"""Unit tests: Gaussian projections (unbiased, prefix-coupled) and the JL bound (*)."""

import math

import numpy as np

from expressivity.random_projection import gaussian_columns_T, jl_dimension, jl_error_bound


def test_projection_is_unbiased():
    n, d = 6, 20000
    GT = gaussian_columns_T(np.random.default_rng(5), n, d) / math.sqrt(d)
    assert np.abs(GT.T @ GT - np.eye(n)).max() < 0.05  # E[G G^T] = I, sd 1/sqrt(d) = 0.007


def test_projection_prefix_property():
    a = gaussian_columns_T(np.random.default_rng(9), 7, 70)
    b = gaussian_columns_T(np.random.default_rng(9), 7, 200)
    assert np.array_equal(a, b[:70])


def test_jl_dimension_and_error_bound():
    # the table of shared/papers/likhosherstov.md §6.2 (k = 1, R = 4, eps = (1, 0.1), delta = 0.1)
    assert [jl_dimension(n, 1, 4, 1.0, 0.1, 0.1) for n in (64, 256, 1024, 4096)] == [
        4547, 5597, 6647, 7697]
    beta = math.sqrt(2) * (math.log(4) + math.log(10) + 1)
    d = jl_dimension(100, 2, 4, 1.0, 0.1, 0.1)
    assert jl_error_bound(100, d, beta, 0.1) <= 0.5 + 1e-9
    assert jl_error_bound(100, d / 2, beta, 0.1) > 0.5
    assert jl_error_bound(100, 1, beta, 0.1) == math.inf
