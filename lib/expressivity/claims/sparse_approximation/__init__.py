"""Claims of the sparse-approximation stage (Likhosherstov, Choromanski & Weller 2021/2023), one
module per topic.

The statement (fixed W_Q, W_K; sparse targets approximated by changing only X; d = O(log n)) is
from the paper's abstract [V]. The precision notion, B, the construction's scaling and the bound (*)
are OUR reconstruction [R]; the measurements are ours [D]. See shared/papers/likhosherstov.md.

* ``construction``: the JL bound suffices (check), one fixed module serves every target (check),
  d_min falls below n at the n* the exact-rule reference predicts (finding);
* ``growth``: d = O(log n) out of sample against a power law and (ln n)^2, and d_min over the
  exact-rule reference (``d_min_reference``: a row-exact Gaussian model of the search's own
  decision rule) flat within an equivalence margin, per-entry and mass-calibrated (findings, each
  with its power against the alternatives it names);
* ``mass``: the off-support attention mass and what bounding it costs (checks: the arithmetic of
  the target and of the construction);
* ``optimised``: inputs optimised under the construction's norm bound, the lower bounds that bound
  implies, the unbounded d = 2 circle;
* ``frontier``: the dimension-norm frontier: d against the logit budget at fixed target (finding:
  the packing bound's elasticity), d against n at one budget (finding), the lower bounds under
  every budget and the unbounded circle and moment curve (checks).
"""

from expressivity.claims.sparse_approximation import construction, frontier, growth, mass, optimised

CLAIMS = [*construction.CLAIMS, *growth.CLAIMS, *mass.CLAIMS, *optimised.CLAIMS,
          *frontier.CLAIMS]
