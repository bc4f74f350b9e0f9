"""Line fits: exact on exact lines, standard errors that cover the truth, bad input named."""

import numpy as np
import pytest

from expressivity.fit import line_fit, loglog_fit


def test_exact_line_and_power_law():
    x = np.arange(1.0, 9.0)
    fit = line_fit(x, 3.0 - 2.0 * x)
    assert fit.slope == pytest.approx(-2.0) and fit.intercept == pytest.approx(3.0)
    assert fit.r2 == pytest.approx(1.0) and fit.slope_se == pytest.approx(0.0, abs=1e-12)
    assert loglog_fit(x, 5 * x**1.5).slope == pytest.approx(1.5)


def test_slope_interval_covers_the_true_slope_about_95_percent_of_the_time():
    rng = np.random.default_rng(0)
    x = np.linspace(0, 1, 20)
    covered = 0
    for _ in range(400):
        lo, hi = line_fit(x, 1 + 0.5 * x + rng.normal(0, 0.3, x.size)).slope_interval()
        covered += lo <= 0.5 <= hi
    assert 0.91 <= covered / 400 <= 0.99  # binomial spread of 400 draws at p = 0.95: sd 0.011


@pytest.mark.parametrize("x, y, message", [
    ([1, 1, 1], [1, 2, 3], "two distinct x"),
    ([1, 2, np.nan], [1, 2, 3], "finite"),
    ([1, 2], [1, 2, 3], "one length"),
])
def test_bad_input_is_named(x, y, message):
    with pytest.raises(ValueError, match=message):
        line_fit(x, y)


def test_loglog_refuses_non_positive_values():
    with pytest.raises(ValueError, match="positive"):
        loglog_fit([1, 2, 3], [1, 0, 2])
