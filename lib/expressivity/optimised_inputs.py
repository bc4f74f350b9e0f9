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
from dataclasses import dataclass, field, fields

import numpy as np
import torch

from expressivity.approximation_check import check_logits, check_tolerances
from expressivity.arguments import integer
from expressivity.fixed_module import U64, sparse_fixed_weights
from expressivity.one_pass_search import coarse_indices, d_grid
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


def project_rows(X: torch.Tensor, radius) -> None:
    """In place: every row x of ``X: (..., n, d)`` becomes ``x min(1, radius / ||x||)`` (the
    Euclidean projection onto the ball of that radius; ``radius`` a number or a tensor that
    broadcasts against ``(..., n, 1)``, one radius per member of a batch)."""
    norms = torch.linalg.vector_norm(X, dim=-1, keepdim=True)
    X.mul_(torch.clamp(radius / norms.clamp(min=1e-300), max=1.0))


@dataclass(frozen=True)
class Problem:
    """One optimisation of a batch: the ``target``, the radii of the balls of X1's rows
    (``radius_q``) and X2's rows (``radius_k``), and the criterion's ``eps_zero``."""

    target: SparseTarget
    radius_q: float
    radius_k: float
    eps_zero: float

    def __post_init__(self) -> None:
        if not (self.radius_q > 0 and self.radius_k > 0
                and math.isfinite(self.radius_q * self.radius_k)):
            raise ValueError(f"radii must be positive and finite, got {self.radius_q}, "
                             f"{self.radius_k}")
        if not 0 < self.eps_zero < 1:
            raise ValueError(f"eps_zero must be in (0, 1), got {self.eps_zero}")


@dataclass
class _Problem:
    """The targets of a batch of P problems of one (n, k) on the device: support columns
    ``cols: (P, n, k)``, ``log_a: (P, n, k)``, the (j, s) pairs of condition (2), ``zero: (P, n, n,
    k)`` (j off the support, slot s real), the pairs of real slots ``pair: (P, n, k, k)`` and the
    margins ``gamma = log(1/eps_zero): (P,)``."""

    cols: torch.Tensor
    log_a: torch.Tensor
    zero: torch.Tensor
    pair: torch.Tensor
    gamma: torch.Tensor

    @classmethod
    def of(cls, targets: list[SparseTarget], dev: torch.device,
           eps_zero: list[float]) -> _Problem:
        n, k = targets[0].n, targets[0].k
        if any(t.n != n or t.k != k for t in targets):
            raise ValueError("a batch holds targets of one n and k")
        cols = torch.from_numpy(np.stack([t.cols for t in targets])).to(dev)
        real = torch.from_numpy(np.stack([t.real for t in targets])).to(dev)
        off = torch.ones((len(targets), n, n), dtype=torch.bool, device=dev)
        off.scatter_(2, cols, False)
        log_a = torch.from_numpy(np.log(np.stack([t.vals for t in targets]))).to(dev)
        gamma = torch.tensor([math.log(1 / e) for e in eps_zero], dtype=torch.float64, device=dev)
        return cls(cols, log_a, off[..., None] & real[:, :, None, :],
                   real[..., :, None] & real[..., None, :], gamma)

    def select(self, keep: torch.Tensor) -> _Problem:
        """The members ``keep`` (indices) of the batch."""
        return _Problem(*(getattr(self, f.name)[keep] for f in fields(self)))


def hinge_gradient(S: torch.Tensor, problem: _Problem, eps_ratio: float,
                   margin: float) -> tuple[torch.Tensor, torch.Tensor]:
    """The hinge loss L of the module docstring at the logits ``S: (P, n, n)`` of a batch and its
    (sub)gradient ``dL/dS: (P, n, n)``; the losses are ``(P,)``. A term at exactly 0 (a kink)
    counts as satisfied."""
    n = S.shape[-1]
    p = problem
    sup = torch.gather(S, 2, p.cols)  # (P, n, k)
    # (P, n, n, k): j against slot s, kept where the pair belongs to condition (2)
    z = (S[..., None] - (sup - (p.gamma + margin)[:, None, None])[:, :, None, :]).clamp_(min=0)
    z.mul_(p.zero)
    dev = sup - p.log_a
    w = (dev[..., :, None] - dev[..., None, :] - (eps_ratio - margin)).clamp_(min=0)
    w.mul_(p.pair)  # (P, n, k, k)
    loss = (z.sum(dim=(1, 2, 3)) + w.sum(dim=(1, 2, 3))) / n
    gz, gw = (z > 0).to(S.dtype), (w > 0).to(S.dtype)
    dS = gz.sum(dim=3)
    dsup = gw.sum(dim=3) - gw.sum(dim=2) - gz.sum(dim=2)
    # padding slots repeat a real column with zero gradient: accumulate, never overwrite
    dS.scatter_add_(2, p.cols, dsup)
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


#: Adam's constants (torch's defaults): the update of ``optimise_batch`` is ``torch.optim.Adam``'s.
BETAS, ADAM_EPS = (0.9, 0.999), 1e-8


def _settings(d, steps, check_every, patience, lr, margin) -> None:
    integer("d", d, 1)
    for name, value in (("steps", steps), ("check_every", check_every), ("patience", patience)):
        integer(name, value, 1)
    if not (lr > 0 and margin >= 0):
        raise ValueError(f"need lr > 0 and margin >= 0, got lr={lr}, margin={margin}")


def optimise_batch(problems: list[Problem], d: int, *, eps_ratio: float,
                   rngs: list[np.random.Generator], restarts: list[int] | None = None,
                   steps: int = 800, lr: float = 0.05, margin: float = 0.05,
                   check_every: int = 25, patience: int = 200,
                   device: str = "cpu") -> list[Attempt]:
    """Projected Adam on the hinge loss at dimension d for every problem of a batch at once (one
    (n, k)), each from rows drawn uniformly on the spheres of its radii by its generator in
    ``rngs``; each member is decided by ``check_logits`` on ``module_logits`` of its projected
    inputs and stops on its own (module docstring). The members are independent: a member's
    attempt is the one it would make alone (up to the order of floating-point sums)."""
    if not 0 < eps_ratio <= 1:
        raise ValueError(f"eps_ratio must be in (0, 1], got {eps_ratio}")
    _settings(d, steps, check_every, patience, lr, margin)
    if not problems or len(rngs) != len(problems):
        raise ValueError(f"need one generator per problem, got {len(rngs)} for {len(problems)}")
    restarts = [0] * len(problems) if restarts is None else list(restarts)
    dev = configure_torch(1, device)
    n, d, P = problems[0].target.n, int(d), len(problems)
    tols = [rounding_tolerance(d, p.radius_q, p.radius_k) for p in problems]
    starts = []
    for p, rng in zip(problems, rngs, strict=True):
        for radius in (p.radius_q, p.radius_k):
            Z = rng.standard_normal((n, d))
            starts.append(radius * Z / np.linalg.norm(Z, axis=1, keepdims=True))
    X1 = torch.from_numpy(np.stack(starts[0::2])).to(dev)
    X2 = torch.from_numpy(np.stack(starts[1::2])).to(dev)
    batch = _Problem.of([p.target for p in problems], dev, [p.eps_zero for p in problems])
    radii = torch.tensor([[p.radius_q, p.radius_k] for p in problems], dtype=torch.float64,
                         device=dev)[:, :, None, None]  # (P, 2, 1, 1)
    moments = [torch.zeros_like(X1) for _ in range(4)]  # Adam's m and v of X1, then of X2
    active = list(range(P))
    best = [{"fail": n + 1, "step": 0, "slack": -math.inf, "X": None} for _ in range(P)]
    out: list[Attempt | None] = [None] * P
    step = 0
    while active:
        if step % check_every == 0 or step == steps:
            A1, A2 = X1.cpu().numpy().copy(), X2.cpu().numpy().copy()
            keep = []
            for pos, m in enumerate(active):
                prob, b = problems[m], best[m]
                chk = check_logits(prob.target, module_logits(A1[pos], A2[pos]), eps_ratio,
                                   prob.eps_zero)
                slack, failing = float(chk.slack.min()), int((chk.slack < 0).sum())
                if slack > tols[m]:
                    out[m] = Attempt(d, restarts[m], True, slack, 0, step, tols[m], A1[pos],
                                     A2[pos])
                    continue
                if failing < b["fail"]:
                    b["fail"], b["step"] = failing, step
                if b["X"] is None or slack > b["slack"]:
                    b["slack"], b["X"] = slack, (A1[pos], A2[pos])
                if step >= steps or step - b["step"] >= patience:
                    out[m] = Attempt(d, restarts[m], False, b["slack"], b["fail"], step, tols[m],
                                     *b["X"])
                    continue
                keep.append(pos)
            if len(keep) < len(active):
                idx = torch.tensor(keep, dtype=torch.long, device=dev)
                X1, X2, radii = X1[idx], X2[idx], radii[idx]
                moments = [t[idx] for t in moments]
                batch = batch.select(idx)
                active = [active[i] for i in keep]
                if not active:
                    break
        _, dS = hinge_gradient(X1 @ X2.transpose(1, 2), batch, eps_ratio, margin)
        grads = (dS @ X2, dS.transpose(1, 2) @ X1)
        step += 1
        correction1, correction2 = 1 - BETAS[0] ** step, math.sqrt(1 - BETAS[1] ** step)
        for h, (X, grad) in enumerate(zip((X1, X2), grads, strict=True)):
            m1, m2 = moments[2 * h], moments[2 * h + 1]
            m1.lerp_(grad, 1 - BETAS[0])
            m2.mul_(BETAS[1]).addcmul_(grad, grad, value=1 - BETAS[1])
            rate = lr * radii[:, h] / correction1  # lr times the member's radius, as torch's Adam
            X.sub_(rate * m1 / (m2.sqrt() / correction2 + ADAM_EPS))
            project_rows(X, radii[:, h])
    return out


def optimise_inputs(target: SparseTarget, d: int, *, radius_q: float, radius_k: float,
                    eps_ratio: float, eps_zero: float, rng: np.random.Generator,
                    steps: int = 800, lr: float = 0.05, margin: float = 0.05,
                    check_every: int = 25, patience: int = 200, device: str = "cpu",
                    restart: int = 0) -> Attempt:
    """Projected Adam on the hinge loss at dimension d (module docstring), from rows drawn
    uniformly on the spheres of radii ``radius_q`` (X1) and ``radius_k`` (X2) by ``rng``. The
    result is decided by ``check_logits`` on ``module_logits`` of the projected inputs: a batch
    of one (``optimise_batch``)."""
    check_tolerances(eps_ratio, eps_zero)
    return optimise_batch([Problem(target, radius_q, radius_k, eps_zero)], d,
                          eps_ratio=eps_ratio, rngs=[rng], restarts=[restart], steps=steps, lr=lr,
                          margin=margin, check_every=check_every, patience=patience,
                          device=device)[0]


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


#: The largest batch ``smallest_d_batch`` runs at once, in bytes of one (P, n, n, k) float64 hinge
#: array (a step holds a few such arrays): larger batches are split.
BATCH_BYTES = 2**28


def smallest_d_batch(problems: list[Problem], *, eps_ratio: float, roots: list[int],
                     d_start, d_max: int = 64, resolution: float = 0.05, coarse: float = 0.0,
                     restarts: int = 1, steps: int = 800, lr: float = 0.05, margin: float = 0.05,
                     check_every: int = 25, patience: int = 200, device: str = "cpu",
                     progress: Callable[[int, Attempt], None] | None = None) -> list[ScanResult]:
    """For every problem, the smallest d on its grid ``d_grid(d_start, d_max, resolution, 1)``
    (``d_start`` one integer, or one per problem) at which one of ``restarts`` optimisations meets
    the criterion.

    The scan walks the grid upwards and stops at the first success; with ``coarse > 0`` it walks
    only ``coarse_indices`` (steps of a factor ``1 + coarse``) and then bisects the grid points
    between the last failure and the first success, so that the result is a grid d that succeeded
    whose grid predecessor failed (the same as the full walk when success is monotone in d; a
    local optimiser can miss a solution either way). At each round the problems that try the same
    d run in one batch (``optimise_batch``). Problem p's start at (d, restart) has its own
    generator, ``start_generator(roots[p], d, restart)``, so its scan does not depend on the other
    problems. ``progress(p, attempt)`` after every attempt."""
    integer("restarts", restarts, 1)
    if not coarse >= 0:
        raise ValueError(f"coarse must be >= 0, got {coarse!r}")
    starts = [d_start] * len(problems) if isinstance(d_start, (int, np.integer)) else d_start
    if len(starts) != len(problems) or len(roots) != len(problems):
        raise ValueError("need one root number (and d_start, when a list) per problem")
    grids = [d_grid(int(s), d_max, resolution, 1) for s in starts]
    attempts: list[list[Attempt]] = [[] for _ in problems]
    best: list[Attempt | None] = [None] * len(problems)
    n, k = problems[0].target.n, problems[0].target.k
    per_batch = max(1, BATCH_BYTES // (8 * n * n * k))

    def run(wanted: dict[int, int]) -> dict[int, bool]:
        """Problem -> grid index tried; returns problem -> success, batching equal d."""
        ok = {}
        for d in sorted({int(grids[p][i]) for p, i in wanted.items()}):
            members = [(p, r) for p, i in wanted.items() if grids[p][i] == d
                       for r in range(restarts)]
            for first in range(0, len(members), per_batch):
                chunk = members[first:first + per_batch]
                done = optimise_batch(
                    [problems[p] for p, _ in chunk], d, eps_ratio=eps_ratio,
                    rngs=[start_generator(roots[p], d, r) for p, r in chunk],
                    restarts=[r for _, r in chunk], steps=steps, lr=lr, margin=margin,
                    check_every=check_every, patience=patience, device=device)
                for (p, _), a in zip(chunk, done, strict=True):
                    attempts[p].append(a)
                    ok[p] = ok.get(p, False) or a.ok
                    if a.ok and (best[p] is None or a.d < best[p].d):
                        best[p] = a
                    if progress is not None:
                        progress(p, a)
        return ok

    walks = [coarse_indices(grid, coarse) for grid in grids]
    # phase 1: the (coarse) walk upwards; lo/hi: grid indices of the last failure, first success
    lo, hi = [-1] * len(problems), [None] * len(problems)
    for step in range(max(len(w) for w in walks)):
        wanted = {p: walks[p][step] for p in range(len(problems))
                  if hi[p] is None and step < len(walks[p])}
        for p, success in run(wanted).items():
            if success:
                hi[p] = wanted[p]
            else:
                lo[p] = wanted[p]
    # phase 2: bisect the grid between them (nothing to do after a full walk)
    while True:
        wanted = {p: (lo[p] + hi[p]) // 2 for p in range(len(problems))
                  if hi[p] is not None and hi[p] - lo[p] > 1}
        if not wanted:
            break
        for p, success in run(wanted).items():
            if success:
                hi[p] = wanted[p]
            else:
                lo[p] = wanted[p]
    for p in range(len(problems)):  # the reported d: the grid point where the search ended
        if hi[p] is not None:
            best[p] = next(a for a in attempts[p] if a.ok and a.d == grids[p][hi[p]])
    return [ScanResult(grid, a, b) for grid, a, b in zip(grids, attempts, best, strict=True)]


def smallest_d(target: SparseTarget, *, radius_q: float, radius_k: float, eps_ratio: float,
               eps_zero: float, rng: np.random.Generator, d_start: int = 2, d_max: int = 64,
               resolution: float = 0.05, restarts: int = 1, steps: int = 800, lr: float = 0.05,
               margin: float = 0.05, check_every: int = 25, patience: int = 200,
               device: str = "cpu",
               progress: Callable[[Attempt], None] | None = None) -> ScanResult:
    """The smallest d on ``d_grid(d_start, d_max, resolution, 1)`` at which one of ``restarts``
    optimisations (``optimise_inputs``) meets the criterion, scanning upwards and stopping at the
    first success: ``smallest_d_batch`` of one problem. ``rng`` gives its root number.
    ``progress(attempt)`` after every attempt."""
    check_tolerances(eps_ratio, eps_zero)
    root = int(rng.integers(0, 2**63))
    return smallest_d_batch(
        [Problem(target, radius_q, radius_k, eps_zero)], eps_ratio=eps_ratio, roots=[root],
        d_start=d_start, d_max=d_max, resolution=resolution, restarts=restarts, steps=steps,
        lr=lr, margin=margin, check_every=check_every, patience=patience, device=device,
        progress=None if progress is None else (lambda _, a: progress(a)))[0]
