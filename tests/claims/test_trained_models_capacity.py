"""The capacity claims (claims/trained_models/capacity.py): pass, contradicted and missing-evidence
cases on synthetic capacity tables."""

import math

import pandas as pd

from expressivity.claims.trained_models.capacity import CLAIMS, width_bounds

BY_ID = {c.id.split(".", 1)[1]: c for c in CLAIMS}


def _cell(arm, N, a, q, existence, accuracy=0.9, token_ceiling=0.9, pairs=2, conflicts=4):
    outcome = {"yes": "reached", "no": "plateau", "not evaluated": "budget"}[existence]
    return [{"arm": arm, "N": N, "a": a, "q": q, "n": 8, "seed_index": i, "lr": 0.1,
             "cell_lr": 0.1, "outcome": outcome, "cell_existence": existence,
             "accuracy": 1.0 if existence == "yes" else accuracy, "token_ceiling": token_ceiling,
             "set_ceiling": 1.0, "pairs": pairs, "conflicts": conflicts if pairs else 0,
             "blind_ceiling": 1 - conflicts / (8 * N) if pairs else math.nan,
             "precision": "float32"} for i in range(2)]


def _table(cells):
    return {"capacity": pd.DataFrame([row for c in cells for row in _cell(*c)])}


def _grid(arm, N, a, first_yes, widths=(8, 32, 128)):
    """``arm`` at every width: "no" below ``first_yes``, "yes" from it (None: never)."""
    return [(arm, N, a, q, "yes" if first_yes is not None and q >= first_yes else "no")
            for q in widths]


def test_width_bounds():
    df = _table(_grid("sgd", 16, 0.2, 32))["capacity"]
    assert width_bounds(df) == (32.0, 32.0)
    assert width_bounds(_table(_grid("sgd", 16, 0.2, 8))["capacity"]) == (0.0, 8.0)
    assert width_bounds(_table(_grid("sgd", 16, 0.2, None))["capacity"]) == (128.0, math.inf)
    open_cell = _table([("sgd", 16, 0.2, 8, "no"), ("sgd", 16, 0.2, 32, "not evaluated"),
                        ("sgd", 16, 0.2, 128, "yes")])["capacity"]
    assert width_bounds(open_cell) == (32.0, 128.0)


def test_rank1_reaches_pass_fail_censored():
    claim = BY_ID["capacity_rank1_reaches"]
    ok = _grid("sgd", 16, 0.2, 32) + _grid("sgd", 64, 0.2, 128)
    assert claim.judge(_table(ok))["status"] == "pass"
    assert claim.judge(_table(_grid("sgd", 16, 0.2, 32) + _grid("sgd", 64, 0.2, None)))[
        "status"] == "fail"
    censored = _grid("sgd", 16, 0.2, 32) + [("sgd", 64, 0.2, 8, "not evaluated")]
    row = claim.judge(_table(censored))
    assert row["status"] == "not evaluated" and row["reason"] == "censored"
    row = claim.judge(_table(_grid("adam", 16, 0.2, 8)))
    assert row["status"] == "not evaluated" and row["reason"] == "no items"


def test_beats_token_only_pass_fail_missing():
    claim = BY_ID["capacity_beats_token_only"]
    assert claim.judge(_table([("sgd", 16, 0.2, 8, "yes")]))["status"] == "pass"
    stuck = [("sgd", 16, 0.2, 8, "no", 0.9, 0.9)]
    assert claim.judge(_table(stuck))["status"] == "fail"
    row = claim.judge(_table([("sgd", 16, 0.0, 8, "yes", 1.0, 1.0)]))
    assert row["status"] == "not evaluated" and row["reason"] == "no items"


def test_softmax_needed_against_the_blind_ceiling():
    """N = 16, n = 8, 4 conflicts: the blind ceiling is 124 / 128; accuracies in tokens."""
    claim = BY_ID["capacity_softmax_needed"]
    ceiling = 124 / 128
    credited = [("sgd", 16, 0.2, 64, "no", 125 / 128), ("uniform", 16, 0.2, 64, "no", ceiling)]
    row = claim.judge(_table(credited))
    assert row["status"] == "pass" and "best softmax +1 tokens" in row["note"]
    at_ceiling = [("sgd", 16, 0.2, 64, "no", ceiling), ("uniform", 16, 0.2, 64, "no", ceiling)]
    assert claim.judge(_table(at_ceiling))["status"] == "fail"
    # a uniform run above a bound no uniform layer exceeds: that dataset credits nothing
    uniform_above = [("sgd", 16, 0.2, 64, "yes"), ("uniform", 16, 0.2, 64, "no", 125 / 128)]
    row = claim.judge(_table(uniform_above))
    assert row["status"] == "fail" and "rounding?" in row["note"]
    # float rounding of an accuracy at the ceiling is not a token above it
    rounded = [("sgd", 16, 0.2, 64, "no", ceiling + 1e-9), ("uniform", 16, 0.2, 64, "no", 0.5)]
    assert claim.judge(_table(rounded))["status"] == "fail"
    open_cell = [("sgd", 16, 0.2, 64, "not evaluated", ceiling),
                 ("uniform", 16, 0.2, 64, "no", ceiling)]
    row = claim.judge(_table(open_cell))
    assert row["status"] == "not evaluated" and row["reason"] == "censored"
    row = claim.judge(_table([("sgd", 16, 0.2, 64, "yes")]))
    assert row["status"] == "not evaluated" and row["reason"] == "no items"


def test_softmax_needed_without_pairs_is_not_evaluated():
    """No segment pairs: uniform attention may memorize too, so even softmax at 100 % with uniform
    below it credits nothing (never a pass)."""
    claim = BY_ID["capacity_softmax_needed"]
    no_pairs = [("sgd", 16, 0.2, 64, "yes", 1.0, 0.9, 0), ("uniform", 16, 0.2, 64, "no", 0.5, 0.9, 0)]
    row = claim.judge(_table(no_pairs))
    assert row["status"] == "not evaluated" and row["reason"] == "no items"
    assert "no segment pairs" in row["note"] and "cannot credit softmax" in row["note"]


def test_follows_ambiguity_pass_fail_censored():
    claim = BY_ID["capacity_follows_ambiguity"]
    widths = (8, 16, 32, 64, 128)
    follows = _grid("sgd", 16, 0.05, 16, widths) + _grid("sgd", 16, 0.2, 64, widths)
    assert claim.judge(_table(follows))["status"] == "pass"
    flat = _grid("sgd", 16, 0.05, 32, widths) + _grid("sgd", 16, 0.2, 32, widths)
    assert claim.judge(_table(flat))["status"] == "fail"
    both_first = _grid("sgd", 16, 0.05, 8, widths) + _grid("sgd", 16, 0.2, 8, widths)
    row = claim.judge(_table(both_first))
    assert row["status"] == "not evaluated" and row["reason"] == "censored"
    row = claim.judge(_table(_grid("sgd", 16, 0.2, 8, widths)))
    assert row["status"] == "not evaluated" and row["reason"] == "no items"


def test_slope_needs_three_N_then_judges():
    claim = BY_ID["capacity_slope"]
    widths = (8, 16, 32, 64, 128, 256)
    two = _grid("sgd", 16, 0.2, 16, widths) + _grid("sgd", 32, 0.2, 32, widths)
    row = claim.judge(_table(two))
    assert row["status"] == "not evaluated" and row["reason"] == "paper config"
    linear = two + _grid("sgd", 64, 0.2, 64, widths)
    assert claim.judge(_table(linear))["status"] == "pass"
    quadratic = (_grid("sgd", 16, 0.2, 16, widths) + _grid("sgd", 32, 0.2, 64, widths)
                 + _grid("sgd", 64, 0.2, 256, widths))
    assert claim.judge(_table(quadratic))["status"] == "fail"
