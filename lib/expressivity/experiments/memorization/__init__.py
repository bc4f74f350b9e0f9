"""The memorization stage's jobs (Kajitsuka & Sato 2024, Theorem 2 and Corollary 1;
``expressivity.rank1``), one module per kind of job, so that each job depends only on the
mathematics it uses:

* ``regimes``: regime (i), the layer at ``lam_theory`` in ball arithmetic where the digits it needs
  are within budget; regime (ii), the last crossing of the asymptotic order by search (a sufficient
  ``lam``), the certified separation just above it, the layer's two exact limits (uniform
  averaging and hardmax) and the memorizer;
* ``curve``: ``delta`` against ``lam`` on a random and on an adversarial dataset (figure data);
* ``contrast``: uniform averaging, hardmax and softmax on datasets with equal power sums
  (``expressivity.equal_power_sums``), where the first two provably fail;
* ``parameters``: parameter counts and total bits against ``N``;
* ``cost``: the predicted seconds and memory of each job (the rules' ``runtime`` and ``mem_mb``)
  and the progress lines that use them.

Each job's function takes the job's wildcards and config section by keyword and draws its
randomness from ``rng.generator(seed, "memorization.<job>", **keys)``. A job's ``log`` (a
``logging.Logger``, or None) receives progress lines with the remaining time.
"""
