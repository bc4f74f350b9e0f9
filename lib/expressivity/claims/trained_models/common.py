"""What the trained-models claims share: the papers, the protocol every training claim is judged
under (its control), and readers of the stage's tables."""

from __future__ import annotations

import math
from collections.abc import Mapping

import pandas as pd

from expressivity.claims import Measurement, not_evaluated
from expressivity.training_protocol import EXISTS, NONE_EXISTS

KS = "Kajitsuka & Sato 2024"
YB = "Yun et al. 2020b"
YA = "Yun et al. 2020a"
PROTOCOL = ("another seed and a longer run: every cell runs several seeds, and no run is called a "
            "plateau before its learning rate decayed and it stalled over a second window; a cell "
            "with a run at its budget is not evaluated")
#: Replicates of every power simulation of the stage (vectorised: milliseconds each).
REPLICATES = 2000


def existence_value(existence: str) -> float:
    """1 when some run reached the target, 0 when none did (every run decided), NaN otherwise."""
    return {EXISTS: 1.0, NONE_EXISTS: 0.0}.get(existence, math.nan)


def existence(cell: Mapping, note: str) -> Measurement:
    """An existence claim's measurement of ``cell`` (a cell's row): ``existence_value``, censored
    when no run reached the target and some run stopped at its budget."""
    value = existence_value(cell["cell_existence"])
    if math.isnan(value):
        return not_evaluated("censored", note + "; none reached the target and a run stopped at "
                             "its budget", str(cell["precision"]))
    return Measurement(value, str(cell["precision"]), note)


def cells(df: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """One row per cell (its first run row: the ``cell_*`` columns are the cell's)."""
    return df.groupby(keys, sort=False, as_index=False).first()


def precision(df: pd.DataFrame) -> str:
    return str(df["precision"].iloc[0]) if len(df) else "float32"
