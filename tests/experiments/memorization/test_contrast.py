"""Uniform averaging and hardmax against softmax on datasets with equal power sums
(expressivity.experiments.memorization.contrast)."""


import math

import pytest
from cases import MEM_HARDMAX

from expressivity.experiments.memorization.contrast import hardmax_contrast


def test_contrast_settings_are_checked_before_any_work():
    with pytest.raises(ValueError, match="lam must be a finite number > 0"):
        hardmax_contrast(**{**MEM_HARDMAX, "lam": math.inf})
    with pytest.raises(ValueError, match=r"degrees\[0\] must be an integer >= 1"):
        hardmax_contrast(**{**MEM_HARDMAX, "degrees": [0]})
