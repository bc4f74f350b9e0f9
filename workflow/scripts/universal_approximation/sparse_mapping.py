"""The sparse selective-shift contextual mapping of every pattern, exhaustively on small grids."""

import pandas as pd

from expressivity.contextual_shift import sparse_mapping_check
from expressivity.io import write_table
from expressivity.rng import generator
from expressivity.sparse_patterns import assumption1, pattern_masks

rows = []
for name in snakemake.params.names:
    for m, d, n in snakemake.params.grids:
        rng = generator(snakemake.params.seed, "universal_approximation.sparse_mapping",
                        pattern=name, n=n)
        masks = pattern_masks(name, n, rng=rng)
        if not assumption1(masks)["satisfied"]:
            rows.append({"pattern": name, "inv_delta": m, "d": d, "n": n,
                         "shift": "not run: Assumption 1 fails", "inputs": m ** (n * d)})
            continue
        rows += sparse_mapping_check(name, masks, m, d, n)
write_table(pd.DataFrame(rows), snakemake.output[0])
