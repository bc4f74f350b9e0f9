"""The fixed module and the heatmap example
(expressivity.experiments.sparse_approximation.construction)."""

import numpy as np
import pytest
from cases import (
    SA_EXAMPLE,
)

from expressivity.experiments.sparse_approximation.construction import example_table


def test_example_is_a_window_of_the_attention_at_d_min():
    df = example_table(**SA_EXAMPLE)
    w = SA_EXAMPLE["window"]
    assert len(df) == w * w and df["ok"].all() and (df["d"] < SA_EXAMPLE["n"]).all()
    # every row is normalised over all n keys: the window holds at most its row's mass
    rows = df.groupby("i")
    assert (rows["attention"].sum() <= 1 + 1e-12).all()
    # a band's support lies in the window but for the last row's last key
    assert np.allclose(rows["A_rownorm"].sum().iloc[:-1], 1.0)
    off_in_window = df[df["A_rownorm"] == 0].groupby("i")["attention"].sum()
    assert (off_in_window <= rows["row_off_mass"].first() + 1e-12).all()
    with pytest.raises(ValueError, match="window"):
        example_table(**{**SA_EXAMPLE, "window": SA_EXAMPLE["n"] + 1})
