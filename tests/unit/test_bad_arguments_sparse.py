"""Bad calls to the sparse-approximation library (``attention_mass``, ``growth_models``,
``approximation_rate``, ``torch_search``, ``torch_runtime``): NaN, infinities, wrong shapes or
lengths, zero or negative counts, a bool or a float where an integer is needed, unknown models and
routes. Each must raise a ``ValueError`` whose message names the argument, never return NaN or
garbage silently nor fail with a numpy or torch error; the valid calls still work."""

import math
import re

import numpy as np
import pytest
import torch

from expressivity.approximation_check import logit_values
from expressivity.approximation_rate import (
    alternative_slopes,
    decrease_p_value,
    derived_slope,
    in_asymptotic_range,
    two_term_error,
)
from expressivity.attention_mass import factor_mass, logit_target_mass, row_mass, sample_rows
from expressivity.fixed_module import coupled_factors
from expressivity.growth_models import (
    bootstrap_errors,
    crossover,
    fit_growth,
    local_slopes,
    medians,
    predict,
    resamples_of,
    rms,
)
from expressivity.sparse_target import make_target
from expressivity.torch_runtime import resolve_device
from expressivity.torch_search import block_rows

NAN, INF = math.nan, math.inf
T = make_target("band", 40, 2, 4.0, np.random.default_rng(3))
B = logit_values(T, 1.0, 0.1)
QT, KT = coupled_factors(T, B, np.random.default_rng(4), 300)
ROWS = sample_rows(40, 7)
S = np.random.default_rng(2).normal(size=(40, 40))
N = 2.0 ** np.arange(6, 15)
D = -150 + 95 * np.log(N)
CPU = torch.device("cpu")


def _with(a: np.ndarray, index, value) -> np.ndarray:
    a = np.array(a, dtype=float)
    a[index] = value
    return a


#: (id, call, the argument the message must name)
CALLS = [
    # attention_mass
    ("sample-rows-n-zero", lambda: sample_rows(0, 5), "n"),
    ("sample-rows-n-bool", lambda: sample_rows(True, 5), "n"),
    ("sample-rows-rows-zero", lambda: sample_rows(10, 0), "rows"),
    ("sample-rows-rows-float", lambda: sample_rows(10, 2.0), "rows"),
    ("factor-mass-QT-nan", lambda: factor_mass(T, _with(QT, (0, 0), NAN), KT, 250, ROWS), "QT"),
    ("factor-mass-KT-inf", lambda: factor_mass(T, QT, _with(KT, (1, 2), INF), 250, ROWS), "KT"),
    ("factor-mass-KT-shape", lambda: factor_mass(T, QT, KT[:, :-1], 250, ROWS), "KT"),
    ("factor-mass-QT-one-axis", lambda: factor_mass(T, QT[0], KT, 250, ROWS), "QT"),
    ("factor-mass-factors-wrong-n", lambda: factor_mass(T, QT[:, :-1], KT[:, :-1], 250, ROWS),
     "QT"),
    ("factor-mass-d-zero", lambda: factor_mass(T, QT, KT, 0, ROWS), "d"),
    ("factor-mass-d-above-width", lambda: factor_mass(T, QT, KT, 301, ROWS), "d"),
    ("factor-mass-d-float", lambda: factor_mass(T, QT, KT, 250.0, ROWS), "d"),
    ("factor-mass-d-bool", lambda: factor_mass(T, QT, KT, True, ROWS), "d"),
    ("factor-mass-rows-out-of-range", lambda: factor_mass(T, QT, KT, 250, np.array([0, 40])),
     "rows"),
    ("factor-mass-rows-negative", lambda: factor_mass(T, QT, KT, 250, np.array([-1, 3])), "rows"),
    ("factor-mass-rows-empty", lambda: factor_mass(T, QT, KT, 250, np.array([], int)), "rows"),
    ("factor-mass-rows-float", lambda: factor_mass(T, QT, KT, 250, np.array([0.0, 3.0])), "rows"),
    ("factor-mass-block-zero", lambda: factor_mass(T, QT, KT, 250, ROWS, block=0), "block"),
    ("logit-target-mass-B-nan", lambda: logit_target_mass(T, _with(B, (0, 0), NAN)), "B"),
    ("logit-target-mass-B-dense", lambda: logit_target_mass(T, np.zeros((40, 40))), "B"),
    ("logit-target-mass-B-one-axis", lambda: logit_target_mass(T, B[:, 0]), "B"),
    ("row-mass-S-nan", lambda: row_mass(_with(S, (3, 4), NAN), T.cols, T.vals, T.real), "S"),
    ("row-mass-S-inf", lambda: row_mass(_with(S, (3, 4), INF), T.cols, T.vals, T.real), "S"),
    ("row-mass-S-rows", lambda: row_mass(S[:5], T.cols, T.vals, T.real), "S"),
    ("row-mass-cols-out-of-range", lambda: row_mass(S[:, :30], T.cols, T.vals, T.real), "cols"),
    ("row-mass-cols-float", lambda: row_mass(S, T.cols.astype(float), T.vals, T.real), "cols"),
    ("row-mass-vals-nan", lambda: row_mass(S, T.cols, _with(T.vals, (0, 0), NAN), T.real), "vals"),
    ("row-mass-vals-zero", lambda: row_mass(S, T.cols, _with(T.vals, (0, 0), 0), T.real), "vals"),
    ("row-mass-vals-one-axis", lambda: row_mass(S, T.cols, T.vals[:, 0], T.real), "vals"),
    ("row-mass-real-shape", lambda: row_mass(S, T.cols, T.vals, T.real[:, :1]), "real"),
    ("row-mass-real-empty-row", lambda: row_mass(S, T.cols, T.vals, _with(T.real, 0, 0) > 0),
     "real"),
    # growth_models
    ("predict-model-unknown", lambda: predict("cubic", 1.0, 1.0, N), "model"),
    ("predict-intercept-nan", lambda: predict("log", NAN, 1.0, N), "intercept"),
    ("predict-slope-inf", lambda: predict("power", 1.0, INF, N), "slope"),
    ("predict-slope-string", lambda: predict("power", 1.0, "steep", N), "slope"),
    ("predict-n-one", lambda: predict("log_power", 1.0, 1.0, 1.0), "n"),
    ("predict-n-nan", lambda: predict("log", 1.0, 1.0, _with(N, 2, NAN)), "n"),
    ("predict-n-empty", lambda: predict("log", 1.0, 1.0, []), "n"),
    ("fit-growth-model-unknown", lambda: fit_growth("cubic", N, D), "model"),
    ("fit-growth-n-nan", lambda: fit_growth("log", _with(N, 0, NAN), D), "n"),
    ("fit-growth-d-inf", lambda: fit_growth("log", N, _with(D, 0, INF)), "d"),
    ("fit-growth-d-length", lambda: fit_growth("power", N, D[:-1]), "d"),
    ("fit-growth-n-two-axes", lambda: fit_growth("power", N[None, :], D[None, :]), "n"),
    ("fit-growth-n-one", lambda: fit_growth("log_power", _with(N, 0, 1), D), "n"),
    ("fit-growth-d-zero", lambda: fit_growth("power", N, _with(D, 0, 0)), "d"),
    ("fit-growth-one-distinct-n", lambda: fit_growth("log", np.full(3, 64.0), D[:3]), "n"),
    ("medians-d-nan", lambda: medians(N, _with(D, 1, NAN), N), "d"),
    ("medians-d-length", lambda: medians(N, D[:-1], N), "d"),
    ("medians-ns-not-an-n", lambda: medians(N, D, [64.0, 100.0]), "ns"),
    ("medians-ns-scalar", lambda: medians(N, D, 64.0), "ns"),
    ("rms-nan", lambda: rms(np.array([[0.1, NAN]])), "errors"),
    ("rms-empty", lambda: rms([]), "errors"),
    ("local-slopes-one-point", lambda: local_slopes([64.0], [3.0]), "ns"),
    ("local-slopes-values-length", lambda: local_slopes(N, D[:-1]), "values"),
    ("local-slopes-values-zero", lambda: local_slopes(N, _with(D, 3, 0)), "values"),
    ("local-slopes-ns-nan", lambda: local_slopes(_with(N, 3, NAN), D), "ns"),
    ("local-slopes-ns-unsorted", lambda: local_slopes(N[::-1], D), "ns"),
    ("local-slopes-ns-repeated", lambda: local_slopes([64.0, 64.0, 128.0], [1.0, 2.0, 3.0]), "ns"),
    ("crossover-ratio-zero", lambda: crossover(N, _with(np.full(9, 2.0), 8, 0)), "ratio"),
    ("crossover-ratio-nan", lambda: crossover(N, _with(np.full(9, 2.0), 8, NAN)), "ratio"),
    ("crossover-ratio-length", lambda: crossover(N, np.full(8, 0.5)), "ratio"),
    ("crossover-ns-unsorted", lambda: crossover(N[::-1], np.full(9, 0.5)), "ns"),
    ("crossover-ns-negative", lambda: crossover(-N[::-1], np.full(9, 0.5)), "ns"),
    ("resamples-count-zero", lambda: resamples_of(N, D, np.random.default_rng(0), 0), "count"),
    ("resamples-count-float", lambda: resamples_of(N, D, np.random.default_rng(0), 5.0), "count"),
    ("resamples-d-length", lambda: resamples_of(N, D[:-1], np.random.default_rng(0), 5), "d"),
    ("resamples-d-nan", lambda: resamples_of(N, _with(D, 0, NAN), np.random.default_rng(0), 5),
     "d"),
    ("bootstrap-resamples-float", lambda: bootstrap_errors(N, D, "median",
                                                           np.random.default_rng(0), 4.0),
     "resamples"),
    # approximation_rate
    ("derived-slope-route-unknown", lambda: derived_slope("deep", 1, 2), "route"),
    ("derived-slope-p-zero", lambda: derived_slope("yun", 1, 0), "p"),
    ("derived-slope-d-zero", lambda: derived_slope("yun", 0, 2), "d"),
    ("derived-slope-p-float", lambda: derived_slope("kajitsuka_sato", 1, 2.0), "p"),
    ("derived-slope-d-bool", lambda: derived_slope("yun", True, 2), "d"),
    ("alternative-slopes-p-zero", lambda: alternative_slopes("yun", 1, 0), "p"),
    ("alternative-slopes-route-unknown", lambda: alternative_slopes("deep", 1, 1), "route"),
    ("two-term-delta-nan", lambda: two_term_error([0.1, NAN], [0.1, 0.1], [1, 1], 3, 1, 2), "delta"),
    ("two-term-delta-zero", lambda: two_term_error([0.0], [0.1], [1.0], 3, 1, 2), "delta"),
    ("two-term-delta-above-one", lambda: two_term_error(2.0, [0.1], [1.0], 3, 1, 2), "delta"),
    ("two-term-terms-short", lambda: two_term_error([0.1, 0.2], [0.1], [1.0, 1.0], 3, 1, 2),
     "distinct and repeated"),
    ("two-term-n-zero", lambda: two_term_error([0.1], [0.1], [1.0], 0, 1, 2), "n"),
    ("two-term-d-float", lambda: two_term_error([0.1], [0.1], [1.0], 3, 1.0, 2), "d"),
    ("two-term-p-zero", lambda: two_term_error([0.1], [0.1], [1.0], 3, 1, 0), "p"),
    ("in-range-delta-nan", lambda: in_asymptotic_range(NAN, 3, 1), "delta"),
    ("in-range-delta-negative", lambda: in_asymptotic_range(-0.1, 3, 1), "delta"),
    ("in-range-n-float", lambda: in_asymptotic_range(0.1, 3.0, 1), "n"),
    ("in-range-d-zero", lambda: in_asymptotic_range(0.1, 3, 0), "d"),
    ("decrease-error-nan", lambda: decrease_p_value([0.5, NAN], [0.01, 0.01]), "error"),
    ("decrease-se-inf", lambda: decrease_p_value([0.5, 0.2], [0.01, INF]), "se"),
    ("decrease-se-negative", lambda: decrease_p_value([0.5, 0.2], [0.01, -0.01]), "se"),
    ("decrease-se-length", lambda: decrease_p_value([0.5, 0.2, 0.1], [0.01, 0.01]), "se"),
    ("decrease-one-delta", lambda: decrease_p_value([0.5], [0.01]), "error"),
    ("decrease-error-two-axes", lambda: decrease_p_value([[0.5, 0.2]], [[0.01, 0.01]]), "error"),
    # torch_search, torch_runtime
    ("block-rows-n-zero", lambda: block_rows(0, 64, CPU), "n"),
    ("block-rows-block-zero", lambda: block_rows(1000, 0, CPU), "block"),
    ("block-rows-block-bool", lambda: block_rows(1000, True, CPU), "block"),
    ("block-rows-n-float", lambda: block_rows(1000.0, 64, CPU), "n"),
    ("block-rows-device-name", lambda: block_rows(1000, 64, "cpu"), "device"),
    ("resolve-device-unknown", lambda: resolve_device("tpu"), "device"),
]


@pytest.mark.parametrize("call,named", [(c, n) for _, c, n in CALLS], ids=[i for i, _, _ in CALLS])
def test_bad_call_raises_naming_the_argument(call, named):
    with pytest.raises(ValueError) as err:
        call()
    assert re.search(rf"\b{re.escape(named)}\b", str(err.value)), str(err.value)


def test_a_refused_resampling_draws_nothing():
    rng = np.random.default_rng(0)
    state = rng.bit_generator.state
    with pytest.raises(ValueError, match="count"):
        resamples_of(N, D, rng, 0)
    assert rng.bit_generator.state == state


def test_the_valid_calls_still_work():
    rows = sample_rows(np.int64(40), 7)
    assert rows.tolist() == [0, 6, 13, 20, 26, 32, 39]
    off, tv = factor_mass(T, QT, KT, np.int64(250), rows)
    ref = row_mass(QT[:250, rows].T @ KT[:250] / 250, T.cols[rows], T.vals[rows], T.real[rows])
    assert np.array_equal(off, ref[0]) and np.array_equal(tv, ref[1])
    assert logit_target_mass(T, B).shape == (40,)
    fit = fit_growth("log", N, D)
    assert np.allclose(predict("log", fit.fit.intercept, fit.fit.slope, N), D, rtol=1e-12)
    assert predict("power", 0.0, 1.0, 3.0) == pytest.approx(3.0)
    assert medians(np.repeat(N, 2), np.repeat(D, 2), N[:3]).tolist() == D[:3].tolist()
    assert rms(np.array([[3.0, 4.0]])) == pytest.approx([math.sqrt(12.5)])
    assert local_slopes(N, 40 * N**0.3)[1] == pytest.approx(np.full(8, 0.3))
    assert crossover(N, 1000 / N) == pytest.approx(1000)
    assert resamples_of(N, D, np.random.default_rng(0), 2).shape == (2, 9)
    assert derived_slope("yun", np.int64(1), 2) == 0.5 and alternative_slopes("yun", 1, 2) == [1.0]
    assert two_term_error(np.float64(0.1), [0.1], [1.0], np.int64(3), 1, 2) == pytest.approx(
        [math.sqrt(0.72 * 0.01 + 0.28)])
    assert in_asymptotic_range(np.float64(1 / 12), np.int64(3), 1)
    assert decrease_p_value([0.5, 0.2], [0.0, 0.0]) == 1.0
    assert block_rows(1000, 64, CPU) == 64 and block_rows(2**17, 64, torch.device("cuda")) == 1024
    assert resolve_device("cpu") == "cpu"
