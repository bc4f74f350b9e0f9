"""Unit tests: the growth models of d_min in n, their out-of-sample errors, local slopes and n*."""

import math

import numpy as np
import pytest

from expressivity.growth_models import (
    bootstrap_errors,
    crossover,
    fit_growth,
    local_slopes,
    prediction_errors,
    split,
)

N = 2 ** np.arange(6, 15)
LAWS = {"log": lambda n: -150 + 95 * np.log(n), "power": lambda n: 40 * n**0.3,
        "log_power": lambda n: 20 * np.log(n) ** 1.6}


@pytest.mark.parametrize("model", sorted(LAWS))
def test_each_model_recovers_its_own_law_and_predicts_it_exactly(model):
    law = LAWS[model]
    assert np.allclose(fit_growth(model, N, law(N)).predict(N), law(N), rtol=1e-10)
    errors = prediction_errors(np.repeat(N, 3), np.repeat(law(N), 3), "all")
    assert np.abs(errors[model]).max() < 1e-10
    others = [m for m in errors if m != model]
    assert all(np.abs(errors[m]).max() > 0.005 for m in others)


def test_a_power_law_is_overshot_by_nothing_and_undershot_by_the_log_model():
    """Fitted to the lower half of a power law, a + b ln n falls short at the upper n (negative
    errors growing with n): the out-of-sample test can fail for a power law."""
    errors = prediction_errors(N, LAWS["power"](N), "median")
    assert (errors["log"] < -0.05).all() and (np.diff(errors["log"]) < 0).all()
    lower, upper = split(N)
    assert list(lower) == list(N[:5]) and list(upper) == list(N[5:])


def test_bootstrap_resamples_trials_within_each_n():
    rng = np.random.default_rng(0)
    n = np.repeat(N, 6)
    d = LAWS["log"](n) * rng.uniform(0.9, 1.1, n.size)
    boot = bootstrap_errors(n, d, "median", np.random.default_rng(1), 50)
    assert boot["log"].shape == (50, len(N) - 5)
    # resampling changes the medians, so the errors spread, centred near the point estimate
    point = prediction_errors(n, d, "median")["log"]
    assert boot["log"].std(axis=0).min() > 0
    assert np.abs(np.median(boot["log"], axis=0) - point).max() < 0.1


@pytest.mark.parametrize("fit_on", ["median", "all"])
def test_bootstrap_fits_are_the_point_fits_when_resampling_changes_nothing(fit_on):
    """One trial per n: every resample is the data itself, so the vectorised fits must give the
    errors of ``prediction_errors`` (expressivity.fit.line_fit) exactly."""
    d = LAWS["log"](N) * np.random.default_rng(2).uniform(0.9, 1.1, N.size)
    boot = bootstrap_errors(N, d, fit_on, np.random.default_rng(3), 4)
    point = prediction_errors(N, d, fit_on)
    for m, errors in point.items():
        assert np.allclose(boot[m], errors[None, :], rtol=0, atol=1e-12)


def test_local_slopes_and_crossover():
    mid, slope = local_slopes(N, LAWS["power"](N))
    assert np.allclose(slope, 0.3) and np.allclose(mid, np.sqrt(N[1:] * N[:-1]))
    _, slope = local_slopes(N, LAWS["log"](N))
    assert (np.diff(slope) < 0).all()  # a + b ln n: b / (a + b ln n) falls
    ratio = 1000 / N.astype(float)  # d = 1000 everywhere: below n from n = 1000 on
    assert crossover(N, ratio) == pytest.approx(1000)
    assert crossover(N, np.full(len(N), 0.5)) == N[0]
    assert math.isnan(crossover(N, np.full(len(N), 2.0)))


@pytest.mark.parametrize(("call", "message"), [
    (lambda: fit_growth("cubic", N, N), "unknown model"),
    (lambda: fit_growth("log", N, -N), "d > 0"),
    (lambda: split([64, 128, 256]), "at least 4"),
    (lambda: prediction_errors(N, N, "mean"), "fit_on"),
])
def test_growth_models_refuse_bad_arguments(call, message):
    with pytest.raises(ValueError, match=message):
        call()
