"""Lazy scans of CSV and parquet files, so a file larger than memory can be counted.

:func:`read_table` returns a query, not the data: a polars ``LazyFrame`` (default; collected on
polars' streaming engine) or a DuckDB relation. :func:`causalcost.forced_runs` then runs one
group-by over it and only the counts come back.

Every engine reads a CSV file into the same rows, or the file is refused:

* every column is read as its text, never sniffed into numbers or booleans (DuckDB would turn
  ``yes``/``no`` and ``t``/``f`` into booleans, and a header of numbers into a data row); the
  labels are read from that text by :mod:`causalcost.data.labels`, and scores are parsed by
  whoever needs numbers;
* the header is parsed once, here, by Python's :mod:`csv` module (RFC 4180: ``"y""q"`` is the
  name ``y"q``) and handed to the engine, which sniffs nothing; duplicate or empty column
  names are refused;
* a blank line outside quotes is refused (polars reads it as a row of nulls, DuckDB skips it);
* only regular files are read (a FIFO with no writer would block forever).
"""

from __future__ import annotations

import csv
import importlib
import os
import re
import stat
from pathlib import Path
from typing import Any

from causalcost.errors import DataError

__all__ = ["read_table", "csv_header", "blank_line", "FORMATS", "ENGINES"]

#: File suffix -> format.
FORMATS = {".csv": "csv", ".tsv": "csv", ".parquet": "parquet", ".pq": "parquet"}
#: Engines that can scan a file lazily.
ENGINES = ("polars", "duckdb")


def read_table(path: str | os.PathLike[str], *, engine: str = "polars") -> Any:
    """Scan a ``.csv`` / ``.tsv`` or ``.parquet`` file lazily.

    Parameters
    ----------
    path : str or path-like
        The file. ``.tsv`` is read with a tab separator.
    engine : {"polars", "duckdb"}
        Returns a ``polars.LazyFrame`` or a ``duckdb.DuckDBPyRelation``.

    Returns
    -------
    polars.LazyFrame or duckdb.DuckDBPyRelation
        A lazy frame: nothing but the schema (the header, the parquet metadata) is read yet.

    Raises
    ------
    DataError
        A missing file, an unknown extension, a file the engine cannot read, or an engine that
        is not installed.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "runs.csv"
    >>> _ = path.write_text("y,a,b\\n1,1,0\\n0,0,1\\n")
    >>> frame = read_table(path)
    >>> type(frame).__name__, frame.collect_schema().names()
    ('LazyFrame', ['y', 'a', 'b'])
    >>> read_table(path.with_suffix(".xlsx"))
    Traceback (most recent call last):
    ...
    causalcost.errors.DataError: cannot read runs.xlsx: unknown extension '.xlsx'; use .csv, .tsv, .parquet, .pq
    """  # noqa: E501
    file = Path(os.fspath(path))
    fmt = FORMATS.get(file.suffix.lower())
    if fmt is None:
        raise DataError(f"cannot read {file.name}: unknown extension {file.suffix!r}; use "
                        f"{', '.join(FORMATS)}")
    if not file.exists():
        raise DataError(f"no such file: {file}")
    if file.is_dir() and fmt == "csv":
        raise DataError(f"{file} is a directory, not a CSV file")
    if not file.is_dir() and not stat.S_ISREG(file.stat().st_mode):
        raise DataError(f"{file} is not a regular file (a FIFO, socket or device?): copy the "
                        "data to a file and read that")
    if engine not in ENGINES:
        raise DataError(f"engine must be one of {', '.join(ENGINES)}, got {engine!r}")
    try:
        module = importlib.import_module(engine)
    except ImportError:
        raise DataError(f"read_table(engine={engine!r}) needs {engine}: "
                        f"pip install 'causalcost[{engine}]'") from None
    separator = "\t" if file.suffix.lower() == ".tsv" else ","
    names = csv_header(file, separator) if fmt == "csv" else []
    if fmt == "csv":
        blank = blank_line(file)
        if blank is not None:
            raise DataError(f"cannot read {file}: line {blank} is blank; engines disagree on "
                            "blank lines (a row of nulls, or none), so remove it")
    try:
        if engine == "polars":
            if fmt == "parquet":
                frame = module.scan_parquet(file)
            else:
                frame = module.scan_csv(file, separator=separator, has_header=True,
                                        infer_schema=False, new_columns=names, quote_char='"')
            frame.collect_schema()  # reads the metadata now: errors surface here
        else:
            source = str(file / "*.parquet") if file.is_dir() else str(file)
            if fmt == "parquet":
                frame = module.read_parquet(source)
            else:
                frame = module.read_csv(source, header=True, auto_detect=False,
                                        columns=dict.fromkeys(names, "VARCHAR"),
                                        delimiter=separator, quotechar='"', escapechar='"')
            _ = frame.columns
    except Exception as exc:  # the engine's own exception types
        text = " ".join(str(exc).split())[:300]
        raise DataError(f"cannot read {file} as {fmt.upper()} with {engine}: "
                        f"{type(exc).__name__}: {text}") from None
    return frame


def csv_header(file: Path, separator: str = ",") -> list[str]:
    r"""The column names of a CSV file, parsed as RFC 4180 (``"y""q"`` is ``y"q``).

    Raises :class:`DataError` for an empty file, an unreadable header, and empty or duplicate
    names (an engine would rename them, and a column could be counted in another's place).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "runs.csv"
    >>> _ = path.write_text('y,"a""q",b\n1,1,0\n')
    >>> csv_header(path)
    ['y', 'a"q', 'b']
    >>> _ = path.write_text("y,a,b,c,a\n1,1,0,1,0\n")
    >>> csv_header(path)
    Traceback (most recent call last):
    ...
    causalcost.errors.DataError: cannot read runs.csv: its header names column 'a' twice (columns 2 and 5); give every column its own name
    """  # noqa: E501
    try:
        with open(file, encoding="utf-8-sig", newline="") as handle:
            names = next(csv.reader(handle, delimiter=separator, quotechar='"', strict=True), None)
    except (csv.Error, UnicodeDecodeError) as exc:
        raise DataError(f"cannot read the header of {file.name}: {exc}") from None
    if not names:
        raise DataError(f"cannot read {file.name}: the first line (the header) is empty")
    seen: dict[str, int] = {}
    for i, name in enumerate(names, start=1):
        if not name.strip():
            raise DataError(f"cannot read {file.name}: column {i} of the header has no name")
        if name in seen:
            raise DataError(f"cannot read {file.name}: its header names column {name!r} twice "
                            f"(columns {seen[name]} and {i}); give every column its own name")
        seen[name] = i
    return names


_BLANK = re.compile(rb"\n(?=\r?\n)")


def blank_line(file: Path, chunk: int = 1 << 22) -> int | None:
    r"""The number of the first blank line outside quotes (1 = the first line), or ``None``.

    Read in chunks (a file larger than memory is fine); a quote's parity says whether a line
    break sits inside a quoted field (RFC 4180 doubles quotes inside quotes, which keeps it).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "runs.csv"
    >>> _ = path.write_bytes(b'y,a\n1,"x\n\nz"\n0,w\n')
    >>> blank_line(path) is None
    True
    >>> _ = path.write_bytes(b'y,a\n1,x\r\n\r\n0,w\n')
    >>> blank_line(path)
    3
    """
    quotes = lines = 0
    tail = b""
    with open(file, "rb") as handle:
        if handle.read(1) in (b"\n", b"\r"):
            return 1
        handle.seek(0)
        while True:
            block = handle.read(chunk)
            data = tail + block
            end = len(data) if not block else max(len(data) - 2, 0)
            last = 0
            for match in _BLANK.finditer(data, 0, len(data)):
                pos = match.start()
                if pos >= end:
                    break
                quotes += data.count(b'"', last, pos)
                lines += data.count(b"\n", last, pos)
                last = pos
                if quotes % 2 == 0:
                    return lines + 2
            quotes += data.count(b'"', last, end)
            lines += data.count(b"\n", last, end)
            tail = data[end:]
            if not block:
                return None
