"""Tables written atomically and read loudly (expressivity.io): exact round trips, every bad table
named with its file, damage after writing found."""

import pandas as pd
import pytest

from expressivity.io import TableError, read_table, write_table


def test_round_trip_is_exact_and_bytes_are_stable(tmp_path):
    df = pd.DataFrame({"x": [0.1, 1 / 3, 1e-300], "k": [1, 2, 3]})
    write_table(df, tmp_path / "a.csv")
    write_table(df, tmp_path / "b.csv")
    assert (tmp_path / "a.csv").read_bytes() == (tmp_path / "b.csv").read_bytes()
    pd.testing.assert_frame_equal(read_table(tmp_path / "a.csv", ["x"]), df)
    assert not list(tmp_path.glob(".*.tmp"))


@pytest.mark.parametrize(
    "content, message",
    [(b"", "truncated"), (b"x,k\n0.1,1\n0.2", "truncated"), (b"x,k\n", "no rows"),
     (b"x,k\n1,2,3,4\n", "line 2 has 4 fields"), (b"x,k\n1,2\n3\n", "line 3 has 1 fields")],
)
def test_bad_tables_name_the_file(tmp_path, content, message):
    path = tmp_path / "bad.csv"
    path.write_bytes(content)
    with pytest.raises(TableError, match=message) as err:
        read_table(path)
    assert str(path) in str(err.value)


def test_missing_column_and_missing_file_name_the_file(tmp_path):
    write_table(pd.DataFrame({"x": [1]}), tmp_path / "t.csv")
    with pytest.raises(TableError, match="lacks column"):
        read_table(tmp_path / "t.csv", ["y"])
    with pytest.raises(TableError, match="missing"):
        read_table(tmp_path / "nope.csv")


def test_failed_write_names_the_path_and_leaves_nothing(tmp_path, monkeypatch):
    import errno
    import os

    def full(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(OSError, match=r"cannot write table .*t\.csv: No space left") as err:
        write_table(pd.DataFrame({"x": [1]}), tmp_path / "t.csv")
    assert err.value.errno == errno.ENOSPC
    assert list(tmp_path.iterdir()) == []


def test_unwritable_directory_names_the_path(tmp_path):
    blocker = tmp_path / "results"
    blocker.write_text("a file where a directory should be")
    with pytest.raises(OSError, match="cannot write table .*results/s/t.csv"):
        write_table(pd.DataFrame({"x": [1]}), blocker / "s" / "t.csv")


def test_damage_after_writing_is_named_and_found(tmp_path):
    from expressivity.io import damaged_tables, record_path

    path = tmp_path / "stage" / "t.csv"
    write_table(pd.DataFrame({"a": range(10), "b": [0.5] * 10}), path)
    assert record_path(path).read_text().split()[1] == "10"
    assert damaged_tables(tmp_path) == []
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:5]))  # cut at a line boundary: still parses
    with pytest.raises(TableError, match=r"t\.csv: table differs from what its job wrote \(10 rows"):
        read_table(path)
    assert [p for p, _ in damaged_tables(tmp_path)] == [path]
