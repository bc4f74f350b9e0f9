"""Lemma 6 (Yun et al. 2020a) on every grid input of one (1/delta, d, n): summary + softmax curve."""

import pandas as pd

from expressivity.experiments.universal_approximation.lemma6 import LEMMA6_SOFTMAX_COLUMNS, lemma6_check
from expressivity.io import write_table
from expressivity.joblog import job_log

log = job_log(snakemake)
row, curve = lemma6_check(**{k: int(snakemake.wildcards[k]) for k in ("m", "d", "n")},
                          **dict(snakemake.params.items()), log=log)
write_table(pd.DataFrame([row]), snakemake.output.summary)
write_table(pd.DataFrame(curve, columns=LEMMA6_SOFTMAX_COLUMNS), snakemake.output.softmax)
log.info("%d inputs; softmax at the derived beta %.4g: max error %.3g of the margin %.3g",
         row["inputs"], row["beta_derived"], row["error_at_derived"], row["margin"])
