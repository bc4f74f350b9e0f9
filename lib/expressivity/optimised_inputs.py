"""Inputs X = [X1, X2] optimised for the FIXED module, under a bound on their rows' norms.

Likhosherstov, Choromanski & Weller 2021 (arXiv 2106.03764; AAAI 2023) fix W_Q, W_K and change only
the input; their random construction (our reconstruction [R], ``fixed_module``: X1 = B G, X2 = G)
needs d = O(log n) [V]. How far is that from the smallest d any input reaches? This module looks for
inputs directly [D] (ours; no paper reports it).

Row form, ``X1, X2: (n, d)``, ``X = [X1, X2]: (n, 2d)``, ``W_Q = d^(1/4) [I; 0]``,
``W_K = d^(1/4) [0; I]``: the module's logits are ``X W_Q (X W_K)^T / sqrt(d) = X1 X2^T =: S``.
The criterion is the project's (``approximation_check``): for every row i with support S_i,
``gamma = log(1/eps_zero)``, ``dev_is = S_is - log A_is`` (s in S_i),

    (1) max_s dev_is - min_s dev_is <= eps_ratio,       (2) S_ij - S_is <= -gamma  (j not in S_i).

**Norm balls.** Every row of X1 is kept in the ball of radius ``r_q``, every row of X2 in radius
``r_k``, with (``construction_radii``)

    r_q = max_i ||(B G)_i||,   r_k = max_j ||G_j||,

the largest row norms of the random construction X1 = B G, X2 = G *at its own d_min on the same
target* (the same draw of G as the one-pass search). So the random construction is itself a
feasible point of the constrained problem at d = d_min, and "optimised d against random d_min"
compares two inputs under the same bound: the optimum is at most d_min. Only the product
``Lam = r_q r_k`` matters (X1 -> c X1, X2 -> X2 / c leaves S unchanged); it bounds every logit,
|S_ij| <= Lam, which is what the lower bounds of ``norm_bounds`` use. Without the bound, d = 2
suffices for a permutation (``norm_bounds.circle_inputs``, logits ~ n^2 log(1/eps_zero)).

**Loss.** A hinge of the two tolerances in logit space with a target margin mu > 0:

    L(X) = (1/n) sum_i [ sum_{j not in S_i} sum_{s in S_i} (S_ij - S_is + gamma + mu)_+
                         + sum_{s, s' in S_i} (dev_is - dev_is' - eps_ratio + mu)_+ ],

so L = 0 implies (1) and (2) with slack >= mu. Its (sub)gradient in S (``hinge_gradient``):
``dL/dS_ij = (1/n) #{s : violated (i, j, s)}`` off the support and, on it,
``dL/dS_is = (1/n) (#{s' : (i, s, s') violated} - #{s' : (i, s', s) violated} - #{j : (i, j, s)
violated})``; then ``dL/dX1 = (dL/dS) X2``, ``dL/dX2 = (dL/dS)^T X1``.

**Projected Adam** (``optimise_inputs``): Adam steps (learning rate ``lr * r`` for each half) each
followed by the projection of every row onto its ball, ``x <- x min(1, r / ||x||)``. Rows start
uniformly on the spheres. Every ``check_every`` steps the current (projected) X is checked:
**the decision is the project's float64 check** (``check_logits``) on the logits computed through
the explicit fixed weights (``module_logits``), never the loss; a success needs slack above a
float64 rounding bound (``rounding_tolerance``). An attempt stops at its first success, after
``steps`` steps, or when the number of failing rows has not reached a new low for ``patience``
steps (this only shortens failing attempts).

**Smallest d** (``smallest_d``): the ascending grid ``one_pass_search.d_grid(d_start, d_max,
resolution, 1)``; at each d, ``restarts`` independent starts; the first d at which one succeeds is
the optimised d (NaN when none does). It is an upper estimate of the smallest feasible d under the
bound (a local method can miss a solution); ``norm_bounds`` gives the lower side.

Torch float64 on ``device`` ("cpu", the default; "cuda"; "auto" = a GPU when torch sees one), one
CPU thread, deterministic algorithms (``torch_runtime.configure_torch``). The starts are drawn from
numpy generators derived from the caller's, one per (d, restart): same seed, same bytes.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import torch

from expressivity.approximation_check import check_logits, check_tolerances
from expressivity.arguments import integer
from expressivity.fixed_module import U64, sparse_fixed_weights
from expressivity.one_pass_search import d_grid
from expressivity.sparse_target import SparseTarget
from expressivity.torch_runtime import configure_torch


def module_logits(X1: np.ndarray, X2: np.ndarray) -> np.ndarray:
    """``X W_Q (X W_K)^T / sqrt(d)`` for ``X = [X1, X2]: (n, 2d)`` with the explicit fixed weights
    (``fixed_module.sparse_fixed_weights``): ``(n, n)``, equal to X1 X2^T up to rounding."""
    X1, X2 = np.asarray(X1, dtype=float), np.asarray(X2, dtype=float)
    if X1.ndim != 2 or X1.shape != X2.shape:
        raise ValueError(f"X1 and X2 must both be (n, d), got {X1.shape} and {X2.shape}")
    d = X1.shape[1]
    W_Q, W_K = sparse_fixed_weights(d)
    X = np.hstack([X1, X2])
    return np.asarray(X @ W_Q) @ np.asarray(X @ W_K).T / math.sqrt(d)


def construction_radii(QT: np.ndarray, KT: np.ndarray, d: int) -> tuple[float, float]:
    """``(r_q, r_k)``: the largest row norms of the construction's ``X1 = QT[:d].T / sqrt(d)`` and
    ``X2 = KT[:d].T / sqrt(d)`` (row form: B G and G) at dimension d."""
    integer("d", d, 1, QT.shape[0])
    r_q = math.sqrt(float(np.einsum("cj,cj->j", QT[:d], QT[:d]).max()) / d)
    r_k = math.sqrt(float(np.einsum("cj,cj->j", KT[:d], KT[:d]).max()) / d)
    return r_q, r_k


def rounding_tolerance(d: int, radius_q: float, radius_k: float) -> float:
    """Bound on the float64 error of a slack: it combines 4 logits, each a length-d dot product of
    rows of norm <= r_q (scaled by d^(1/4)) and <= r_k (scaled by d^(1/4)), divided by sqrt(d):
    error <= gamma_{d+3} r_q r_k each."""
    gamma = (d + 3) * U64 / (1 - (d + 3) * U64)
    return 4 * gamma * radius_q * radius_k + 1e-13


def project_rows(X: torch.Tensor, radius: float) -> None:
    """In place: every row x of ``X`` becomes ``x min(1, radius / ||x||)`` (the Euclidean
    projection onto the ball of that radius)."""
    norms = torch.linalg.vector_norm(X, dim=1, keepdim=True)
    X.mul_(torch.clamp(radius / norms.clamp(min=1e-300), max=1.0))


@dataclass
class _Problem:
    """The target on the device: support columns, log A, masks (``(n, k)``, ``(n, n)``)."""

    rows: torch.Tensor
    cols: torch.Tensor
    log_a: torch.Tensor
    real: torch.Tensor
    off: torch.Tensor
    pair: torch.Tensor

    @classmethod
    def of(cls, target: SparseTarget, dev: torch.device) -> _Problem:
        n, k = target.n, target.k
        cols = torch.from_numpy(target.cols).to(dev)
        rows = torch.arange(n, device=dev)[:, None].expand(n, k)
        real = torch.from_numpy(target.real).to(dev)
        off = torch.ones((n, n), dtype=torch.bool, device=dev)
        off[rows, cols] = False
        return cls(rows, cols, torch.from_numpy(np.log(target.vals)).to(dev), real, off,
                   real[:, :, None] & real[:, None, :])


def hinge_gradient(S: torch.Tensor, problem: _Problem, gamma: float, eps_ratio: float,
                   margin: float) -> tuple[float, torch.Tensor]:
    """The hinge loss L of the module docstring at logits ``S: (n, n)`` and its (sub)gradient
    ``dL/dS: (n, n)``."""
    n = S.shape[0]
    p = problem
    sup = S[p.rows, p.cols]  # (n, k)
    z = S[:, :, None] - sup[:, None, :] + (gamma + margin)  # (n, n, k): j against slot s
    vz = (z > 0) & p.off[:, :, None] & p.real[:, None, :]
    dev = sup - p.log_a
    w = dev[:, :, None] - dev[:, None, :] - (eps_ratio - margin)  # (n, k, k)
    vw = (w > 0) & p.pair
    loss = float((torch.where(vz, z, 0.0).sum() + torch.where(vw, w, 0.0).sum()) / n)
    gz, gw = vz.to(S.dtype), vw.to(S.dtype)
    dS = gz.sum(dim=2)
    dsup = gw.sum(dim=2) - gw.sum(dim=1) - gz.sum(dim=1)
    # padding slots repeat a real column with zero gradient: accumulate, never overwrite
    dS.index_put_((p.rows, p.cols), dsup, accumulate=True)
    return loss, dS / n


@dataclass
class Attempt:
    """One optimisation at dimension d: ``ok`` when the float64 check passed with slack above
    ``rounding_tol``; ``slack`` the check's smallest row slack at the end (at the success, or the
    best seen when it failed); ``steps`` taken; the final inputs ``X1, X2: (n, d)``."""

    d: int
    restart: int
    ok: bool
    slack: float
    failing_rows: int
    steps: int
    rounding_tol: float
    X1: np.ndarray = field(repr=False)
    X2: np.ndarray = field(repr=False)


def optimise_inputs(target: SparseTarget, d: int, *, radius_q: float, radius_k: float,
                    eps_ratio: float, eps_zero: float, rng: np.random.Generator,
                    steps: int = 800, lr: float = 0.05, margin: float = 0.05,
                    check_every: int = 25, patience: int = 200, device: str = "cpu",
                    restart: int = 0) -> Attempt:
    """Projected Adam on the hinge loss at dimension d (module docstring), from rows drawn
    uniformly on the spheres of radii ``radius_q`` (X1) and ``radius_k`` (X2) by ``rng``. The
    result is decided by ``check_logits`` on ``module_logits`` of the projected inputs."""
    check_tolerances(eps_ratio, eps_zero)
    integer("d", d, 1)
    if not (radius_q > 0 and radius_k > 0 and math.isfinite(radius_q * radius_k)):
        raise ValueError(f"radii must be positive and finite, got {radius_q}, {radius_k}")
    for name, value in (("steps", steps), ("check_every", check_every), ("patience", patience)):
        integer(name, value, 1)
    if not (lr > 0 and margin >= 0):
        raise ValueError(f"need lr > 0 and margin >= 0, got lr={lr}, margin={margin}")
    dev = configure_torch(1, device)
    n, d = target.n, int(d)
    gamma = math.log(1 / eps_zero)
    tol = rounding_tolerance(d, radius_q, radius_k)
    start = []
    for radius in (radius_q, radius_k):
        Z = rng.standard_normal((n, d))
        start.append(radius * Z / np.linalg.norm(Z, axis=1, keepdims=True))
    X1 = torch.from_numpy(start[0]).to(dev)
    X2 = torch.from_numpy(start[1]).to(dev)
    problem = _Problem.of(target, dev)
    opt = torch.optim.Adam([{"params": [X1], "lr": lr * radius_q},
                            {"params": [X2], "lr": lr * radius_k}], foreach=False)
    best_fail, best_step, best_slack, best_X = n + 1, 0, -math.inf, None
    step = 0
    while True:
        if step % check_every == 0 or step == steps:
            A1, A2 = X1.cpu().numpy().copy(), X2.cpu().numpy().copy()
            chk = check_logits(target, module_logits(A1, A2), eps_ratio, eps_zero)
            slack, failing = float(chk.slack.min()), int((chk.slack < 0).sum())
            if slack > tol:
                return Attempt(d, restart, True, slack, 0, step, tol, A1, A2)
            if failing < best_fail:
                best_fail, best_step = failing, step
            if best_X is None or slack > best_slack:
                best_slack, best_X = slack, (A1, A2)
            if step >= steps or step - best_step >= patience:
                return Attempt(d, restart, False, best_slack, best_fail, step, tol, *best_X)
        S = X1 @ X2.T
        _, dS = hinge_gradient(S, problem, gamma, eps_ratio, margin)
        X1.grad, X2.grad = dS @ X2, dS.T @ X1
        opt.step()
        with torch.no_grad():
            project_rows(X1, radius_q)
            project_rows(X2, radius_k)
        step += 1


@dataclass
class ScanResult:
    """The ascending scan: ``grid`` (every d that may be tried), the ``attempts`` made in order,
    and ``d_opt``, the first grid d at which an attempt succeeded (NaN when none did);
    ``best`` is that attempt."""

    grid: np.ndarray
    attempts: list[Attempt]
    best: Attempt | None

    @property
    def d_opt(self) -> float:
        return float(self.best.d) if self.best is not None else math.nan

    @property
    def tried(self) -> list[int]:
        return sorted({a.d for a in self.attempts})

    @property
    def largest_failed_d(self) -> float:
        failed = [a.d for a in self.attempts if not any(
            b.ok for b in self.attempts if b.d == a.d)]
        return float(max(failed)) if failed else math.nan


def start_generator(root: int, d: int, restart: int) -> np.random.Generator:
    """The generator of the start at (d, restart) in a scan whose root number is ``root``: the
    start at a given d does not depend on which other d were tried."""
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence([root, d, restart])))


def smallest_d(target: SparseTarget, *, radius_q: float, radius_k: float, eps_ratio: float,
               eps_zero: float, rng: np.random.Generator, d_start: int = 2, d_max: int = 64,
               resolution: float = 0.05, restarts: int = 1, steps: int = 800, lr: float = 0.05,
               margin: float = 0.05, check_every: int = 25, patience: int = 200,
               device: str = "cpu",
               progress: Callable[[Attempt], None] | None = None) -> ScanResult:
    """The smallest d on ``d_grid(d_start, d_max, resolution, 1)`` at which one of ``restarts``
    optimisations (``optimise_inputs``) meets the criterion, scanning upwards and stopping at the
    first success. ``rng`` gives one root number; each (d, restart) start has its own generator
    (``start_generator``). ``progress(attempt)`` after every attempt."""
    integer("restarts", restarts, 1)
    grid = d_grid(d_start, d_max, resolution, 1)
    root = int(rng.integers(0, 2**63))
    attempts = []
    for d in grid:
        for r in range(restarts):
            a = optimise_inputs(target, int(d), radius_q=radius_q, radius_k=radius_k,
                                eps_ratio=eps_ratio, eps_zero=eps_zero,
                                rng=start_generator(root, int(d), r), steps=steps, lr=lr,
                                margin=margin, check_every=check_every, patience=patience,
                                device=device, restart=r)
            attempts.append(a)
            if progress is not None:
                progress(a)
            if a.ok:
                return ScanResult(grid, attempts, a)
    return ScanResult(grid, attempts, None)
