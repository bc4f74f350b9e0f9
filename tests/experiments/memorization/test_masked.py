"""Job mem_masked (expressivity.experiments.memorization.masked) on config/ci.yaml's settings: the
rows of both parts, the exact collisions on prefix segment pairs, same seed same rows, and bad
settings refused by name before any work."""

import math

import numpy as np
import pytest
from cases import MEM_MASKED

from expressivity.experiments.memorization.cost import masked_cost
from expressivity.experiments.memorization.masked import masked_rows


@pytest.fixture(scope="module")
def rows():
    return masked_rows(**MEM_MASKED)


def test_both_parts_and_their_verdicts(rows):
    rnd = [r for r in rows if r["part"] == "random"]
    adv = [r for r in rows if r["part"] == "adversarial"]
    assert {r["lam_kind"] for r in rnd} == {"theory", "fixed"}
    assert len(adv) == MEM_MASKED["draws"] * len(MEM_MASKED["pair_d"])
    for r in rnd:
        assert r["softmax_certified"] and np.isfinite(r["softmax_log10_delta"])
        assert r["softmax_max_norm"] <= r["r_bound"]
        if r["lam_kind"] == "theory":  # every ordered sequence; far below float64, above eq. (8)
            assert r["N"] == math.perm(r["V"], r["n"])
            assert r["log10_delta_theory"] <= r["softmax_log10_delta"] < -100
    for r in adv:
        assert r["positions"] == MEM_MASKED["pair_n"] - 3
        assert r["uniform_equal_positions"] == r["hardmax_equal_positions"] == r["positions"]
        assert r["uniform_equal_from_p"] == r["positions"] + 1
        assert r["hardmax_collisions"] >= r["positions"] and r["conflicting_labels"] >= 1
        assert r["softmax_certified"] and r["softmax_theory_certified"]
        assert r["prefix_blind_ceiling"] == 1 - r["conflicting_labels"] / (2 * r["n"]) < 1


def test_same_seed_same_rows(rows):
    again = masked_rows(**MEM_MASKED)
    assert [sorted(r.items()) for r in again] == [sorted(r.items()) for r in rows]


@pytest.mark.parametrize("key,value", [("pair_n", 3), ("draws", 0), ("N_max", 0)])
def test_bad_settings_are_refused_by_name(key, value):
    with pytest.raises(ValueError, match=key):
        masked_rows(**{**MEM_MASKED, key: value})
    with pytest.raises(ValueError, match=key):
        masked_cost(**{k: v for k, v in {**MEM_MASKED, key: value}.items()
                           if k not in ("seed", "n_classes", "r_min", "r_max", "theory_eps",
                                        "eps", "lam")})
