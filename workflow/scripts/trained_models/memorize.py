"""Kajitsuka & Sato Sec. 6 (reconstructed): one arm of the memorization experiment on segment pairs
(or, with the causal param, a masked arm on prefix segment pairs)."""

import pandas as pd

from expressivity.experiments.trained_models.memorization import memorization_rows
from expressivity.io import write_table
from expressivity.joblog import job_log

log = job_log(snakemake)
curve, runs = memorization_rows(**snakemake.wildcards, **snakemake.params, log=log)
write_table(pd.DataFrame(curve), snakemake.output.curve)
write_table(pd.DataFrame(runs), snakemake.output.runs)
