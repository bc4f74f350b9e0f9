"""The capacity jobs (expressivity.experiments.trained_models.capacity) on config/ci.yaml's case:
every row carries its dataset's segment pairs, their conflicts and the exact blind ceiling (NaN
without pairs), and the same wildcards give the same rows."""

import math

import numpy as np
from cases import TM_CAPACITY, TM_CAPACITY_A, TM_CAPACITY_N, TM_SHORT

from expressivity.accuracy_ceilings import blind_ceiling
from expressivity.conll_like import segment_pair_rows
from expressivity.experiments.trained_models.capacity import (
    _attention_columns,
    capacity_dataset,
    capacity_rows,
    pair_columns,
)

DATA = {k: TM_CAPACITY[k] for k in ("seed", "V", "d", "n", "p_outside", "zipf")}


def test_rows_carry_the_blind_ceiling_of_their_pairs():
    assert TM_CAPACITY["pairs"] > 0  # ci.yaml embeds pairs: the softmax credit is decided there
    job = {**TM_CAPACITY, **TM_SHORT}
    N, a = TM_CAPACITY_N[0], TM_CAPACITY_A[0]
    rows = capacity_rows(arm="uniform", N=str(N), a=str(a), **job)
    assert rows == capacity_rows(arm="uniform", N=N, a=a, **job)
    ds = capacity_dataset(N=N, a=a, pairs=job["pairs"], **DATA)
    ceiling = blind_ceiling(ds, segment_pair_rows(N, job["pairs"]))
    assert all(r["pairs"] == job["pairs"] and r["conflicts"] >= job["pairs"]
               and r["blind_ceiling"] == ceiling == 1 - r["conflicts"] / (N * r["n"]) < 1
               and r["accuracy"] <= ceiling + 1 / (2 * N * r["n"]) for r in rows)


def test_no_pairs_leave_the_blind_ceiling_empty():
    N, a = TM_CAPACITY_N[0], TM_CAPACITY_A[0]
    ds = capacity_dataset(N=N, a=a, pairs=0, **DATA)
    cols = pair_columns(ds, 0)
    assert cols["pairs"] == cols["conflicts"] == 0 and math.isnan(cols["blind_ceiling"])
    paired = capacity_dataset(N=N, a=a, pairs=TM_CAPACITY["pairs"], **DATA)
    assert not np.array_equal(ds.vocab, paired.vocab[: len(ds.vocab)])  # rounded to the grid


def test_a_diverged_run_has_no_separation():
    """A run whose temperature overflowed (lam NaN or inf, its weights finite) diverged: it has no
    contexts to separate, so its separation is NaN, not an error (seen on an AVX-512 CPU, where
    an SGD seed of the default capacity grid diverged)."""
    N, a = TM_CAPACITY_N[0], TM_CAPACITY_A[0]
    ds = capacity_dataset(N=N, a=a, pairs=TM_CAPACITY["pairs"], **DATA)
    w = np.ones((1, ds.d, 1))
    finite = _attention_columns(ds, w, np.array([1.0]), "softmax", 1)
    assert math.isfinite(finite["separation"])
    for lam in (math.nan, math.inf):
        cols = _attention_columns(ds, w, np.array([lam]), "softmax", 1)
        assert math.isnan(cols["separation"]) and math.isnan(cols["separation_log10"])
        assert not cols["separation_collapsed"]


def test_a_grid_of_learning_rates_trains_side_by_side_each_rate_as_alone():
    """Every (width, rate, seed) has one row; the rates of a grid train side by side on one
    minibatch order, so a rate's runs are those it has alone (to rounding)."""
    job = {**TM_CAPACITY, **TM_SHORT, "seeds": 2}
    N, a = TM_CAPACITY_N[0], TM_CAPACITY_A[0]
    grid = capacity_rows(arm="sgd", N=N, a=a, **{**job, "lr": [0.05, 0.2]})
    alone = capacity_rows(arm="sgd", N=N, a=a, **{**job, "lr": [0.2]})
    widths = job["widths"]
    assert [(r["q"], r["lr"], r["seed_index"]) for r in grid] == [
        (q, lr, k) for q in widths for lr in (0.05, 0.2) for k in range(2)]
    side = [r for r in grid if r["lr"] == 0.2]
    assert [r["outcome"] for r in side] == [r["outcome"] for r in alone]
    np.testing.assert_allclose([r["loss"] for r in side], [r["loss"] for r in alone], rtol=1e-4)


def test_widths_side_by_side_give_each_width_its_cell():
    """Side by side or one after another, every (width, rate, seed) has one row with its own
    width's parameter count; the narrowest width keeps its order of the sentences, so its runs
    are those it has alone (to rounding: the padded products sum in another order)."""
    job = {**TM_CAPACITY, **TM_SHORT, "seeds": 2}
    N, a = TM_CAPACITY_N[0], TM_CAPACITY_A[0]
    side, apart = (capacity_rows(arm="sgd", N=N, a=a, **{**job, "widths_side_by_side": s})
                   for s in (True, False))
    keys = [(r["q"], r["lr"], r["seed_index"], r["ffn_parameters"]) for r in side]
    assert keys == [(r["q"], r["lr"], r["seed_index"], r["ffn_parameters"]) for r in apart]
    assert len({r["ffn_parameters"] for r in side}) == len(job["widths"])
    narrowest = min(job["widths"])
    side_q, apart_q = ([r for r in rows if r["q"] == narrowest] for rows in (side, apart))
    assert [r["outcome"] for r in side_q] == [r["outcome"] for r in apart_q]
    np.testing.assert_allclose([r["loss"] for r in side_q], [r["loss"] for r in apart_q],
                               rtol=1e-4)
