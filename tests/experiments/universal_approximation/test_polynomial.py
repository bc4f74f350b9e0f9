"""Fang et al.'s polynomial-block jobs (expressivity.experiments.universal_approximation.polynomial):
their settings are checked before any work (the rows are checked by the stage's claims tests)."""

import math

import pytest
from cases import UA_ABLATION, UA_REGRESSION, UA_STAIRCASE, UA_TRAINED

from expressivity.experiments.universal_approximation.polynomial import (
    ablation_table,
    regression_table,
    staircase_table,
    trained_degrees,
    trained_table,
)

#: The jobs' functions and the keywords ci.yaml gives them.
JOBS = {"staircase": (staircase_table, UA_STAIRCASE), "regression": (regression_table, UA_REGRESSION),
        "ablation": (ablation_table, UA_ABLATION), "trained": (trained_table, UA_TRAINED)}
CASES = [("staircase", {"d": []}, "d"), ("staircase", {"max_blocks": 0}, "max_blocks"),
         ("staircase", {"n_test": math.nan}, "n_test"), ("regression", {"sigma": math.nan}, "sigma"),
         ("regression", {"repeats": 0}, "repeats"), ("regression", {"n_train": []}, "n_train"),
         ("regression", {"degree": 1}, "degree"), ("ablation", {"variants": ["softmax"]}, "variants"),
         ("regression", {"mlp_repeats": 1000}, "mlp_repeats"),
         ("regression", {"mlp_restarts": 0}, "mlp_restarts"),
         ("regression", {"transformer_repeats": 1000}, "transformer_repeats"),
         ("regression", {"transformer_width": 2}, "transformer_width"),
         ("regression", {"transformer_lr": 0.0}, "transformer_lr"),
         ("regression", {"transformer_batch": 0}, "transformer_batch"),
         ("regression", {"transformer_window": 10**6}, "transformer_budget"),
         ("regression", {"transformer_every": 0}, "transformer_every"),
         ("ablation", {"variants": ["softmax_free", "relu"]}, "variants"),
         ("ablation", {"variants": "softmax_free"}, "variants"),
         ("ablation", {"max_degree": 0}, "max_degree"), ("ablation", {"d": [0]}, "d"),
         ("trained", {"variants": ["layernorm"]}, "variants"), ("trained", {"lr": []}, "lr"),
         ("trained", {"lr": [0.0]}, "lr"), ("trained", {"blocks": []}, "blocks"),
         ("trained", {"budget": 150}, "budget"), ("trained", {"seeds": 0}, "seeds"),
         ("trained", {"L": 7}, "L"), ("trained", {"L": 1, "first": 2, "last": 1}, "first"),
         ("trained", {"L": 1, "last": 99}, "last")]


@pytest.mark.parametrize("job, change, named", CASES,
                         ids=[f"{job}-{'-'.join(change)}" for job, change, _ in CASES])
def test_bad_settings_are_refused_naming_them(job, change, named):
    """Before any work, a ``ValueError`` (or ``TypeError``) whose message names the setting."""
    function, settings = JOBS[job]
    with pytest.raises((ValueError, TypeError)) as err:
        function(**{**settings, **change})
    assert named in str(err.value), str(err.value)


def test_staircase_rows_cover_every_dimension_blocks_and_degree():
    rows = staircase_table(**UA_STAIRCASE)
    cells = {(r["d"], r["blocks"], r["degree"]) for r in rows}
    assert len(rows) == len(cells) == len(UA_STAIRCASE["d"]) * UA_STAIRCASE["max_blocks"] \
        * UA_STAIRCASE["max_degree"]


def test_ablation_rows_cover_every_variant_dimension_blocks_and_degree():
    rows = ablation_table(**UA_ABLATION)
    cells = {(r["variant"], r["d"], r["blocks"], r["degree"]) for r in rows}
    assert len(rows) == len(cells) == len(UA_ABLATION["variants"]) * len(UA_ABLATION["d"]) \
        * UA_ABLATION["max_blocks"] * UA_ABLATION["max_degree"]


def test_ablation_variants_share_their_draws():
    """Every variant reads out the same targets on the same points: the softmax-free rows do not
    depend on which other variants run, and each row's floor is its cell's."""
    alone = ablation_table(**{**UA_ABLATION, "variants": ["softmax_free"]})
    both = [r for r in ablation_table(**UA_ABLATION) if r["variant"] == "softmax_free"]
    assert alone == both


def test_trained_degrees_reach_past_the_bound():
    """Degrees 1..L + 1 and 3^L + 1, one past the trained blocks' degree bound."""
    assert trained_degrees(1) == [1, 2, 4]
    assert trained_degrees(2) == [1, 2, 3, 10]


def test_trained_rows_carry_the_protocol_the_band_and_the_cell():
    rows = trained_table(**UA_TRAINED)
    cells = {(r["variant"], r["blocks"], r["degree"]) for r in rows}
    assert cells == {(v, L, k) for v in UA_TRAINED["variants"] for L in UA_TRAINED["blocks"]
                     for k in trained_degrees(L)}
    for row in rows:
        assert row["outcome"] in ("reached", "plateau", "budget", "diverged")
        assert row["band"] >= 0 and math.isfinite(row["log10_floor"])
        assert row["budget"] == UA_TRAINED["budget"] and row["cell_seeds"] == UA_TRAINED["seeds"]
        # the band is measured only where the fixed construction is well-conditioned
        assert math.isnan(row["fixed_gap"]) == (row["degree"] > row["blocks"] + 1)


def test_trained_jobs_concatenated_are_the_table_to_the_byte(tmp_path):
    """The jobs of runs of cells (L, first..last) of two numbers of blocks, written, read back and
    concatenated in order as the gather does, give the bytes of the table of one unsplit call: each
    cell draws its own target, points and weights, and each job measures the band on all cells."""
    import pandas as pd

    from expressivity.experiments.universal_approximation.polynomial import trained_cells
    from expressivity.io import read_table, write_table

    settings = {**UA_TRAINED, "blocks": [1, 2], "seeds": 1}
    whole, parts = tmp_path / "whole.csv", []
    write_table(pd.DataFrame(trained_table(**settings)), whole)
    for L in settings["blocks"]:
        cells = len(trained_cells(L, settings["variants"]))
        for first, last in ((0, 2), (3, cells - 1)):
            parts.append(tmp_path / f"L{L}_cells{first}-{last}.csv")
            write_table(pd.DataFrame(trained_table(**settings, L=L, first=first, last=last)),
                        parts[-1])
    gathered = tmp_path / "gathered.csv"
    write_table(pd.concat([read_table(p) for p in parts], ignore_index=True), gathered)
    assert gathered.read_bytes() == whole.read_bytes()


def test_trained_cost_of_the_jobs_sums_to_the_cost_of_all_cells():
    """``trained_cost`` is additive over cells: the jobs' predictions sum to that of one job of
    every cell of each L, and a cell of more blocks costs more."""
    import inspect

    from expressivity.experiments.universal_approximation.polynomial import trained_cells, trained_cost

    settings = {k: v for k, v in {**UA_TRAINED, "blocks": [1, 2]}.items()
                if k in inspect.signature(trained_cost).parameters}
    cells = len(trained_cells(2, UA_TRAINED["variants"]))
    whole = trained_cost(**settings, L=2, cells=cells)[0]
    assert trained_cost(**settings, L=2, cells=3)[0] + trained_cost(
        **settings, L=2, cells=cells - 3)[0] == pytest.approx(whole)
    assert trained_cost(**settings, L=1, cells=1)[0] < trained_cost(**settings, L=2, cells=1)[0]


def test_regression_cost_plans_the_transformer_arm():
    """The plan grows with the transformers' step budget and replicas (its worst case: every run
    at its budget)."""
    import inspect

    from expressivity.experiments.universal_approximation.polynomial import regression_cost

    settings = {k: UA_REGRESSION[k] for k in inspect.signature(regression_cost).parameters}
    base = regression_cost(**settings)[0]
    assert regression_cost(**{**settings, "transformer_budget": 2 * settings[
        "transformer_budget"]})[0] > base
    assert regression_cost(**{**settings, "transformer_repeats": settings[
        "transformer_repeats"] + 1})[0] > base
