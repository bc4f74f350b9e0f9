"""The memorization stage's parameter table (expressivity.experiments.memorization.parameters):
parameter counts and total bits against N, their slopes, the counting bound."""


import math

import numpy as np
import pandas as pd
import pytest

from expressivity.experiments.memorization.parameters import parameter_table


def test_parameter_table_slopes_and_bits():
    N = np.array([100, 300, 1000])
    df = pd.DataFrame({"d": 4, "V": 16, "n": 3, "N": N, "n_classes": 4, "mem_lam": 1.0,
                       "mem_digits_needed": [5, 6, 7], "digits_at_theory": 1e6,
                       "lam_theory": 1e5})
    out = parameter_table(df)
    assert (out["n_parameters"] == 5 * 4 + 2 * 3 * N).all()
    assert 0.9 < out["slope_parameters"].iloc[0] <= 1.0
    assert out["slope_parameters_se"].iloc[0] >= 0
    assert np.allclose(out["bits_at_lam_mem"], out["n_parameters"] * [5, 6, 7] * math.log2(10))
    assert np.allclose(out["label_bits"], 3 * N * 2)  # n N log2(4)
    assert out["slope_bits_lam_mem"].iloc[0] > out["slope_parameters"].iloc[0]  # digits grow
    assert np.allclose(out["optimal_order"], np.sqrt(3 * N))
    with pytest.raises(ValueError, match="lacks the column"):
        parameter_table(df.drop(columns=["n_classes"]))
