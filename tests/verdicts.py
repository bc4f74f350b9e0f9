"""The three verdicts every claims test asserts (one case each per claim id: it passes, it fails
when contradicted, it is not evaluated without its evidence)."""


def assert_passes(claim, tables) -> dict:
    """The claim passes on ``tables``, a statistical finding with the power it needs."""
    row = claim.judge(tables)
    assert row["status"] == "pass", row["note"]
    assert not claim.statistical or row["power"] >= 0.8, row["note"]
    return row


def assert_fails(claim, tables) -> dict:
    row = claim.judge(tables)
    assert row["status"] == "fail", row["note"]
    return row


def assert_not_evaluated(claim, tables, reason: str | None = None) -> dict:
    """Not evaluated (never passed), with a reason (``reason`` when given)."""
    row = claim.judge(tables)
    assert row["status"] == "not evaluated" and not row["passed"], row["note"]
    assert row["reason"] and (reason is None or row["reason"] == reason), row["reason"]
    return row
