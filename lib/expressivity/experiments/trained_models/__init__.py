"""The trained-models stage's jobs: what gradient training (PyTorch) reaches on the questions the
constructions answer, one module per kind of job:

* ``memorization``: the one-layer tied rank-1 model and its control arms (uniform attention,
  hardmax trained straight-through, no attention, ``w`` fixed at the construction's projection) on
  datasets with Theorem-1-type segment pairs (Kajitsuka & Sato 2024, Sec. 6 reconstructed), and the
  heads/rank ablation;
* ``width``: the smallest FFN width training fits at each ``N`` (Cor. 1's count ``n N``);
* ``encoders``: Yun et al. 2020b's copying task with sparse patterns;
* ``papers``: the papers' own experiments: Yun et al. 2020b's sparsity sweep and STAR's relay, Yun
  et al. 2020a's hybrid curve (Sec. 5);
* ``runs``: what they share: seeds, the protocol (``expressivity.training_protocol``), rows with the
  cell's summary over seeds, progress lines;
* ``cost``: each job's predicted seconds and memory (the rules' ``runtime`` and ``mem_mb``).

Each job's function takes its wildcards (strings from Snakemake, or numbers), the root ``seed``, the
torch ``threads`` and ``device`` and the settings it uses, all by keyword; configures torch
(``expressivity.torch_runtime``); draws its randomness from ``expressivity.rng`` streams named after
the stage, the job and its wildcards (one per training seed); writes progress with the remaining
time to ``log`` (a ``logging.Logger``, or None); and returns tidy rows, one per training run, each
with its cell's verdict, mean and spread over seeds.
"""

#: The arms of the memorization experiment: (attention normaliser, heads, w fixed). Here, not in
#: ``memorization``, so that the workflow lists the arms without importing torch.
ARMS = {"softmax": ("softmax", 1, False), "fixed": ("softmax", 1, True),
        "uniform": ("uniform", 1, False), "hardmax": ("hardmax", 1, False),
        "no_attention": ("softmax", 0, False)}
