"""Unit tests: inputs optimised for the fixed module under a norm bound (expressivity.optimised_inputs),
the lower bounds on d and the unbounded circle inputs (expressivity.norm_bounds), and the job's rows
(expressivity.experiments.sparse_approximation.optimised) at the sizes of config/ci.yaml."""

import math

import numpy as np
import pytest
import torch

from expressivity.approximation_check import check_logits
from expressivity.fixed_module import fingerprint
from expressivity.norm_bounds import (
    alon_eps,
    circle_check,
    circle_inputs,
    circle_scale,
    lower_bound,
    packing_lower_bound,
    perturbed_identity_lower_bound,
    perturbed_identity_rank_bound,
    sub_identity,
)
from expressivity.optimised_inputs import (
    _Problem,
    hinge_gradient,
    module_logits,
    optimise_inputs,
    project_rows,
    smallest_d,
)
from expressivity.sparse_target import SparseTarget, make_target

EPS_R, EPS_Z = 1.0, 0.1
GAMMA = math.log(1 / EPS_Z)
FAST = {"steps": 600, "patience": 150, "check_every": 25, "lr": 0.05, "margin": 0.05}


def identity(n: int) -> SparseTarget:
    return SparseTarget.from_dense(np.eye(n), 1)


def target(kind="permutations", n=16, k=1, R=4.0, seed=0):
    return make_target(kind, n, k, R, np.random.default_rng(seed))


# ---- the module and the loss -------------------------------------------------------------------


def test_module_logits_are_x1_x2_transposed():
    rng = np.random.default_rng(0)
    X1, X2 = rng.standard_normal((9, 5)), rng.standard_normal((9, 5))
    assert np.allclose(module_logits(X1, X2), X1 @ X2.T, rtol=0, atol=1e-13)
    with pytest.raises(ValueError, match="X1 and X2"):
        module_logits(X1, X2[:, :4])


def _loss(S, A, gamma, eps_ratio, margin):
    """The hinge loss of one target written directly, row by row (for autograd)."""
    total = 0
    for i in range(A.n):
        support = A.cols[i, : A.count[i]]
        off = np.setdiff1d(np.arange(A.n), support)
        sup = S[i, support]
        total = total + torch.relu(S[i, off][:, None] - sup[None, :] + gamma + margin).sum()
        dev = sup - torch.from_numpy(np.log(A.vals[i, : A.count[i]]))
        total = total + torch.relu(dev[:, None] - dev[None, :] - eps_ratio + margin).sum()
    return total / A.n


@pytest.mark.parametrize("kind,k", [("permutations", 1), ("band", 2), ("permutations", 3)])
def test_hinge_gradient_is_the_gradient_of_the_loss(kind, k):
    """The hand-written (sub)gradient equals autograd's away from the hinges' kinks (random
    logits: no term is exactly 0), padding slots of colliding permutations included, for each
    member of a batch (two targets, two margins gamma)."""
    targets = [target(kind, 12, k, 4.0, seed=3), target(kind, 12, k, 4.0, seed=4)]
    eps_zero = [EPS_Z, 0.01]
    problem = _Problem.of(targets, torch.device("cpu"), eps_zero)
    S = torch.tensor(np.random.default_rng(1).standard_normal((2, 12, 12)) * 2,
                     requires_grad=True)
    losses = [_loss(S[p], targets[p], math.log(1 / eps_zero[p]), EPS_R, 0.05) for p in range(2)]
    sum(losses).backward()
    value, dS = hinge_gradient(S.detach(), problem, EPS_R, 0.05)
    for p in range(2):
        assert float(value[p]) == pytest.approx(float(losses[p].detach()), rel=1e-12)
        assert value[p] > 0
    assert torch.allclose(dS, S.grad, atol=1e-15)


def test_projection_keeps_rows_in_their_ball():
    X = torch.tensor([[3.0, 4.0], [0.3, 0.4], [0.0, 0.0]], dtype=torch.float64)
    project_rows(X, 1.0)
    assert torch.allclose(X, torch.tensor([[0.6, 0.8], [0.3, 0.4], [0.0, 0.0]],
                                          dtype=torch.float64))


# ---- optimisation -----------------------------------------------------------------------------


def test_optimised_inputs_meet_the_criterion_inside_the_balls():
    A = target("permutations", 24, 1)
    a = optimise_inputs(A, 6, radius_q=3.6, radius_k=1.1, eps_ratio=EPS_R, eps_zero=EPS_Z,
                        rng=np.random.default_rng(0), **FAST)
    assert a.ok and a.slack > a.rounding_tol
    chk = check_logits(A, module_logits(a.X1, a.X2), EPS_R, EPS_Z)
    assert chk.ok and float(chk.slack.min()) == pytest.approx(a.slack, abs=1e-12)
    assert np.linalg.norm(a.X1, axis=1).max() <= 3.6 * (1 + 1e-12)
    assert np.linalg.norm(a.X2, axis=1).max() <= 1.1 * (1 + 1e-12)


def test_d_one_fails_for_every_input():
    """With scalar logits x1_i x2_j a row's maximum sits at the largest or the smallest key, so at
    most two rows of a permutation can have their own maximum: d = 1 fails, whatever the norms."""
    A = identity(8)
    a = optimise_inputs(A, 1, radius_q=100.0, radius_k=100.0, eps_ratio=EPS_R, eps_zero=EPS_Z,
                        rng=np.random.default_rng(0), **FAST)
    assert not a.ok and a.slack < 0 and a.failing_rows >= 6
    assert lower_bound(A, 1e4, EPS_Z)["d_lower"] >= 2


def test_small_logit_bound_fails_at_every_d_but_d_equal_n_works_above_gamma():
    """2 Lam < gamma: no two rows can be separated at any d (lower bound infinite, optimisation
    fails even at d = n). Lam > gamma: d = n works (orthonormal keys), and the optimiser finds it."""
    A = identity(6)
    tight = optimise_inputs(A, 6, radius_q=GAMMA / 2.2, radius_k=1.0, eps_ratio=EPS_R,
                            eps_zero=EPS_Z, rng=np.random.default_rng(0), **FAST)
    assert not tight.ok
    assert lower_bound(A, GAMMA / 2.2, EPS_Z)["d_lower"] == math.inf
    roomy = optimise_inputs(A, 6, radius_q=GAMMA + 0.2, radius_k=1.0, eps_ratio=EPS_R,
                            eps_zero=EPS_Z, rng=np.random.default_rng(0), **FAST)
    assert roomy.ok


def test_smallest_d_passes_at_its_d_and_not_below_the_lower_bound():
    A = target("permutations", 32, 1, seed=4)
    lam = (3.6, 1.1)
    scan = smallest_d(A, radius_q=lam[0], radius_k=lam[1], eps_ratio=EPS_R, eps_zero=EPS_Z,
                      rng=np.random.default_rng(2), d_start=1, d_max=32, resolution=0.05, **FAST)
    assert scan.best is not None and scan.best.ok
    assert check_logits(A, module_logits(scan.best.X1, scan.best.X2), EPS_R, EPS_Z).ok
    d_low = lower_bound(A, lam[0] * lam[1], EPS_Z)["d_lower"]
    assert d_low <= scan.d_opt < 32
    assert scan.tried == list(range(1, int(scan.d_opt) + 1))  # steps of 1 from d_start
    assert all(not a.ok for a in scan.attempts[:-1]) and scan.largest_failed_d == scan.d_opt - 1


def test_same_seed_same_bytes_other_seed_other_inputs():
    A = target("band", 16, 2, seed=1)
    kwargs = dict(radius_q=5.5, radius_k=1.1, eps_ratio=EPS_R, eps_zero=EPS_Z, d_start=2,
                  d_max=16, **FAST)
    runs = [smallest_d(A, rng=np.random.default_rng(s), **kwargs) for s in (5, 5, 6)]
    prints = [fingerprint(r.best.X1, r.best.X2) for r in runs]
    assert prints[0] == prints[1] != prints[2]
    assert [(a.d, a.steps, a.slack) for a in runs[0].attempts] == \
        [(a.d, a.steps, a.slack) for a in runs[1].attempts]


def test_device_is_checked():
    A = identity(4)
    kwargs = dict(radius_q=3.0, radius_k=1.0, eps_ratio=EPS_R, eps_zero=EPS_Z,
                  rng=np.random.default_rng(0), **FAST)
    assert optimise_inputs(A, 4, device="auto", **kwargs).ok  # a GPU when present, else the CPU
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="no GPU"):
            optimise_inputs(A, 4, device="cuda", **kwargs)
    with pytest.raises(ValueError, match="device"):
        optimise_inputs(A, 4, device="tpu", **kwargs)


# ---- lower bounds -----------------------------------------------------------------------------


def test_sub_identity_of_permutations_and_unions():
    assert len(sub_identity(target("permutations", 20, 1))[0]) == 20
    for kind, k in (("permutations", 3), ("band", 2), ("block", 4)):
        A = target(kind, 40, k, seed=2)
        rows, cols = sub_identity(A)
        assert len(rows) >= 40 / (2 * k - 1)
        support = [set(A.cols[i, : A.count[i]]) for i in range(A.n)]
        for i, c in zip(rows, cols, strict=True):
            assert c in support[i]
            assert not any(c2 in support[i] for i2, c2 in zip(rows, cols, strict=True) if i2 != i)


def test_rank_bound_never_exceeds_the_rank_of_a_perturbed_identity():
    """Gram matrices of m random unit vectors in R^r: unit diagonal, off-diagonal <= eps (their
    largest |entry|), rank r. The bound must not exceed r."""
    rng = np.random.default_rng(0)
    for m, r in ((40, 10), (60, 30), (200, 80), (30, 30)):
        U = rng.standard_normal((m, r))
        U /= np.linalg.norm(U, axis=1, keepdims=True)
        G = U @ U.T
        eps = float(np.abs(G - np.eye(m)).max())
        assert perturbed_identity_rank_bound(m, eps) <= np.linalg.matrix_rank(G) == r
    assert perturbed_identity_rank_bound(50, 0.0) == 50  # the identity has full rank
    assert perturbed_identity_rank_bound(50, 1.0) == 1
    values = [perturbed_identity_rank_bound(1000, e) for e in (0.2, 0.4, 0.6, 0.8)]
    assert values == sorted(values, reverse=True) and values[0] > values[-1]


def test_the_normalised_logits_of_optimised_inputs_are_a_perturbed_identity():
    """The derivation behind the bound, on real optimised inputs: shifting each row of the
    sub-identity's logits by (P_ii - gamma - Lam) / 2 and dividing by the diagonal gives unit
    diagonal, off-diagonal entries within Alon's eps, and rank at most d + 1."""
    A = target("permutations", 24, 1, seed=7)
    r_q, r_k = 3.6, 1.1
    a = optimise_inputs(A, 6, radius_q=r_q, radius_k=r_k, eps_ratio=EPS_R, eps_zero=EPS_Z,
                        rng=np.random.default_rng(0), **FAST)
    assert a.ok
    rows, cols = sub_identity(A)
    P = module_logits(a.X1, a.X2)[np.ix_(rows, cols)]
    lam = r_q * r_k
    diag = np.diag(P)
    m = (diag - GAMMA - lam) / 2
    T = (P - m[:, None]) / (diag - m)[:, None]
    assert np.allclose(np.diag(T), 1.0)
    assert np.abs(T - np.diag(np.diag(T))).max() <= alon_eps(lam, EPS_Z) + 1e-12
    assert np.linalg.matrix_rank(T) <= 6 + 1
    assert perturbed_identity_lower_bound(len(rows), lam, EPS_Z) <= 6


def test_packing_bound_formula():
    assert packing_lower_bound(1, 5.0, EPS_Z) == 1
    assert packing_lower_bound(100, GAMMA * 1.5, EPS_Z) == math.ceil(math.log(100) / math.log(4))
    assert packing_lower_bound(100, math.inf, EPS_Z) == 1


def test_bounds_allow_the_unbounded_circle():
    """The circle inputs work at d = 2 with logits up to s: the bounds at Lam = s must allow it."""
    for n in (16, 128, 1024):
        s = circle_scale(n, EPS_Z)
        b = lower_bound(identity(n), s, EPS_Z)
        assert b["d_lower"] <= 2 and b["d_lower_alon"] <= 2 and b["d_lower_packing"] <= 2


# ---- the circle ---------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [3, 16, 128, 1000])
def test_circle_meets_the_criterion_at_its_scale_and_fails_at_a_tenth(n):
    A = target("permutations", n, 1, seed=n)
    out = circle_check(A, EPS_R, EPS_Z)
    assert out["circle_ok"] and not out["circle_tenth_ok"]
    assert out["circle_slack"] == pytest.approx(1e-3 * GAMMA, rel=1e-6)
    X1, X2 = circle_inputs(A, (1 - 1e-3) * circle_scale(n, EPS_Z))  # just below: fails
    assert not check_logits(A, module_logits(X1, X2), EPS_R, EPS_Z).ok
    assert np.allclose(np.linalg.norm(X2, axis=1), 1.0) and X1.shape == (n, 2)


def test_circle_scale_grows_like_n_squared():
    for n in (64, 1024, 8192):
        assert circle_scale(n, EPS_Z) / (GAMMA * n**2 / (2 * math.pi**2)) == pytest.approx(
            1.0, rel=2 * (math.pi / n) ** 2)
    with pytest.raises(ValueError, match="permutation"):
        circle_inputs(target("band", 8, 2), 1.0)


# ---- the job ----------------------------------------------------------------------------------
