"""Figure titles say what is plotted; a rate or a verdict in a title comes from the claim's own
measurement (the stage's claims table), never from a number the plot script computed on its own.
Checked on every figure a claim names, from the titles each PNG records (``plotting.save``)."""

import re

import pandas as pd
import pytest
from PIL import Image

from expressivity.claims import verdict

pytestmark = pytest.mark.workflow

#: Words and notations that state a rate or a verdict.
RESULT = re.compile(
    r"O\(|∝|\b(slopes?|rates?|like|pass(es|ed)?|fail(s|ed)?|holds|blind|sees|finds?|exact(ly)?|"
    r"cannot|reach(es)?|beats?|tends?|grows?|falls?|pays|separated|suffices|trade-off|meets?|needs)\b",
    re.IGNORECASE)


def stated_results(title: str, verdicts: list[str]) -> list[str]:
    """The rate and verdict words of ``title`` outside the claims' own verdict lines (compared
    with runs of white space as one space, so a wrapped line still counts)."""
    title = " ".join(title.split())
    for line in verdicts:
        title = title.replace(" ".join(line.split()), "")
    return [m[0] for m in RESULT.finditer(title)]


def test_result_words_are_caught():
    assert stated_results("Sparse patterns: O(n) connections per layer", []) == ["O("]
    assert stated_results("hardmax is blind, softmax sees", []) == ["blind", "sees"]
    row = {"id": "s.c", "metric": "largest |slope - expected|", "measured": 0.03, "op": "<=",
           "threshold": 0.1, "status": "pass"}
    line = verdict(row)
    assert stated_results(f"Connections per layer\n{line}", [line]) == []


def test_claim_figures_state_results_only_from_their_claims(ci_run):
    claims = pd.read_csv(ci_run.path / "results/claims.csv")
    for figure, rows in claims.groupby("figure"):
        titles = Image.open(ci_run.path / figure).text.get("Title")
        assert titles, f"{figure} records no title"
        verdicts = [verdict(row) for _, row in rows.iterrows()]
        assert not stated_results(titles, verdicts), (
            f"{figure}: the title states {stated_results(titles, verdicts)} without the claim's "
            f"measurement: {titles!r}")
