"""Claims of the universal-approximation stage (Yun et al. 2020a/b; Fang et al. 2022; Kajitsuka &
Sato 2024 Prop. 1), one module per topic. Most constructions are reconstructed: see
shared/papers/yun_fang.md.

* ``contextual_mapping``: Lemma 6's selective shifts on the grid (checks);
* ``approximation``: the error against delta, its rate (a finding with its power), Lemma 7, the
  three-layer route and the depth at equal delta;
* ``sparse_patterns``: Assumption 1, connections per layer, sparse selective shifts (checks);
* ``polynomial``: Fang et al.'s polynomial blocks (checks).
"""

from expressivity.claims.universal_approximation import (
    approximation,
    contextual_mapping,
    polynomial,
    sparse_patterns,
)

CLAIMS = [*contextual_mapping.CLAIMS, *approximation.CLAIMS, *sparse_patterns.CLAIMS,
          *polynomial.CLAIMS]
