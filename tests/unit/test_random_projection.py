"""Unit tests: Gaussian projections (unbiased, prefix-coupled) and the JL bound (*)."""

import math

import numpy as np
import pytest

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


def test_gaussian_max_quantile_is_the_median_of_the_maximum():
    """One sd: the median of max |Z| over N entries is Phi^-1((1 + 2^(-1/N)) / 2) exactly; a Monte
    Carlo maximum agrees; rows of sd 0 never err."""
    from scipy import stats

    from expressivity.random_projection import gaussian_max_quantile

    n = 50
    exact = stats.norm.ppf((1 + 2 ** (-1 / n**2)) / 2)
    assert gaussian_max_quantile(np.ones(n), n) == pytest.approx(exact, rel=1e-9)
    assert gaussian_max_quantile(np.r_[np.ones(n), np.zeros(7)], n) == pytest.approx(exact)
    assert gaussian_max_quantile(3 * np.ones(n), n) == pytest.approx(3 * exact, rel=1e-9)
    draws = np.abs(np.random.default_rng(0).standard_normal((2000, n * n))).max(axis=1)
    assert np.median(draws) == pytest.approx(exact, rel=0.02)
    # the quantile rises with q and with the number of entries
    assert gaussian_max_quantile(np.ones(n), n, 0.9) > exact > gaussian_max_quantile(np.ones(n), 5)


def test_typical_dimension_grows_like_ln_n():
    """d_pred = (2 t / eps_ratio)^2 with t^2 ~ 2 ln(n^2): its ratio to ln n tends to a constant (4
    times 2 ||B||^2 / eps^2), from below (the ln ln correction), and it scales with ||B||^2 / eps^2."""
    from expressivity.random_projection import typical_dimension, typical_max_error

    b = math.log(10) + 1
    d = {n: typical_dimension(np.full(n, b), n, 1.0) for n in (2**6, 2**12, 2**24)}
    asymptote = 4 * 2 * 2 * b**2  # (2 / eps)^2 * 2 ln(n^2) b^2 / ln n
    ratios = [d[n] / math.log(n) / asymptote for n in sorted(d)]
    assert ratios[0] < ratios[1] < ratios[2] < 1 and ratios[2] > 0.8
    assert typical_dimension(np.full(64, b), 64, 0.5) == pytest.approx(4 * d[64])
    # at d_pred the typical maximum error is eps_ratio / 2
    assert typical_max_error(np.full(64, b), 64, d[64]) == pytest.approx(0.5)


@pytest.mark.parametrize(("call", "message"), [
    (lambda f: f.gaussian_max_quantile([1.0, np.nan], 3), "row_sd"),
    (lambda f: f.gaussian_max_quantile([1.0], 0), "per_row"),
    (lambda f: f.gaussian_max_quantile([1.0], 3, q=1.0), "q must"),
    (lambda f: f.typical_dimension([1.0], 3, eps_ratio=0.0), "eps_ratio"),
    (lambda f: f.typical_max_error([1.0], 3, d=0), "d must"),
])
def test_prediction_refuses_bad_arguments(call, message):
    import expressivity.random_projection as f

    with pytest.raises(ValueError, match=message):
        call(f)
