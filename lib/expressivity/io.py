"""Tables on disk: atomic CSV writes and reads that fail loudly on corrupt input.

A compute job writes its table to a temporary file in the same directory and renames it into place,
so a killed job never leaves a half-written CSV that looks complete. A consuming job reads with
``read_table``, which names the file when it is missing, empty, truncated or lacks a column.
"""

from __future__ import annotations

import csv
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

import pandas as pd


class TableError(ValueError):
    """A CSV that a job consumes is missing, empty, truncated or malformed."""


def write_table(df: pd.DataFrame, path: str | os.PathLike) -> None:
    """Write ``df`` as CSV to ``path`` atomically (temp file in the same directory, then rename).

    Floats are written with 17 significant digits, so reading the file back gives the same doubles,
    and the same frame always gives the same bytes.
    """
    path = Path(path)
    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp creates 0600; tables are ordinary files
        with os.fdopen(fd, "w", newline="") as handle:
            df.to_csv(handle, index=False, float_format="%.17g", lineterminator="\n")
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except OSError as err:
        raise OSError(err.errno, f"cannot write table {path}: {err.strerror}") from err
    finally:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)  # gone already after a successful rename


def read_table(path: str | os.PathLike, columns: Iterable[str] = ()) -> pd.DataFrame:
    """Read a CSV written by ``write_table``; raise ``TableError`` naming the file if it is unusable.

    A table is unusable when it cannot be parsed, has a line whose field count differs from the
    header's, has no rows, lacks one of ``columns``, or ends without a final newline (a truncated
    write).
    """
    path = Path(path)
    if not path.is_file():
        raise TableError(f"{path}: table is missing")
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
