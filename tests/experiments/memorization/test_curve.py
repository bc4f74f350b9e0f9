"""delta against lam, the memorization stage's figure data
(expressivity.experiments.memorization.curve)."""





import pytest
from cases import MEM_CURVE

from expressivity.experiments.memorization.curve import curve_rows


def test_curve_settings_are_checked_before_any_work():
    with pytest.raises(ValueError, match="zoom_points must be an integer >= 1"):
        curve_rows(**{**MEM_CURVE, "zoom_points": 2.5})
