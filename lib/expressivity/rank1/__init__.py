"""Kajitsuka & Sato 2024 (ICLR), Theorem 2 and Corollary 1: one-layer, single-head, rank-1
softmax attention is a contextual mapping, and with a ReLU FFN it memorizes.

(statement recalled [R], constants derived by us [D]; see ``shared/papers/kajitsuka_sato.md``
Secs. 3.1-3.4.) On a token-wise ``(r_min, r_max, eps)``-separated dataset
(``expressivity.datasets``) the layer

    W_K = v^T,  W_Q = lam v^T,  W_V = v^T,  W_O = (eps / (4 r_max)) u      (||v|| = ||u|| = 1)

is an ``(r, delta)``-contextual mapping: every output has norm ``<= r = r_max + eps/4`` and any two
outputs ``y^(i)_k, y^(j)_l`` whose query tokens differ or whose sequences' token *sets* differ are at
least ``delta`` apart. Row form (tokens are rows, ``X: (n, d)``): with the projections
``z_j = v^T x_j`` the output of query ``k`` is

    y_k = x_k + alpha c_k u,   c_k = sum_j softmax_j(lam z_k z) z_j = boltz(lam z_k z) / (lam z_k),

``alpha = eps / (4 r_max)``. Writing ``w = sign(z_k) z`` and ``b = lam |z_k|`` gives
``c_k = sign(z_k) C(b, w)`` with ``C(b, w) = sum_j w_j e^{b w_j} / sum_j e^{b w_j}``.

One module per part of the construction:

- ``projection``: the projection lemma that chooses ``v``;
- ``layer``: the layer itself (the one rank-1 head every stage uses; ``causal=True`` masks keys
  after the query) and its constants (``alpha``, ``lam_theory``, eq. (8)'s ``delta``, the digits a
  direct evaluation needs);
- ``contexts``: every (query token, token set) of a dataset and its value ``C``; for the causal
  layer every distinct (query token, prefix set) (``prefix_contexts``: the prefix contextual
  mapping, our reduction of the paper's masked-attention extension);
- ``pair_sums``: differences of two contexts as cancellation-free exponential sums, and the search
  for the last crossing of the asymptotic order (``lam_last_crossing``: every larger ``lam``
  separates, a sufficient ``lam``, not the smallest that does);
- ``separation``: the exhaustive separation check (float64, ball arithmetic, certified, and the
  exact limits: uniform averaging at ``lam = 0`` and hardmax);
- ``memorizer``: Corollary 1's one-layer transformer (the layer plus Zhang et al.'s interpolant,
  ``expressivity.relu_interpolant``) and its exact check.
"""
