"""Tables on disk: atomic CSV writes and reads that fail loudly on corrupt input.

A compute job writes its table to a temporary file in the same directory and renames it into place,
so a killed job never leaves a half-written CSV that looks complete. Next to each table it records
the table's sha256 and row count (a hidden file ``.<name>.sha256`` in the same directory). A
consuming job reads with ``read_table``, which names the file when it is missing, empty, truncated,
lacks a column or no longer matches its record (damaged after it was written: cut at a line
boundary, edited, overwritten); ``damaged_tables`` finds every such table under a directory, so
the workflow can set them aside and rebuild them before any job reads them.
"""

from __future__ import annotations

import csv
import hashlib
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

import pandas as pd


class TableError(ValueError):
    """A CSV that a job consumes is missing, empty, truncated or malformed."""


def record_path(path: str | os.PathLike) -> Path:
    """Where the checksum record of the table at ``path`` lives: ``.<name>.sha256`` beside it."""
    path = Path(path)
    return path.with_name(f".{path.name}.sha256")


def _digest(data: bytes) -> str:
    """``"<sha256> <rows>"``: the record of a table's bytes (rows: lines after the header)."""
    rows = data.count(b"\n") - 1
    return f"{hashlib.sha256(data).hexdigest()} {rows}\n"


def _atomic_write(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same directory and a rename."""
    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp creates 0600; tables are ordinary files
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except OSError as err:
        raise OSError(err.errno, f"cannot write table {path}: {err.strerror}") from err
    finally:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)  # gone already after a successful rename


def damage(path: str | os.PathLike) -> str | None:
    """Why the table at ``path`` no longer matches the record written with it, or None.

    A table without a record (written by an older version, or not by ``write_table``) is not
    judged here."""
    path, record = Path(path), record_path(path)
    if not record.is_file() or not path.is_file():
        return None
    recorded = record.read_text()
    actual = _digest(path.read_bytes())
    if actual == recorded:
        return None
    rows = recorded.split()[-1] if recorded.split() else "?"
    return (f"{path}: table differs from what its job wrote ({rows} rows and a sha256 were "
            f"recorded in {record.name}; it now has {actual.split()[1]} rows)")


def damaged_tables(root: str | os.PathLike) -> list[tuple[Path, str]]:
    """Every table under ``root`` that no longer matches its record, with the reason."""
    found = []
    for record in sorted(Path(root).rglob(".*.csv.sha256")):
        table = record.with_name(record.name[1:-len(".sha256")])
        reason = damage(table)
        if reason:
            found.append((table, reason))
    return found


def write_table(df: pd.DataFrame, path: str | os.PathLike) -> None:
    """Write ``df`` as CSV to ``path`` atomically (temp file in the same directory, then rename).

    Floats are written with 17 significant digits, so reading the file back gives the same doubles,
    and the same frame always gives the same bytes.
    """
    path = Path(path)
    data = df.to_csv(index=False, float_format="%.17g", lineterminator="\n").encode()
    _atomic_write(path, data)
    _atomic_write(record_path(path), _digest(data).encode())


def read_table(path: str | os.PathLike, columns: Iterable[str] = ()) -> pd.DataFrame:
    """Read a CSV written by ``write_table``; raise ``TableError`` naming the file if it is unusable.

    A table is unusable when it cannot be parsed, has a line whose field count differs from the
    header's, has no rows, lacks one of ``columns``, ends without a final newline (a truncated
    write), or differs from the checksum recorded when it was written.
    """
    path = Path(path)
    if not path.is_file():
        raise TableError(f"{path}: table is missing")
    reason = damage(path)
    if reason:
        raise TableError(f"{reason}; delete it and run the workflow again to rebuild it")
    raw = path.read_bytes()
    if not raw.endswith(b"\n"):
        raise TableError(f"{path}: table is truncated (no final newline); rerun the job that writes it")
    with path.open(newline="") as handle:
        reader = csv.reader(handle)
        header = next(reader, [])
        for lineno, fields in enumerate(reader, start=2):
            if len(fields) != len(header):
                raise TableError(f"{path}: line {lineno} has {len(fields)} fields but the header has "
                                 f"{len(header)}; rerun the job that writes it")
    try:
        df = pd.read_csv(path)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as err:
        raise TableError(f"{path}: table cannot be parsed ({err}); rerun the job that writes it") from err
    if df.empty:
        raise TableError(f"{path}: table has no rows")
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise TableError(f"{path}: table lacks column(s) {', '.join(missing)}")
    return df
