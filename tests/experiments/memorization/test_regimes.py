"""Regimes (i) and (ii) of the memorization stage
(expressivity.experiments.memorization.regimes)."""


import math

import pytest
from cases import MEM_SEARCH

from expressivity.experiments.memorization.regimes import search_rows


def test_search_settings_are_checked_before_any_work():
    with pytest.raises(ValueError, match="eps must be a finite number > 0"):
        search_rows(d=4, V=16, **{**MEM_SEARCH, "eps": math.nan})
    with pytest.raises(ValueError, match="margin must be a number in"):
        search_rows(d=4, V=16, **{**MEM_SEARCH, "margin": 2.0})
