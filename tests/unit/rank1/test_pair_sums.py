"""Pair sums of the rank-1 layer (expressivity.rank1.pair_sums): the normalised differences of two
contexts' values and the last crossing of the asymptotic order."""



import numpy as np
import pytest
from cases import rank1_case

from expressivity.rank1.contexts import values_float
from expressivity.rank1.layer import (
    Rank1Layer,
    lam_theory,
)
from expressivity.rank1.pair_sums import PairSums, last_crossing_search
from expressivity.rank1.separation import (
    separation_certified,
    separation_exact,
)


def test_last_crossing_is_sufficient_not_the_smallest_lam_that_separates():
    ds, v, cx, alpha = rank1_case(4, V=6, d=2, n=3)
    last = last_crossing_search(cx)["lam_last_crossing"]
    assert last > 0
    above = separation_certified(ds, cx, Rank1Layer.for_dataset(ds, v, last * 1.001))
    assert above.certified and above.asymptotic_order
    # just below the last crossing the asymptotic order is broken (two contexts swapped)
    below = separation_certified(ds, cx, Rank1Layer.for_dataset(ds, v, last * 0.999))
    assert not below.asymptotic_order
    # and above it the order holds on a whole grid up to lam_theory
    lt = lam_theory(3, 2, 6, ds.eps, ds.r_min)
    for lam in np.geomspace(last * 1.01, lt, 6):
        assert separation_certified(ds, cx, Rank1Layer.for_dataset(ds, v, lam)).asymptotic_order
    # far below it the layer still separates these random data: uniform averaging (lam = 0) does
    assert separation_exact(ds, cx, Rank1Layer.for_dataset(ds, v, 0.0), "uniform").collisions == 0
    assert separation_certified(ds, cx, Rank1Layer.for_dataset(ds, v, last / 4)).certified
    with pytest.raises(ValueError, match="n_grid must be an integer >= 3"):
        last_crossing_search(cx, n_grid=1)


def test_pair_sums_are_the_differences_of_context_values():
    """``C_hi - C_lo = F(b) e^{b smax} / (Z_hi Z_lo)`` with the cancelling terms dropped."""
    ds, v, cx, _ = rank1_case(5, V=6, d=3, n=3)
    lo, hi = cx.adjacent_pairs()
    ps = PairSums.build(cx, lo, hi)
    lam = 0.5
    b = lam * ps.scale
    F, err = ps.F(b)

    def log_z(w):
        return w[:, 0] * b + np.log(np.exp(b[:, None] * (w - w[:, :1])).sum(1))

    C = values_float(cx, lam)
    diff = C[hi] - C[lo]
    ok = (np.abs(diff) > 1e-10) & (np.abs(F) > err)
    assert ok.sum() >= len(lo) // 2
    assert np.array_equal(np.sign(F[ok]), np.sign(diff[ok]))
    logg = np.log(np.abs(F[ok])) + b[ok] * ps.smax[ok] - log_z(ps.w_hi)[ok] - log_z(ps.w_lo)[ok]
    assert np.allclose(logg, np.log(np.abs(diff[ok])), atol=1e-5)
