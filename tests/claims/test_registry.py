"""The claims registry itself: three kinds reported apart, a reason for every claim not evaluated,
and statistical findings judged with their power (expressivity.claims)."""

import math

import pandas as pd
import pytest

from expressivity.claims import (
    KINDS,
    PAPERS,
    REQUIRED_POWER,
    Claim,
    Measurement,
    Power,
    evaluate_stage,
    markdown_table,
    not_evaluated,
    of_paper,
    on_items,
    paper_claims,
    paper_keys,
    paper_summary,
    registry,
    statistical_findings,
    summary_line,
    verdict,
)


def claim(evaluate, power=None, kind="finding", **fields):
    base = dict(id="hardmax_vs_softmax.example", paper="Kajitsuka & Sato 2024", where="W", statement="S",
                provenance="ours", metric="m", op="<", threshold=1.0, why="w", figure="f",
                tables=("t",), evaluate=evaluate, kind=kind, control="c", basis="mathematics")
    if power is not None:
        base.update(alternatives=("alt",), power=power)
    return Claim(**{**base, **fields})


def powered(rejected):
    return lambda tables, rng: [Power("alt", 200, rejected, "design")]


TABLES = {"t": pd.DataFrame({"x": [1]})}


def test_a_statistical_finding_passes_only_with_power():
    row = claim(lambda t: Measurement(0.5), powered(190)).judge(TABLES)
    assert row["status"] == "pass" and row["power"] == pytest.approx(0.95)
    assert "power: alt 0.95 (190/200)" in row["note"]
    weak = claim(lambda t: Measurement(0.5), powered(100)).judge(TABLES)
    assert weak["status"] == "not evaluated" and weak["reason"] == "underpowered"
    assert not weak["passed"] and "would have passed" in weak["note"]
    # a design that cannot simulate its alternative on these tables is not evaluated either
    none = claim(lambda t: Measurement(0.5), lambda tables, rng: []).judge(TABLES)
    assert none["status"] == "not evaluated" and none["reason"] == "underpowered"


def test_power_rows_are_checked():
    with pytest.raises(ValueError, match="replicates"):
        Power("alt", 199, 100)
    with pytest.raises(ValueError, match="rejected"):
        Power("alt", 200, 201)
    assert Power("alt", 200, 160).rate == REQUIRED_POWER


def test_kinds_and_their_fields_are_checked():
    with pytest.raises(ValueError, match="kind"):
        claim(lambda t: Measurement(0.0), kind="evidence")
    with pytest.raises(ValueError, match="only a finding"):
        claim(lambda t: Measurement(0.0), powered(200), kind="check")
    with pytest.raises(ValueError, match="alternatives"):
        claim(lambda t: Measurement(0.0), alternatives=("alt",))


def test_not_evaluated_carries_its_reason():
    row = claim(lambda t: not_evaluated("no items", "no draws"), kind="check").judge(TABLES)
    assert row["status"] == "not evaluated" and row["reason"] == "no items" and not row["passed"]
    assert on_items(3, "draws") is None and on_items(0, "draws").reason == "no items"
    with pytest.raises(ValueError, match="reason"):
        not_evaluated("bad luck", "note")
    # a NaN without a reason (an older claim) is reported undecided
    plain = claim(lambda t: Measurement(math.nan), kind="check").judge(TABLES)
    assert plain["reason"] == "undecided"


def test_summary_line_counts_the_three_kinds_apart():
    table = pd.DataFrame({
        "kind": ["finding", "finding", "finding", "demonstration", "check", "check"],
        "status": ["pass", "fail", "not evaluated", "pass", "pass", "not evaluated"],
        "reason": ["", "", "underpowered", "", "", "no items"]})
    assert summary_line(table) == (
        "Findings: 1/3 passed, 1 failed, 1 not evaluated (1 underpowered); demonstrations: 1/1 "
        "passed, 0 failed, 0 not evaluated; checks: 1/2 passed, 0 failed, 1 not evaluated "
        "(1 no items)")


def test_registry_lists_statistical_findings_and_every_kind():
    claims = registry()
    assert {c.kind for c in claims} <= set(KINDS)
    statistical = [c for c in claims if c.statistical]
    assert statistical and all(c.kind == "finding" and c.alternatives for c in statistical)
    assert statistical_findings() == [c.id for c in statistical]
    table = markdown_table()
    for kind in KINDS:
        assert f"**{kind.capitalize()}s**" in table


def test_evaluate_stage_writes_power_rows(monkeypatch):
    import expressivity.claims as registry_module

    monkeypatch.setattr(registry_module, "stage_claims",
                        lambda stage: [claim(lambda t: Measurement(0.5), powered(180))])
    claims, power = evaluate_stage("hardmax_vs_softmax", TABLES, seed=3)
    assert list(claims["status"]) == ["pass"]
    assert power.to_dict("records") == [{"claim": "hardmax_vs_softmax.example",
                                         "alternative": "alt", "replicates": 200,
                                         "rejected": 180, "power": 0.9,
                                         "required": REQUIRED_POWER, "design": "design"}]


def test_every_claim_names_its_papers_by_one_key_each():
    """One canonical key per paper; a joint claim counts for each of its papers."""
    claims = registry()
    by_paper = {key: paper_claims(key) for key in PAPERS}
    assert all(by_paper.values()), "a paper without claims"
    assert {c.id for cs in by_paper.values() for c in cs} == {c.id for c in claims}
    joint = [c for c in claims if len(c.papers) > 1]
    assert joint and all(c in by_paper[key] for c in joint for key in c.papers)
    assert sum(map(len, by_paper.values())) == len(claims) + sum(len(c.papers) - 1 for c in claims)
    assert {c.paper for c in claims if len(c.papers) == 1} <= {p.cite for p in PAPERS.values()}


def test_a_paper_is_named_by_its_citation_only():
    assert paper_keys("Yun et al. 2020a; Kajitsuka & Sato 2024") == ("yun2020a", "kajitsuka2024")
    with pytest.raises(ValueError, match="'Yun et al. 2020a \\(ICLR\\)' is no paper's citation"):
        paper_keys("Yun et al. 2020a (ICLR)")
    with pytest.raises(ValueError, match="hardmax_vs_softmax.example: paper 'Kajitsuka 2024'"):
        claim(lambda t: Measurement(0.5), paper="Kajitsuka 2024")
    with pytest.raises(ValueError, match="unknown paper 'ks'; papers are kajitsuka2024, "):
        paper_claims("ks")


def test_a_papers_summary_counts_its_rows_only():
    table = pd.DataFrame({"kind": ["finding", "check", "check"], "status": ["fail", "pass", "pass"],
                          "reason": ["", "", ""],
                          "papers": ["kajitsuka2024", "yun2020a kajitsuka2024", "yun2020a"]})
    assert list(of_paper(table, "kajitsuka2024").index) == [0, 1]
    assert paper_summary(table, "yun2020a") == (
        "Yun et al. 2020a (2 claims): Findings: 0/0 passed, 0 failed, 0 not evaluated; "
        "demonstrations: 0/0 passed, 0 failed, 0 not evaluated; checks: 2/2 passed, 0 failed, "
        "0 not evaluated")


def test_a_verdict_names_why_a_claim_is_not_evaluated():
    """A figure's title says why a claim was not judged (censored, paper config, ...), not only
    that it was not; a judged claim has no reason."""
    row = {"id": "s.c", "metric": "gap", "measured": math.nan, "op": ">", "threshold": 0.0,
           "status": "not evaluated", "reason": "censored"}
    assert verdict(row) == "c: gap = – > 0: not evaluated (censored)"
    judged = {**row, "measured": 0.5, "status": "pass", "reason": math.nan}
    assert verdict(judged) == "c: gap = 0.5 > 0: pass"
