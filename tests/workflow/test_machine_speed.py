"""This machine's speed against the machine the cost models were fitted on: measured once per
machine and library versions (three workloads on one thread), cached, overridable, and checked."""

import json

import machine_speed
import pytest


def test_the_calibration_times_each_workload_and_the_reference_has_speed_one():
    seconds = machine_speed.calibrate(repeats=1)
    assert set(seconds) == set(machine_speed.WORKLOADS) and all(s > 0 for s in seconds.values())
    assert machine_speed.speed_of(machine_speed.REFERENCE_SECONDS) == pytest.approx(1)
    halved = {name: s / 2 for name, s in machine_speed.REFERENCE_SECONDS.items()}
    assert machine_speed.speed_of(halved) == pytest.approx(2)


def test_the_speed_is_measured_once_per_machine_and_cached(tmp_path, monkeypatch):
    calls = []

    def calibrate():
        calls.append(1)
        return {name: s / 4 for name, s in machine_speed.REFERENCE_SECONDS.items()}

    monkeypatch.delenv("EXPRESSIVITY_SPEED", raising=False)
    monkeypatch.setattr(machine_speed, "calibrate", calibrate)
    cache = tmp_path / "speed.json"
    assert machine_speed.speed(cache) == pytest.approx(4)
    assert machine_speed.speed(cache) == pytest.approx(4) and len(calls) == 1
    # another machine or library version: measured again, both kept
    monkeypatch.setattr(machine_speed, "_key", lambda: "another machine")
    assert machine_speed.speed(cache) == pytest.approx(4) and len(calls) == 2
    assert len(json.loads(cache.read_text())) == 2
    # an unreadable cache is measured again and rewritten; one that cannot be written is skipped
    cache.write_text("{not json")
    assert machine_speed.speed(cache) == pytest.approx(4) and len(calls) == 3
    assert len(json.loads(cache.read_text())) == 1
    blocked = tmp_path / "a file" / "speed.json"
    blocked.parent.write_text("not a folder")
    assert machine_speed.speed(blocked) == pytest.approx(4) and len(calls) == 4


def test_the_override_is_used_and_a_bad_one_is_named(tmp_path, monkeypatch):
    monkeypatch.setattr(machine_speed, "calibrate", lambda: pytest.fail("measured"))
    monkeypatch.setenv("EXPRESSIVITY_SPEED", "0.5")
    assert machine_speed.speed(tmp_path / "speed.json") == 0.5
    for bad in ("0", "-1", "fast"):
        monkeypatch.setenv("EXPRESSIVITY_SPEED", bad)
        with pytest.raises(ValueError, match=f"EXPRESSIVITY_SPEED.*{bad}"):
            machine_speed.speed(tmp_path / "speed.json")


def test_a_failed_calibration_says_so(monkeypatch):
    monkeypatch.setattr(machine_speed.sys, "executable", "false")
    with pytest.raises(RuntimeError, match="the speed calibration failed"):
        machine_speed.calibrate(repeats=1)


def test_the_reference_ratio_is_the_median_of_the_committed_records():
    """``RECORDS_RATIO``, which turns the measured workload seconds into the reference machine's,
    is the median over the jobs both committed records ran unchanged (at least ``min_cpu_s`` on
    the faster machine) of the reference's CPU seconds over the faster machine's."""
    import csv
    import statistics

    from plan import RECORDS

    source = machine_speed.RECORDS_RATIO_SOURCE

    def cpu_seconds(name):
        with (RECORDS / source[name]).open() as handle:
            return {(r["rule"], r["wildcards"]): float(r["cpu_s"]) for r in csv.DictReader(handle)}

    slow, fast = cpu_seconds("reference"), cpu_seconds("measured")
    ratios = [slow[job] / fast[job] for job in slow.keys() & fast.keys()
              if job[0] not in source["changed_rules"] and fast[job] >= source["min_cpu_s"]]
    assert len(ratios) >= 100
    assert statistics.median(ratios) == pytest.approx(machine_speed.RECORDS_RATIO, abs=0.05)
