"""Claims of the trained-models stage: what gradient training reaches (PyTorch).

Every training claim is judged under one protocol (``expressivity.training_protocol``: early
stopping at the target, one learning-rate decay and a second window before a run is a plateau, a
budget) and by its paper's quantifier (the ``quantifier`` column):

- ``existence``: the theorems say weights exist (Kajitsuka & Sato Thm 2, Cor. 1); training shows
  it when some seed at some learning rate reaches the target. A cell measures 1 when some run
  reached it, 0 when every run plateaued after its decay, NaN (not evaluated) when none reached it
  and a run stopped at its budget. The reliability (the fraction of seeds that reach it, with its
  95 % Wilson interval) is reported beside it, never folded into the verdict;
- ``mean``: the papers' statistic, the average over runs (Yun et al. "average of three runs"): the
  mean final accuracy over the seeds of a cell against the target, decided only when no seed
  stopped at its budget (a run still rising could move the mean);
- ``cannot``: where a capacity argument backs it (the exact ceilings of uniform attention, hardmax
  and token-wise maps), no seed and learning rate exceeds the bound, every run plateauing after its
  decay.

A plateau shows what the protocol reached, never that weights do not exist; the ceilings are exact.

One module per topic:

* ``memorization``: the memorization arms, their exact ceilings and the heads/rank ablation;
* ``width``: the smallest width training fits against the construction's n N;
* ``copying``: sparse patterns on the copying task;
* ``papers``: the papers' own experiments (Yun et al. 2020b's copy table across depth, sparsity
  sweep and STAR's relay; Yun et al. 2020a's hybrid curve);
* ``capacity``: Kajitsuka & Sato 2024's memorization at CoNLL shape (capacity of the rank-1 model).
"""

from expressivity.claims.trained_models import capacity, copying, memorization, papers, width

CLAIMS = [*memorization.CLAIMS, *width.CLAIMS, *copying.CLAIMS, *papers.CLAIMS, *capacity.CLAIMS]
