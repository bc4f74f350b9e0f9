"""The one-layer memorizer (Kajitsuka & Sato Cor. 1), the parameter and total-bits table, and the
stage's cost model."""

import logging
import math

import numpy as np
import pandas as pd
import pytest
from cases import MEM_CURVE, MEM_HARDMAX, MEM_SEARCH

from expressivity.datasets import token_separated_dataset
from expressivity.experiments.memorization.contrast import hardmax_contrast
from expressivity.experiments.memorization.cost import (
    progress_tracker,
    search_cost,
    theory_cost,
)
from expressivity.experiments.memorization.curve import curve_rows
from expressivity.experiments.memorization.parameters import parameter_table
from expressivity.experiments.memorization.regimes import search_rows
from expressivity.parameter_count import construction_parameters
from expressivity.rank1.contexts import contexts
from expressivity.rank1.layer import FLOAT64_DIGITS, Rank1Layer, lam_theory
from expressivity.rank1.memorizer import memorize
from expressivity.rank1.projection import draw_projection
from expressivity.rank1.separation import separation_certified


def small(seed=0, V=4, d=2, n=2):
    rng = np.random.default_rng(seed)
    ds = token_separated_dataset(rng, V, d, n, math.comb(V, n), 3, eps=1.0)
    v, _, _ = draw_projection(rng, ds.vocab)
    return ds, v


def test_memorizer_at_lam_theory_reproduces_every_label():
    ds, v = small()
    lt = lam_theory(ds.n, ds.d, ds.vocab_size, ds.eps, ds.r_min)
    cx = contexts(ds, v)
    need = separation_certified(ds, cx, Rank1Layer.for_dataset(ds, v, lt)).digits_needed
    res = memorize(ds, v, lt, int(need))
    assert res.n_correct == res.n_points == ds.N * ds.n
    assert res.lam == lt and res.digits_needed == int(need)
    assert res.n_parameters == 5 * ds.d + 2 * ds.N * ds.n
    assert res.n_parameters == construction_parameters(ds.N, ds.n, ds.d)["total"]
    assert res.log10_min_feature_gap < -FLOAT64_DIGITS  # needs far more than float64
    # the error is kept as its log10 (far below float64's smallest double), never rounded to 0
    assert res.log10_max_abs_error < -400 or res.log10_max_abs_error == -math.inf


def test_memorizer_at_float64_precision_fails():
    """Built to fail: at lam_theory the features are closer than 16 digits resolve."""
    ds, v = small()
    lt = lam_theory(ds.n, ds.d, ds.vocab_size, ds.eps, ds.r_min)
    with pytest.raises(ValueError, match="not certified distinct"):
        memorize(ds, v, lt, digits_needed=16 - 40 + 1, guard=40)
    with pytest.raises(ValueError, match="lam must be a finite number >= 0"):
        memorize(ds, v, -1.0, 10)


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


def test_cost_model_grows_with_the_work_and_flags_absurd_configs():
    small_job = search_cost(V=16, d=4, n=[3], N=[30], n_grid=64)
    big_job = search_cost(V=16, d=4, n=[6], N=[1000], n_grid=64)
    assert big_job[0] > 10 * small_job[0] and big_job[1] > small_job[1]
    # N above C(|V|, n) is skipped by the job, so it costs nothing
    assert search_cost(V=4, d=2, n=[3], N=[30], n_grid=64)[0] == 0
    huge = search_cost(V=4096, d=256, n=[64], N=[100000], n_grid=4096)
    assert huge[0] > 86400 and huge[1] > 2**40  # more than a day and a TiB: visible in the plan
    near = dict(V=6, d=3, n=[3], N_max=1000, r_min=1.0, r_max=2.0, eps=1.0)
    assert theory_cost(**near, max_digits=60000)[0] > theory_cost(**near, max_digits=100)[0]
    with pytest.raises(ValueError, match="n_grid must be an integer >= 1"):
        search_cost(V=16, d=4, n=[3], N=[30], n_grid=0)


def test_progress_lines_have_the_remaining_time(caplog):
    log = logging.getLogger("test_memorizer")
    done = progress_tracker(log, "work", [1.0, 1.0, 2.0])
    with caplog.at_level(logging.INFO, logger="test_memorizer"):
        for i in range(3):
            done(i, n=i)
    assert caplog.records and all("remaining" in r.getMessage() for r in caplog.records)
    assert "4/4 (100%)" in caplog.records[-1].getMessage()
    progress_tracker(None, "work", [1.0])(0)  # no log: silent


def test_job_settings_are_checked_before_any_work():
    with pytest.raises(ValueError, match="eps must be a finite number > 0"):
        search_rows(d=4, V=16, **{**MEM_SEARCH, "eps": math.nan})
    with pytest.raises(ValueError, match="margin must be a number in"):
        search_rows(d=4, V=16, **{**MEM_SEARCH, "margin": 2.0})
    with pytest.raises(ValueError, match="zoom_points must be an integer >= 1"):
        curve_rows(**{**MEM_CURVE, "zoom_points": 2.5})
    with pytest.raises(ValueError, match="lam must be a finite number > 0"):
        hardmax_contrast(**{**MEM_HARDMAX, "lam": math.inf})
    with pytest.raises(ValueError, match=r"degrees\[0\] must be an integer >= 1"):
        hardmax_contrast(**{**MEM_HARDMAX, "degrees": [0]})
