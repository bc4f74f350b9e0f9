"""The moment-curve inputs (expressivity.moment_curve): d = 2k for every target with at most k
nonzeros per row when the logits are not bounded, with lam* exact and the check certified."""

import numpy as np
import pytest
from flint import arb, ctx

from expressivity.approximation_check import check_logits
from expressivity.moment_curve import (
    PREC_BITS,
    _shifted_logits,
    moment_check,
    moment_inputs,
    moment_scale,
    nodes,
)
from expressivity.sparse_target import make_target

EPS_RATIO, EPS_ZERO = 1.0, 0.1


@pytest.fixture(params=[(12, 2, 0), (16, 3, 1), (10, 2, 2)])
def target(request):
    n, k, seed = request.param
    return make_target("permutations", n, k, 4.0, np.random.default_rng(seed))


def test_nodes_are_equispaced_on_minus_one_to_one():
    t = nodes(5)
    assert t.tolist() == [-1.0, -0.5, 0.0, 0.5, 1.0]
    with pytest.raises(ValueError, match="n must be"):
        nodes(1)


def test_logits_are_the_row_polynomials_at_the_nodes(target):
    """S_ij = f_i(t_j) - f_i(0): on the support log A_is plus one shift per row, so condition (1)
    holds exactly at every lam."""
    lam = 3.0
    X1, X2 = moment_inputs(target, lam)
    assert (X1.nrows(), X1.ncols()) == (target.n, 2 * target.k)
    S, radius = _shifted_logits(X1, X2, target)
    assert radius < 1e-50
    for i in range(target.n):
        c = target.count[i]
        dev = S[i, target.cols[i, :c]] - np.log(target.vals[i, :c])
        assert np.ptp(dev) == pytest.approx(0, abs=1e-12)


def test_the_smallest_scale_makes_condition_two_tight(target):
    """At lam* the worst off-support gap is exactly gamma: the slack is 0 there, positive above
    and negative below (certified logits)."""
    lam = moment_scale(target, EPS_ZERO)
    slacks = []
    for factor in (0.999, 1.0, 1.001):
        S, _ = _shifted_logits(*moment_inputs(target, factor * lam), target)
        slacks.append(float(check_logits(target, S, EPS_RATIO, EPS_ZERO).slack.min()))
    assert slacks[0] < 0 < slacks[2]
    assert abs(slacks[1]) < 1e-9 * lam


def test_check_passes_at_the_scale_and_fails_at_a_tenth(target):
    out = moment_check(target, EPS_RATIO, EPS_ZERO, margin=1e-3)
    assert out["d"] == 2 * target.k
    assert out["at_scale_ok"] is True and out["at_tenth_ok"] is False
    assert out["scale"] == pytest.approx(1.001 * out["scale_min"])
    # the norm product bounds every logit
    assert out["logit_bound"] == pytest.approx(out["radius_q"] * out["radius_k"])
    assert out["float64_decided"] == (abs(out["float64_slack"]) > out["float64_tolerance"])


def test_float64_cannot_decide_where_the_coefficients_dwarf_the_slack():
    """k = 3 at n = 192: logits near 2e12 against a slack of 1e-3 gamma, so the float64 rounding
    bound exceeds the slack; ball arithmetic still decides."""
    A = make_target("permutations", 192, 3, 4.0, np.random.default_rng(0))
    out = moment_check(A, EPS_RATIO, EPS_ZERO, margin=1e-3)
    assert out["at_scale_ok"] is True and out["at_tenth_ok"] is False
    assert out["float64_tolerance"] > out["at_scale_slack"] > 0
    assert out["float64_decided"] is False and out["float64_ok"] is False


def test_ball_arithmetic_precision_is_the_modules():
    with ctx.workprec(PREC_BITS):
        assert (arb(1) / 3).rad() < arb(2) ** (-PREC_BITS + 4)


@pytest.mark.parametrize(("call", "match"), [
    (lambda A: moment_scale(A, 0.0), "eps_zero"),
    (lambda A: moment_inputs(A, 0.0), "lam"),
    (lambda A: moment_check(A, EPS_RATIO, EPS_ZERO, margin=0.0), "margin"),
])
def test_bad_arguments_are_refused(call, match):
    A = make_target("permutations", 8, 2, 4.0, np.random.default_rng(0))
    with pytest.raises(ValueError, match=match):
        call(A)
