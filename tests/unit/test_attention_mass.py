"""Unit tests: the attention's off-support mass and row total variation."""

import numpy as np
import pytest

from expressivity.approximation_check import check_logits, logit_values
from expressivity.attention import softmax
from expressivity.attention_mass import (
    factor_mass,
    logit_target_mass,
    mass_calibrated_eps_zero,
    row_mass,
    sample_rows,
)
from expressivity.fixed_module import coupled_factors
from expressivity.sparse_target import make_target


@pytest.mark.parametrize("kind", ["permutations", "band", "block"])
def test_row_mass_matches_a_dense_computation(kind):
    T = make_target(kind, 30, 3, 4.0, np.random.default_rng(1))
    S = np.random.default_rng(2).normal(size=(30, 30)) * 3
    off, tv = row_mass(S, T.cols, T.vals, T.real)
    M, A = softmax(S), T.to_dense()
    support = A > 0
    assert np.allclose(off, np.where(support, 0, M).sum(axis=1), rtol=1e-12)
    assert np.allclose(tv, 0.5 * np.abs(M - A / A.sum(axis=1, keepdims=True)).sum(axis=1))


def test_per_entry_criterion_allows_mass_near_one_and_eps_over_n_bounds_it():
    """exp(B) itself meets the per-entry criterion exactly; its off-support mass is
    (n - k) / ((n - k) + sum exp(B)) -> 1, and with eps_zero = eps / n it stays below eps."""
    masses = []
    for n in (16, 256, 4096):
        T = make_target("permutations", n, 1, 4.0, np.random.default_rng(n))
        mass = logit_target_mass(T, logit_values(T, 1.0, 0.1))
        assert np.allclose(mass, (n - 1) / ((n - 1) + 10 * np.e))
        masses.append(mass[0])
        calibrated = logit_values(T, 1.0, mass_calibrated_eps_zero(0.1, n))
        assert (logit_target_mass(T, calibrated) < 0.1).all()
    assert masses[0] < masses[1] < masses[2] and masses[2] > 0.99
    T = make_target("permutations", 256, 2, 4.0, np.random.default_rng(5))
    eps_zero = mass_calibrated_eps_zero(0.1, 256)
    S = T.to_dense(logit_values(T, 1.0, eps_zero))
    assert check_logits(T, S, 1.0, eps_zero).ok
    off, _ = row_mass(S, T.cols, T.vals, T.real)
    assert (off < 0.1).all()


def test_factor_mass_is_the_mass_of_the_constructions_logits():
    T = make_target("band", 40, 2, 4.0, np.random.default_rng(3))
    B = logit_values(T, 1.0, 0.1)
    QT, KT = coupled_factors(T, B, np.random.default_rng(4), 300)
    rows = sample_rows(40, 7)
    off, tv = factor_mass(T, QT, KT, 250, rows, block=3)
    S = QT[:250].T @ KT[:250] / 250
    ref = row_mass(S[rows], T.cols[rows], T.vals[rows], T.real[rows])
    assert np.allclose(off, ref[0], rtol=1e-10) and np.allclose(tv, ref[1], rtol=1e-10)
    assert len(rows) == 7 and rows[0] == 0 and rows[-1] == 39
    assert np.array_equal(sample_rows(5, 100), np.arange(5))


@pytest.mark.parametrize(("eps", "n", "message"), [(0.0, 8, "eps"), (1.0, 8, "eps"),
                                                   (float("nan"), 8, "eps"), (0.1, 0, "n must")])
def test_mass_calibration_refuses_bad_arguments(eps, n, message):
    with pytest.raises(ValueError, match=message):
        mass_calibrated_eps_zero(eps, n)
