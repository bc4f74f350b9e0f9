"""Gather the stage claims tables into results/claims.csv (one row per registered claim) and their
power tables into results/claims/power.csv (one row per simulated alternative)."""

from pathlib import Path

import pandas as pd

from expressivity.claims import POWER_COLUMNS, registry, statistical_findings, summary_line
from expressivity.io import read_table, write_table
from expressivity.joblog import job_log

log = job_log(snakemake)


def read_power(path: str) -> pd.DataFrame:
    """A stage's power table; a stage without statistical findings writes its header alone, which
    read_table refuses as empty."""
    if Path(path).read_text().count("\n") == 1:
        return pd.DataFrame(columns=POWER_COLUMNS)
    return read_table(path, POWER_COLUMNS)


table = pd.concat([read_table(p, ["id", "status"]) for p in snakemake.input.stages], ignore_index=True)
registered = [claim.id for claim in registry()]
if list(table["id"]) != registered:
    missing = sorted(set(registered) - set(table["id"]))
    extra = sorted(set(table["id"]) - set(registered))
    raise ValueError(f"the stage claims tables hold {len(table)} rows for {len(registered)} "
                     f"registered claims (missing: {missing}; not registered or repeated: {extra})")
parts = [read_power(p) for p in snakemake.input.power]
power = pd.concat([p for p in parts if len(p)] or parts[:1], ignore_index=True)
unpowered = sorted(set(statistical_findings()) - set(power["claim"]))
if unpowered:
    log.info(f"statistical findings without a power row (their tables held too little to "
             f"simulate; not evaluated): {', '.join(unpowered)}")
write_table(table, snakemake.output.claims)
write_table(power, snakemake.output.power)
log.info(summary_line(table))
