"""The papers' experiments claims (claims/trained_models/papers.py): pass, contradicted and
missing-evidence cases on synthetic tables."""

import math

import pandas as pd
import pytest

from expressivity.claims.trained_models.papers import CLAIMS, configuration_gaps, sign_test
from expressivity.training_protocol import encode_curve

BY_ID = {c.id.split(".", 1)[1]: c for c in CLAIMS}


def _runs(accuracies, outcome="plateau", **cell):
    return [{"lr": 0.01, "cell_lr": 0.01, "seed_index": i, "accuracy": a, "target": 0.99,
             "outcome": "reached" if a >= 0.99 else outcome, "precision": "float32",
             "cell_accuracy_mean": sum(accuracies) / len(accuracies), **cell}
            for i, a in enumerate(accuracies)]


def _curved(accuracies, final=None, stopped_at=100, **cell):
    """Sweep runs evaluated every 50 steps whose accuracy at step 100 is ``accuracies``: each
    stops at ``stopped_at`` (>= 100) with ``final`` (default: its accuracy at step 100)."""
    rows = _runs(accuracies if final is None else final, **cell)
    for row, a in zip(rows, accuracies, strict=True):
        evaluations = stopped_at // 50 + 1
        curve = [0.1, a / 2, a] + [row["accuracy"]] * (evaluations - 3)
        row.update(every=50, budget=1500, stopped_at=stopped_at, accuracy_curve=encode_curve(curve))
    return rows


def _sparsity(random_acc, det_acc, *, final=None, random_stops=100, task="copy"):
    rows = []
    for w in (2, 4):
        for c in ("alternating", "union"):
            rows += _curved(random_acc, final, random_stops, task=task, pattern="random",
                            configuration=c, level=w, density=0.6)
            for p in ("strided", "fixed"):
                rows += _curved(det_acc, final, 100, task=task, pattern=p, configuration=c,
                                level=w, density=0.3 if w == 4 else 0.5)
    return {"sparsity": pd.DataFrame(rows)}


def test_sign_test():
    assert sign_test(8, 8) == pytest.approx(1 / 256)
    assert sign_test(0, 0) == 1.0


def test_random_below_deterministic_pass_fail_missing():
    claim = BY_ID["random_below_deterministic"]
    row = claim.judge(_sparsity([0.5, 0.55, 0.6], [0.9, 0.95, 0.97]))
    assert row["status"] == "pass" and row["power"] >= 0.8
    row = claim.judge(_sparsity([0.97, 0.96, 0.95], [0.5, 0.55, 0.6]))
    assert row["status"] == "fail"
    row = claim.judge(_sparsity([0.8, 0.8], [0.8, 0.8]))
    assert row["status"] == "not evaluated" and row["reason"] == "no items"


def test_random_below_deterministic_reads_the_pairs_common_step():
    """Every run reaches the target, so the final accuracies (0.995) tie; the claim reads each
    pair at the last evaluation before any of its runs stopped, where RANDOM is behind."""
    claim = BY_ID["random_below_deterministic"]
    final = [0.995, 0.995, 0.995]
    row = claim.judge(_sparsity([0.5, 0.55, 0.6], [0.9, 0.95, 0.97], final=final))
    assert row["status"] == "pass" and "at step 100" in row["note"]
    # RANDOM stops later (at 300): its curve is still read at step 100, the pair's common step
    row = claim.judge(_sparsity([0.5, 0.55, 0.6], [0.9, 0.95, 0.97], final=final,
                                random_stops=300))
    assert row["status"] == "pass" and "at step 100" in row["note"]
    # a RANDOM run at w = 2 stopped at step 50: its level's pairs are read there (half the
    # accuracies of step 100), the other level's at step 100
    tables = _sparsity([0.5, 0.55, 0.6], [0.9, 0.95, 0.97])
    tables["sparsity"].loc[0, "stopped_at"] = 50
    note = claim.judge(tables)["note"]
    assert "w=2 STRIDED alternating at step 50 0.470 vs 0.275" in note
    assert "w=4 STRIDED alternating at step 100 0.940 vs 0.550" in note


def test_random_below_deterministic_pairs_cells_of_one_task():
    """RANDOM is compared with the deterministic cells of its own task only: a RANDOM that
    recalls well cannot mask one that copies badly (8 pairs per task, 16 in all)."""
    claim = BY_ID["random_below_deterministic"]
    copy = _sparsity([0.5, 0.55, 0.6], [0.9, 0.95, 0.97])["sparsity"]
    recall = _sparsity([0.97, 0.96, 0.95], [0.5, 0.55, 0.6], task="recall")["sparsity"]
    row = claim.judge({"sparsity": pd.concat([copy, recall], ignore_index=True)})
    assert row["status"] == "fail" and "below in 8 of 16" in row["note"]
    assert "copy w=2 STRIDED union" in row["note"] and "recall w=4 FIXED union" in row["note"]
    recall = _sparsity([0.5, 0.55, 0.6], [0.9, 0.95, 0.97], task="recall")["sparsity"]
    row = claim.judge({"sparsity": pd.concat([copy, recall], ignore_index=True)})
    assert row["status"] == "pass" and "below in 16 of 16" in row["note"]


def test_random_below_deterministic_is_underpowered_with_four_pairs():
    """RANDOM below in 4 of 4 pairs gives p = 1/16: no outcome of 4 pairs can pass at 0.05, so
    the claim is not evaluated rather than failed (the default run's slice)."""
    tables = _sparsity([0.5, 0.55, 0.6], [0.9, 0.95, 0.97])
    tables["sparsity"] = tables["sparsity"][tables["sparsity"]["pattern"] != "fixed"]
    row = BY_ID["random_below_deterministic"].judge(tables)
    assert row["status"] == "not evaluated" and row["reason"] == "underpowered"
    assert "0.5^4 = 0.0625" in row["note"]


def _star(cells):
    rows = []
    for d, n, acc in cells:
        rows += _runs(acc, d_model=d, n=n, load=n * 3 / d)
    return {"star_bottleneck": pd.DataFrame(rows)}


def test_star_load_needs_two_lengths_and_tracks_the_load():
    claim = BY_ID["star_load"]
    one_n = claim.judge(_star([(16, 16, [0.5, 0.6]), (32, 16, [0.9, 0.95])]))
    assert one_n["status"] == "not evaluated" and one_n["reason"] == "paper config"
    falls = [(16, 16, [0.6]), (32, 16, [0.8]), (16, 32, [0.3]), (32, 32, [0.5])]
    assert claim.judge(_star(falls))["status"] == "pass"
    by_n = [(16, 16, [0.8]), (32, 16, [0.8]), (16, 32, [0.4]), (32, 32, [0.4])]
    assert claim.judge(_star(by_n))["status"] == "fail"


def test_star_load_counts_every_run_that_reached_the_target_alike():
    """Within each n the two lighter cells reach the target and stop just above it. Read as they
    are, the lightest cell's 0.9915 against the middle one's 0.9975 puts rho at -0.4 within each
    n (no clear fall); at most the target, the two tie and the heavy cell's failure is the fall."""
    from scipy.stats import spearmanr

    cells = [(d, n, acc) for n in (16, 32)
             for d, acc in ((16, [0.6, 0.62]), (32, [0.997, 0.998]), (64, [0.991, 0.992]),
                            (128, [0.993, 0.994]))]
    loads = [n * 3 / d for d, n, _ in cells[:4]]
    raw = spearmanr(loads, [sum(a) / 2 for _, _, a in cells[:4]]).statistic
    assert raw > -0.5  # the final accuracies as they are would not show the fall
    row = BY_ID["star_load"].judge(_star(cells))
    assert row["status"] == "pass", row["note"]


def test_hybrid_monotone_k_ties_cells_that_reached_the_target():
    """k = 1 and all attention both reach the target; where each stopped above it (0.997 against
    0.991, seeds alike) is no fall."""
    tables = _hybrid([0.3, 0.35, 0.32], [0.997, 0.9972, 0.9971], [0.991, 0.9912, 0.9911],
                     [0.5, 0.52, 0.51], [0.9, 0.92, 0.95])
    row = BY_ID["hybrid_monotone_k"].judge(tables)
    assert row["status"] == "pass" and row["measured"] == pytest.approx(0.0, abs=1e-12), row["note"]


def _hybrid(alone, one, full, small, large):
    rows = _runs(full, task="recall", alternative="attention", kernel=0, attention_layers=4)
    for k, acc in ((0, alone), (1, one)):
        rows += _runs(acc, task="recall", alternative="conv", kernel=9, attention_layers=k)
    for kernel, acc in ((3, small), (9, large)):
        rows += _runs(acc, task="count", alternative="conv", kernel=kernel, attention_layers=0)
    return {"hybrid": pd.DataFrame([{**r, "n": 16, "depth": 4} for r in rows])}


def test_hybrid_claims():
    good = _hybrid([0.3, 0.35, 0.32], [0.98, 0.97, 0.985], [1.0, 1.0, 1.0],
                   [0.5, 0.52, 0.51], [0.9, 0.92, 0.95])
    for cid in ("hybrid_alternatives_below_attention", "hybrid_partial_replace",
                "hybrid_monotone_k", "count_receptive_field"):
        assert BY_ID[cid].judge(good)["status"] == "pass", cid
    bad = _hybrid([0.3, 0.35, 0.32], [0.4, 0.38, 0.41], [1.0, 1.0, 1.0],
                  [0.9, 0.92, 0.95], [0.5, 0.52, 0.51])
    assert BY_ID["hybrid_partial_replace"].judge(bad)["status"] == "fail"
    assert BY_ID["count_receptive_field"].judge(bad)["status"] == "fail"
    censored = _hybrid([0.3, 0.35], [0.9, 0.9], [1.0, 1.0], [0.5], [0.9])
    censored["hybrid"].loc[censored["hybrid"]["accuracy"] < 0.99, "outcome"] = "budget"
    row = BY_ID["hybrid_alternatives_below_attention"].judge(censored)
    assert row["status"] == "not evaluated" and math.isnan(row["measured"])


def _monotone_sparsity(sparse, dense):
    rows = []
    for level, density, acc in ((4, 0.3, sparse), (2, 0.5, dense)):
        rows += _curved(acc, task="copy", pattern="strided", configuration="union",
                        level=level, density=density)
    return {"sparsity": pd.DataFrame(rows)}


def test_sparsity_monotone_sees_a_fall_it_has_the_power_for():
    claim = BY_ID["sparsity_monotone"]
    row = claim.judge(_monotone_sparsity([0.995, 0.996, 0.998], [0.994, 0.997, 0.999]))
    assert row["status"] == "pass" and row["power"] >= 0.8
    row = claim.judge(_monotone_sparsity([0.995, 0.996, 0.998], [0.6, 0.7, 0.65]))
    assert row["status"] == "fail"
    # seeds this spread cannot see a fall of 0.05: not evaluated, never a pass
    row = claim.judge(_monotone_sparsity([0.3, 0.9, 0.5], [0.4, 0.95, 0.2]))
    assert row["status"] == "not evaluated" and row["reason"] == "underpowered"


def test_sparsity_monotone_compares_levels_within_a_task():
    """A denser recall cell is not the next level of a copying cell: each task has its own
    series, so recall's low accuracy is no fall from copying's."""
    copy = _monotone_sparsity([0.995, 0.996, 0.998], [0.994, 0.997, 0.999])["sparsity"]
    recall = copy.assign(task="recall")
    recall.loc[recall["level"] == 2, "accuracy_curve"] = encode_curve([0.1, 0.2, 0.3])
    recall.loc[recall["level"] == 4, "accuracy_curve"] = encode_curve([0.1, 0.1, 0.1])
    row = BY_ID["sparsity_monotone"].judge({"sparsity": pd.concat([copy, recall])})
    assert row["status"] == "pass", row["note"]
    assert row["note"].count(" -> ") == 2 and "recall: STRIDED union" in row["note"]


def test_star_load_power_simulates_n_alone_and_no_fall():
    cells = [(16, 16, [0.6, 0.62, 0.61]), (32, 16, [0.8, 0.82, 0.81]),
             (16, 32, [0.3, 0.32, 0.31]), (32, 32, [0.5, 0.52, 0.51])]
    power = {p.alternative: p.rate for p in BY_ID["star_load"].simulate_power(_star(cells))}
    assert set(power) == {"a fall tracking n alone", "no fall with the load"}
    assert all(0 <= r <= 1 for r in power.values())


def test_hybrid_power_rows():
    good = _hybrid([0.3, 0.35, 0.32], [0.98, 0.97, 0.985], [1.0, 1.0, 1.0],
                   [0.5, 0.52, 0.51], [0.9, 0.92, 0.95])
    for cid in ("hybrid_partial_replace", "hybrid_monotone_k"):
        row = BY_ID[cid].judge(good)
        assert row["status"] == "pass" and row["power"] >= 0.8, (cid, row["note"])


def test_recall_left_out_is_paper_config():
    tables = _hybrid([0.3], [0.9], [1.0], [0.5, 0.52, 0.51], [0.9, 0.92, 0.95])
    tables["hybrid"] = tables["hybrid"][tables["hybrid"]["task"] == "count"]
    for cid in ("hybrid_alternatives_below_attention", "hybrid_partial_replace",
                "hybrid_monotone_k"):
        row = BY_ID[cid].judge(tables)
        assert row["status"] == "not evaluated" and row["reason"] == "paper config", cid
    assert BY_ID["count_receptive_field"].judge(tables)["status"] == "pass"


def test_one_counting_kernel_is_paper_config():
    tables = _hybrid([0.3], [0.9], [1.0], [0.5, 0.52, 0.51], [0.9, 0.92, 0.95])
    tables["hybrid"] = tables["hybrid"][tables["hybrid"]["kernel"] != 3]
    row = BY_ID["count_receptive_field"].judge(tables)
    assert row["status"] == "not evaluated" and row["reason"] == "paper config"


def test_sparsity_monotone_skips_cells_of_equal_density():
    """RANDOM's whole keys per query give two levels the same density: not a step of density,
    so a fall between them is not judged; each is compared with the next higher density."""
    rows = []
    for level, density, acc in ((4, 0.3, [0.9, 0.91, 0.92]), (2, 0.375, [0.95, 0.96, 0.97]),
                                (8, 0.375, [0.6, 0.61, 0.62]), (16, 0.5, [0.96, 0.97, 0.98])):
        rows += _curved(acc, task="copy", pattern="random", configuration="union",
                        level=level, density=density)
    row = BY_ID["sparsity_monotone"].judge({"sparsity": pd.DataFrame(rows)})
    assert row["status"] == "fail"  # 0.3 -> 0.375 at w = 8 falls by 0.3
    assert "w=2 (density 0.38) 0.960 -> w=8" not in row["note"]
    assert row["note"].count(" -> ") == 4  # 0.3 to each 0.375, each 0.375 to 0.5


def _two_tasks(copy_gap, recall_gap):
    """STRIDED alternating and union at w = 2 on copying and recall; union's accuracies are
    alternating's plus each task's gap."""
    rows = []
    base = [0.6, 0.62, 0.64]
    for task, gap in (("copy", copy_gap), ("recall", recall_gap)):
        for conf, shift in (("alternating", 0.0), ("union", gap)):
            rows += _curved([a + shift for a in base], task=task, pattern="strided",
                            configuration=conf, level=2, density=0.4)
    return {"sparsity": pd.DataFrame(rows)}


def test_configuration_gaps_report_each_configuration_against_the_first_per_task():
    """UNION against alternating is reported, not judged: per task its gap at the pair's common
    step, with a standard error; the order may differ between tasks."""
    gaps = configuration_gaps(_two_tasks(0.2, -0.1)["sparsity"])
    assert list(gaps["task"]) == ["copy", "recall"]
    assert (gaps["configuration"] == "union").all() and (gaps["against"] == "alternating").all()
    assert gaps["gap"].to_numpy() == pytest.approx([0.2, -0.1])
    assert (gaps["step"] == 100).all() and (gaps["se"] > 0).all()
    assert configuration_gaps(_two_tasks(0.2, -0.1)["sparsity"].query("configuration == 'union'")
                              ).empty
