"""The exact-rule reference for d_min (expressivity.d_min_reference)."""

import math

import numpy as np
import pytest
from scipy import integrate, optimize, special, stats

from expressivity.d_min_reference import RowModel
from expressivity.experiments.sparse_approximation.reference import sample_rows
from expressivity.one_pass_search import d_grid

GAMMA = math.log(10)
B = GAMMA + 1  # k = 1: every row's logit is log(1 / eps_zero) + eps_ratio


def exact_log_all_pass(d, n):
    """k = 1 by adaptive quadrature over u = chi^2_d / d: every row passes with probability
    (E_u[Phi(t(u))^(n - 1)])^n, t(u) = sqrt(d) (u - gamma / b) / sqrt(u)."""
    def fail(c):
        t = math.sqrt(d) * (c / d - GAMMA / B) / math.sqrt(c / d)
        return stats.chi2.pdf(c, d) * -math.expm1((n - 1) * special.log_ndtr(t))

    lo, hi = stats.chi2.ppf(1e-14, d), stats.chi2.ppf(1 - 1e-14, d)
    f = integrate.quad(fail, lo, hi, limit=500, points=[d * GAMMA / B, d])[0]
    return n * math.log1p(-f)


def median_d(log_all_pass, n):
    return math.exp(optimize.brentq(lambda x: log_all_pass(math.exp(x), n) - math.log(0.5),
                                    math.log(50), math.log(20000)))


@pytest.mark.parametrize("n", [64, 1024, 16384])
def test_k1_model_matches_exact_quadrature(n):
    model = RowModel(np.full((1, 1), B), np.ones((1, 1), bool), 1.0, 0.1,
                     np.random.default_rng(0))
    exact = median_d(exact_log_all_pass, n)
    assert median_d(model.log_all_pass, n) == pytest.approx(exact, rel=0.01)


def test_reference_grows_like_ln_n_and_sits_on_the_grid():
    grid = d_grid(32, 100_000, 0.03, 16)
    B_rows, real = sample_rows(seed=1, target="permutations", n=256, k=2, R=4.0, eps_ratio=1.0,
                               eps_zero=0.1, draws=64)
    model = RowModel(B_rows, real, 1.0, 0.1, np.random.default_rng(1))
    refs = [model.reference(n, grid) for n in (256, 4096, 65536)]
    on_grid, d_ref, index = zip(*refs, strict=True)
    assert all(g in grid for g in on_grid) and list(index) == sorted(index)
    assert all(grid[i - 1] < r <= g for g, r, i in refs)
    # d_ref roughly linear in ln n: equal steps in ln n, nearly equal steps in d
    steps = np.diff(d_ref)
    assert 0.7 < steps[1] / steps[0] < 1.3
    # the model's probability rises with d
    assert model.log_all_pass(grid[index[0] - 1], 256) < math.log(0.5) <= model.log_all_pass(
        on_grid[0], 256)


def test_a_tighter_tolerance_needs_a_larger_d():
    grid = d_grid(32, 100_000, 0.03, 16)
    one = np.ones((1, 1), bool)
    loose = RowModel(np.full((1, 1), B), one, 1.0, 0.1, np.random.default_rng(0))
    tight = RowModel(np.full((1, 1), math.log(1000) + 1), one, 1.0, 0.001,
                     np.random.default_rng(0))
    assert tight.reference(1024, grid)[1] > loose.reference(1024, grid)[1]


@pytest.mark.parametrize("build, named", [
    (lambda: RowModel(np.full((2, 2), B), np.ones((2, 1), bool), 1.0, 0.1,
                      np.random.default_rng(0)), "real"),
    (lambda: RowModel(np.full((1, 1), B), np.zeros((1, 1), bool), 1.0, 0.1,
                      np.random.default_rng(0)), "first support slot"),
    (lambda: RowModel(np.full((1, 1), math.nan), np.ones((1, 1), bool), 1.0, 0.1,
                      np.random.default_rng(0)), "B_rows"),
    (lambda: RowModel(np.full((1, 1), B), np.ones((1, 1), bool), 1.0, 1.5,
                      np.random.default_rng(0)), "eps_zero"),
])
def test_bad_arguments_are_refused_by_name(build, named):
    with pytest.raises(ValueError, match=named):
        build()
