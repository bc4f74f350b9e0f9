"""Kajitsuka & Sato Sec. 6 (reconstructed): one variant of the one-layer memorization experiment."""

import sys

import pandas as pd

from expressivity.experiments.trained_models import memorization_rows
from expressivity.io import write_table
from expressivity.joblog import job_log

log = job_log(snakemake)
curve, summary = memorization_rows(**snakemake.wildcards, **snakemake.params, log=sys.stderr)
write_table(pd.DataFrame(curve), snakemake.output.curve)
write_table(pd.DataFrame(summary), snakemake.output.summary)
