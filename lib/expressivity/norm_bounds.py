"""What a bound on the inputs' norms does to the hidden size d of the fixed module.

Likhosherstov, Choromanski & Weller 2021 (arXiv 2106.03764; AAAI 2023) show [V] (abstract) that a
fixed module approximates sparse targets with d = O(log n) by changing only the input; the module
and the precision notion are OUR reconstruction [R] (``fixed_module``, ``approximation_check``):
logits ``S = X1 X2^T: (n, n)`` (rows of ``X1, X2: (n, d)``, the two halves of X), and for every
row i with support S_i, margin ``gamma = log(1/eps_zero)``,

    (1) max_{j in S_i} (S_ij - log A_ij) - min_{j in S_i} (S_ij - log A_ij) <= eps_ratio,
    (2) S_ij <= S_ij' - gamma   for every j not in S_i and j' in S_i.

Everything below is ours [D] (derived here; Alon's argument is cited where it is used).

**Without a norm bound d = 2 suffices for a permutation target** (``circle_inputs``). With
``t_j = 2 pi j / n``, ``X2_j = (cos t_j, sin t_j)`` and ``X1_i = s (cos t_pi(i), sin t_pi(i))``,
``S_ij = s cos(t_pi(i) - t_j)``: the row maximum s sits at j = pi(i) and the next largest value is
``s cos(2 pi / n)``, so (2) holds iff

    s (1 - cos(2 pi / n)) >= gamma,   i.e.   s >= s* = gamma / (1 - cos(2 pi / n))
                                                     = gamma / (2 sin^2(pi / n))  ~  gamma n^2 / (2 pi^2).

((1) is empty for one nonzero per row.) The logits, and the rows of X1, grow like n^2 log(1/eps_zero):
d stays at 2 because the inputs' norms are not bounded.

**With bounded norms d must grow like log n** (lower bounds on d). Let ``||X1_i|| <= r_q`` and
``||X2_j|| <= r_k`` for all i, j, so ``|S_ij| <= Lam := r_q r_k`` (only the product matters: X1 -> c X1,
X2 -> X2 / c keeps S). Pick a *sub-identity* of the target (``sub_identity``): rows I and one
support column c(i) of each, such that c(i') is off the support of row i for every i' != i in I
(for k = 1 every row, |I| = n; greedily |I| >= n / (2k - 1) for k nonzeros per row and column).
Condition (2) gives ``S_{i c(i)} - S_{i c(i')} >= gamma`` for i != i' in I. Two lower bounds follow
on the |I| x |I| matrix ``P = (S_{i c(i')})``:

* packing (``packing_lower_bound``): ``||X2_c(i) - X2_c(i')|| >= gamma / r_q`` (Cauchy-Schwarz), so
  |I| points of a radius-r_k ball in R^d are gamma / r_q apart: ``|I| <= (1 + 2 Lam / gamma)^d``,
  ``d >= ln |I| / ln(1 + 2 Lam / gamma)``;
* perturbed identity (``perturbed_identity_lower_bound``): Alon (2009, "Perturbed identity matrices
  have high rank: proof and applications", Combin. Probab. Comput. 18, 3-15) shows that a real
  matrix with unit diagonal and off-diagonal entries at most eps in absolute value has rank
  >= c log n / (eps^2 log(1/eps)) (for 1/sqrt(n) <= eps < 1/2). It does not apply to P directly:
  (2) bounds the off-diagonal entries from above only, and their scale is arbitrary. The norm bound
  supplies the normalisation. Off-diagonal entries of row i lie in ``[-Lam, P_ii - gamma]``; shift
  each row by the midpoint ``m_i = (P_ii - gamma - Lam) / 2`` and divide it by ``P_ii - m_i``:

      T = D^{-1} (P - m 1^T),   T_ii = 1,   |T_ij| <= eps := (2 Lam - gamma) / (2 Lam + gamma)

  (the bound is increasing in P_ii <= Lam), and ``rank T <= rank P + 1 <= d + 1`` (the shift adds
  rank one; a row scaling adds none). So Alon's theorem gives ``d + 1 >= c log|I| / (eps^2 log(1/eps))``
  when eps < 1/2, i.e. Lam < 1.5 gamma. Its constant c is not explicit, and the random construction's
  norms give Lam above 1.5 gamma (1.6 to 1.8 gamma at eps_zero = 0.1, k = 1), so we use Alon's proof
  with explicit numbers instead, valid for every eps < 1: for any real square M,
  ``|tr M| <= ||M||_* <= sqrt(rank M) ||M||_F``, so ``rank M >= (tr M)^2 / ||M||_F^2``; the Hadamard
  power ``T^(o t)`` (entries T_ij^t) has ``rank <= C(rank T + t - 1, t)``, unit diagonal and
  off-diagonal entries <= eps^t, hence for every integer t >= 1

      C(d + t, t) >= |I| / (1 + (|I| - 1) eps^(2t)).

  The smallest d meeting this for every t is a computable lower curve; with t ~ ln|I| / (2 ln(1/eps))
  it grows like ln|I| / (2 e eps^2 ln(1/eps)), Alon's rate. As Lam / gamma -> infinity, eps -> 1
  and the bound becomes trivial: consistent with d = 2 for unbounded inputs.

* d = 1 (``lower_bound``): with scalar logits ``x1_i x2_j`` the row maximum over the keys c(I) sits
  at the largest or the smallest x2, so at most two rows of a sub-identity can have their own
  strict maximum: |I| >= 3 needs d >= 2 whatever the norms.
"""

from __future__ import annotations

import math

import numpy as np

from expressivity.approximation_check import check_logits, check_tolerances
from expressivity.arguments import integer
from expressivity.optimised_inputs import module_logits
from expressivity.sparse_target import SparseTarget


def sub_identity(target: SparseTarget) -> tuple[np.ndarray, np.ndarray]:
    """Rows I and one support column c(i) of each (``rows, cols: (|I|,)``) such that c(i') is off
    the support of row i for all i != i' in I, chosen greedily in row order: row i is taken when no
    chosen column lies in S_i and some column of S_i lies in no chosen row's support (the first
    such column is c(i)). Every row for a permutation (k = 1); at least n / (2k - 1) rows when every
    row and column has at most k nonzeros (a taken row excludes at most 2 (k - 1) others)."""
    n = target.n
    covered = np.zeros(n, dtype=bool)  # union of the supports of the taken rows
    chosen = np.zeros(n, dtype=bool)  # the taken columns c(i)
    rows, cols = [], []
    for i in range(n):
        support = target.cols[i, : target.count[i]]
        if chosen[support].any():
            continue
        free = support[~covered[support]]
        if free.size == 0:
            continue
        rows.append(i)
        cols.append(int(free[0]))
        covered[support] = True
        chosen[free[0]] = True
    return np.array(rows, dtype=np.int64), np.array(cols, dtype=np.int64)


def alon_eps(logit_bound: float, eps_zero: float) -> float:
    """``eps = (2 Lam - gamma) / (2 Lam + gamma)``, gamma = log(1/eps_zero): the off-diagonal bound
    of the normalised sub-identity T when every |logit| <= Lam (module docstring). eps <= 0 means
    no two rows can be separated (2 Lam < gamma)."""
    if not 0 < eps_zero < 1:
        raise ValueError(f"eps_zero must be in (0, 1), got {eps_zero}")
    if not logit_bound >= 0:
        raise ValueError(f"logit_bound must be >= 0, got {logit_bound}")
    gamma = math.log(1 / eps_zero)
    if math.isinf(logit_bound):
        return 1.0
    return (2 * logit_bound - gamma) / (2 * logit_bound + gamma)


def perturbed_identity_rank_bound(m: int, eps: float, t_max: int = 200) -> int:
    """The smallest r with ``C(r + t - 1, t) >= m / (1 + (m - 1) eps^(2t))`` for every t = 1..t_max:
    a lower bound on the rank of any real m x m matrix with unit diagonal and off-diagonal entries
    at most eps in absolute value (Alon 2009's argument with explicit numbers; module docstring).
    ``eps >= 1`` gives 1 (no information); ``m <= 1`` gives m."""
    integer("m", m, 0)
    if m <= 1:
        return int(m)
    eps = abs(eps)
    if eps >= 1:
        return 1
    best = 1
    for t in range(1, t_max + 1):
        need = m / (1 + (m - 1) * eps ** (2 * t))
        r = best  # the bound at t can only matter if it exceeds the best so far
        while math.comb(r + t - 1, t) < need:
            r += 1
        best = max(best, r)
        if (m - 1) * eps ** (2 * t) < 1e-9:  # need ~ m from here on: a larger t asks less of r
            break
    return best


def perturbed_identity_lower_bound(m: int, logit_bound: float, eps_zero: float) -> int:
    """Lower bound on d from Alon's perturbed-identity rank argument for a sub-identity of m rows
    with every |logit| <= ``logit_bound``: ``rank T - 1`` (the row shift adds one to the rank), at
    least 1. Infinite when ``2 Lam < gamma`` and m >= 2 (no two rows can be separated)."""
    eps = alon_eps(logit_bound, eps_zero)
    if m >= 2 and eps <= 0:
        return math.inf
    return max(1, perturbed_identity_rank_bound(m, eps) - 1)


def packing_lower_bound(m: int, logit_bound: float, eps_zero: float) -> int:
    """``ceil(ln m / ln(1 + 2 Lam / gamma))``, at least 1: m keys gamma / r_q apart in a radius-r_k
    ball of R^d (module docstring)."""
    if m <= 1:
        return 1
    gamma = math.log(1 / eps_zero)
    if logit_bound <= 0:
        return math.inf
    if math.isinf(logit_bound):
        return 1
    return max(1, math.ceil(math.log(m) / math.log1p(2 * logit_bound / gamma) - 1e-12))


def lower_bound(target: SparseTarget, logit_bound: float, eps_zero: float) -> dict:
    """The lower bounds on d for ``target`` when every |logit| <= ``logit_bound``: the size of the
    greedy sub-identity, Alon's eps, the perturbed-identity bound, the packing bound, and their
    maximum with 2 (d = 1 cannot separate three rows of a sub-identity)."""
    rows, _ = sub_identity(target)
    m = len(rows)
    alon = perturbed_identity_lower_bound(m, logit_bound, eps_zero)
    packing = packing_lower_bound(m, logit_bound, eps_zero)
    return {"sub_identity_rows": m, "alon_eps": alon_eps(logit_bound, eps_zero),
            "d_lower_alon": alon, "d_lower_packing": packing,
            "d_lower": max(alon, packing, 2 if m >= 3 else 1)}


def circle_scale(n: int, eps_zero: float) -> float:
    """``s* = gamma / (1 - cos(2 pi / n))`` (= gamma / (2 sin^2(pi / n)) ~ gamma n^2 / (2 pi^2)): the
    smallest scale at which the d = 2 circle inputs meet condition (2)."""
    integer("n", n, 2)
    if not 0 < eps_zero < 1:
        raise ValueError(f"eps_zero must be in (0, 1), got {eps_zero}")
    return math.log(1 / eps_zero) / (2 * math.sin(math.pi / n) ** 2)


def circle_inputs(target: SparseTarget, scale: float) -> tuple[np.ndarray, np.ndarray]:
    """The unbounded d = 2 inputs for a permutation target (k = 1): ``X1_i = scale (cos t_pi(i),
    sin t_pi(i))``, ``X2_j = (cos t_j, sin t_j)``, ``t_j = 2 pi j / n``; ``X1, X2: (n, 2)``."""
    if int(target.count.max()) != 1:
        raise ValueError("the circle construction is for one nonzero per row (a permutation)")
    t = 2 * np.pi * np.arange(target.n) / target.n
    X2 = np.stack([np.cos(t), np.sin(t)], axis=1)
    return scale * X2[target.cols[:, 0]], X2


def circle_check(target: SparseTarget, eps_ratio: float, eps_zero: float,
                 margin: float = 1e-3) -> dict:
    """The circle inputs at ``s = (1 + margin) s*`` checked through the fixed module (float64
    ``check_logits`` on ``module_logits``), and again at s / 10 (where (2) must fail: the gap is
    s* (1 - cos(2 pi / n)) / 10 = gamma / 10 < gamma). The relative ``margin`` keeps the slack,
    margin * gamma, far above float64 rounding of logits of size s."""
    check_tolerances(eps_ratio, eps_zero)
    if not margin > 0:
        raise ValueError(f"margin must be > 0, got {margin}")
    s_star = circle_scale(target.n, eps_zero)
    s = (1 + margin) * s_star
    out = {"circle_scale_min": s_star, "circle_scale": s,
           "circle_scale_over_n2": s / target.n**2}
    for name, scale in (("circle", s), ("circle_tenth", s / 10)):
        X1, X2 = circle_inputs(target, scale)
        chk = check_logits(target, module_logits(X1, X2), eps_ratio, eps_zero)
        out[f"{name}_ok"] = chk.ok
        out[f"{name}_slack"] = float(chk.slack.min())
    out["circle_logit_bound"] = s  # ||X1_i|| = s, ||X2_j|| = 1
    return out
