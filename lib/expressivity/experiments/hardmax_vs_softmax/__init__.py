"""The hardmax-versus-softmax stage's jobs, one module per study, so that each job depends only on
the mathematics it uses: ``boltzmann`` (the Boltzmann operator's properties), ``theorem1``
(Kajitsuka & Sato 2024, Theorem 1) and ``bigbird`` (BigBird Proposition 1)."""
