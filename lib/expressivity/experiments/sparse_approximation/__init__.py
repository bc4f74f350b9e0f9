"""The sparse-approximation stage's jobs (Likhosherstov, Choromanski & Weller 2021/2023), one module
per kind of job, so that each job depends only on the mathematics it uses:

* ``searches``: d_min of random trials (the sweep over n and k, its mass-calibrated variant, the
  tolerances varied one at a time), the construction at the JL bound, the logit error against d;
* ``construction``: one fixed module for many targets, and the heatmap example;
* ``models``: what the sweep's d_min says about the growth in n (out-of-sample model comparison,
  the ratio to the Gaussian-maximum prediction, local slopes, the crossover n*).

Each ``*_table`` function builds the table of one workflow job from the job's wildcards and its
config section (``sparse_approximation`` in ``config/*.yaml``), all by keyword, and draws its
randomness from ``rng.generator(seed, "sparse_approximation.<job>", **keys)``. A job's ``log`` (a
``logging.Logger``, or None) receives progress lines with the remaining time.
"""
