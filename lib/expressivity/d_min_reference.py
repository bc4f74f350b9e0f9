"""The exact-rule reference for d_min: a row-exact Gaussian model of the search's decision rule.

Likhosherstov, Choromanski & Weller 2021 (arXiv 2106.03764; AAAI 2023) state d = O(log n) [V]; the
construction (row form: logits ``S = B G G^T`` at dimension d, G with i.i.d. N(0, 1/d) entries)
and the criterion are our reconstruction [R] (``approximation_check``). The search
(``one_pass_search``) declares d working when every row i meets

    (1) max_{l in S_i} (S_il - B_il) - min_{l in S_i} (S_il - B_il) <= eps_ratio,
    (2) max_{j not in S_i} S_ij - min_{l in S_i} S_il <= log eps_zero = -gamma,

(``log A_il = B_il + const`` on the support). This module models exactly that rule, one row at a
time [D]. With raw vectors ``g_l ~ N(0, I_d)`` and ``x_i = sum_{l in S_i} B_il g_l``:

* the support logits are ``s = W b / d``, ``b = B_i`` restricted to the support and
  ``W = (g_l . g_m)_{l, m in S_i}`` the k x k Gram matrix, Wishart(d, I_k) (drawn by Bartlett's
  decomposition: for k = 1, ``s = b u`` with ``u ~ chi^2_d / d``);
* given W, the n - k off-support logits ``<x_i, g_j> / d`` are i.i.d. N(0, sigma^2),
  ``sigma^2 = b^T W b / d^2`` (for k = 1, ``b^2 u / d``), so the probability that their maximum
  stays below ``min s - gamma`` is ``Phi((min s - gamma) / sigma)^(n - k)`` exactly.

A row passes with probability ``p = E_{b, W}[1{(1)} Phi(t)^(n - k)]``; treating the n rows as
independent (they share the g_j: the only approximation), every row passes with probability
``p^n``. The reference ``d_ref`` is the d at which that is 1/2 (the model's median working d), and
on the search's grid the first grid d at which it is at least 1/2 (the model's median d_min when
success is monotone in d). It has no fitted constant. Unlike the sufficient condition
``max_ij |E_ij| <= eps_ratio / 2`` (``random_projection.typical_dimension``) it uses the rule's own
one-sided gap, the support error B(u - 1) with twice the variance of an off-support error for
k = 1, and its coupling to the off-support scale through ||x_i||.

The expectation is a Monte Carlo average over ``draws`` rows (b from real targets, W from fixed
standard normals and uniforms, the same at every d: common random numbers, so that the probability
is smooth in d); the maximum over off-support columns is integrated exactly.
"""

from __future__ import annotations

import math

import numpy as np

from expressivity.approximation_check import check_tolerances
from expressivity.arguments import finite_array, integer


class RowModel:
    """The row-exact model for rows with logits ``B_rows: (rows, k)`` on their support (``real``
    marks the genuine slots; others carry no weight) at tolerances ``eps_ratio, eps_zero``.

    Per row, with ``c ~ chi^2_d`` and ``eta`` the projection of a standard normal k-vector off
    ``alpha = b / ||b||`` (module docstring): ``c`` is integrated by Gauss-Legendre quadrature on
    its normal-score scale (``nodes`` points on [-``span``, ``span``], quantile-coupled, so every
    d uses the same nodes), ``eta`` by quasi-Monte Carlo (``draws`` scrambled Sobol points drawn
    from N(0, tau^2 (I - alpha alpha^T)) and reweighted to tau = 1, so that its tails are sampled);
    equal rows are counted once with their weight.
    """

    def __init__(self, B_rows, real, eps_ratio: float, eps_zero: float, rng: np.random.Generator,
                 *, nodes: int = 32, span: float = 9.0, draws: int = 64, tau: float = 1.5):
        from scipy import special
        from scipy.stats import qmc

        check_tolerances(eps_ratio, eps_zero)
        b = finite_array("B_rows", B_rows, 2)
        real = np.asarray(real, dtype=bool)
        if b.ndim != 2 or real.shape != b.shape:
            raise ValueError(f"B_rows and real must both be (rows, k), got {b.shape} and "
                             f"{real.shape}")
        if not real[:, 0].all():
            raise ValueError("every row needs its first support slot genuine (real[:, 0])")
        rows, weight = np.unique(np.concatenate([np.where(real, b, 0.0), real], axis=1),
                                 axis=0, return_counts=True)
        k = b.shape[1]
        self.b, self.real = rows[:, :k], rows[:, k:].astype(bool)
        self.weight = weight / weight.sum()
        self.count = self.real.sum(axis=1)
        self.norm = np.linalg.norm(self.b, axis=1)
        self.eps_ratio, self.gamma = float(eps_ratio), -math.log(eps_zero)
        z, w = np.polynomial.legendre.leggauss(integer("nodes", nodes, 2))
        self.z, self.z_weight = span * z, span * w * np.exp(-0.5 * (span * z) ** 2) / math.sqrt(
            2 * math.pi)
        # eta = P xi, xi ~ N(0, tau^2 I_k) in the support's coordinates, P = I - alpha alpha^T;
        # its density ratio to tau = 1 depends on |P xi| only (the projected part)
        if k > 1:
            xi = tau * special.ndtri(qmc.Sobol(k, scramble=True, seed=rng).random(
                integer("draws", draws, 1)))
            alpha = self.b / self.norm[:, None]
            self.eta = xi[:, None, :] - (xi @ alpha.T)[:, :, None] * alpha[None]  # (draws, rows, k)
            r2 = (self.eta**2).sum(axis=2)
            self.eta_weight = tau ** (k - 1) * np.exp(-0.5 * r2 * (1 - tau**-2))
            self.eta_weight /= self.eta_weight.shape[0]
        else:
            self.eta = np.zeros((1, len(self.b), 1))
            self.eta_weight = np.ones((1, len(self.b)))
        self._pad_high = np.where(self.real, 0.0, np.inf)
        self._pad_low = np.where(self.real, 0.0, -np.inf)
        self._cache: dict[tuple[float, int], float] = {}

    @property
    def k(self) -> int:
        return self.b.shape[1]

    def statistics(self, d: float) -> tuple[np.ndarray, np.ndarray]:
        """At dimension d, on every (c node, eta draw, row): ``t = (min s - gamma) / sigma`` and
        whether (1) holds, both ``(nodes, draws, rows)``."""
        from scipy import special  # here: the workflow imports the library to plan jobs

        if not d > self.k:
            raise ValueError(f"d must be > k = {self.k}, got {d}")
        half = d / 2
        c = np.where(self.z < 0, 2 * special.gammaincinv(half, special.ndtr(self.z)),
                     2 * special.gammainccinv(half, special.ndtr(-self.z)))[:, None, None, None]
        alpha = (self.b / self.norm[:, None])[None, None]
        # s = (||b|| / d) (alpha c + sqrt(c) eta), sigma = ||b|| sqrt(c) / d
        scaled = alpha * np.sqrt(c) + self.eta[None]  # (nodes, draws, rows, k) = s / sigma
        s = scaled * (self.norm[:, None] * np.sqrt(c) / d)
        dev = s - self.b
        ratio_ok = ((dev + self._pad_low).max(axis=3) - (dev + self._pad_high).min(axis=3)
                    <= self.eps_ratio)
        sigma = self.norm * np.sqrt(c[..., 0]) / d
        t = (scaled + self._pad_high).min(axis=3) - self.gamma / sigma
        return t, ratio_ok

    def log_all_pass(self, d: float, n: int) -> float:
        """``ln P(every one of the n rows passes at d)`` = ``n ln p`` (rows independent)."""
        from scipy import special

        n = integer("n", n, int(self.count.max()) + 1)
        if (d, n) not in self._cache:
            t, ok = self.statistics(d)
            fail = -np.expm1(np.where(ok, (n - self.count) * special.log_ndtr(t), -np.inf))
            per_row = np.einsum("c,cdr,dr->r", self.z_weight, fail, self.eta_weight)
            fail = float(per_row @ self.weight)
            self._cache[d, n] = -math.inf if fail >= 1 else n * math.log1p(-fail)
        return self._cache[d, n]

    def reference(self, n: int, grid, q: float = 0.5, start: int = 0) -> tuple[float, float, int]:
        """``(d_grid, d_ref, index)``: the first d of the increasing search ``grid`` at which every
        row passes with probability at least ``q`` (the model's median d_min when success is
        monotone in d), the d at which the probability is ``q`` (interpolated linearly in d from
        the grid point before), and the grid index of ``d_grid``. NaN (and index -1) when no grid
        d reaches ``q``; ``d_ref = d_grid`` at the first grid point. The probability rises with d;
        the search starts at ``start`` (a smaller n's index: d_ref grows with n) and doubles its
        step until it passes."""
        if not 0 < q < 1:
            raise ValueError(f"q must be in (0, 1), got {q}")
        grid = np.asarray(grid, dtype=float)
        if grid.ndim != 1 or grid.size == 0 or (np.diff(grid) <= 0).any() or grid[0] <= self.k:
            raise ValueError(f"grid must be an increasing list of d > k = {self.k}")
        target = math.log(q)
        passes = lambda i: self.log_all_pass(float(grid[i]), n) >= target  # noqa: E731
        lo = min(max(0, start), grid.size - 1)
        if passes(lo):
            lo, hi = 0, lo
        else:
            step, hi = 1, lo + 1
            while hi < grid.size and not passes(hi):
                lo, hi, step = hi, hi + 2 * step, 2 * step
            if hi >= grid.size:
                if not passes(grid.size - 1):
                    return math.nan, math.nan, -1
                hi = grid.size - 1
            lo += 1
        while lo < hi:
            mid = (lo + hi) // 2
            if passes(mid):
                hi = mid
            else:
                lo = mid + 1
        if lo == 0:
            return float(grid[0]), float(grid[0]), 0
        below = self.log_all_pass(float(grid[lo - 1]), n)
        above = self.log_all_pass(float(grid[lo]), n)
        if not np.isfinite(below):
            return float(grid[lo]), float(grid[lo]), lo
        share = (target - below) / (above - below)
        return float(grid[lo]), float(grid[lo - 1] + share * (grid[lo] - grid[lo - 1])), lo
