"""Lazy scans of CSV and parquet files, so a file larger than memory can be counted.

:func:`read_table` returns a query, not the data: a polars ``LazyFrame`` (default; collected on
polars' streaming engine), a DuckDB relation or a Dask data frame (pandas, the fallback when
polars is not installed, reads the rows into memory). :func:`causalcost.forced_runs` then runs
one group-by over it and only the counts come back. A directory of parts (Spark, Dask,
Hive-style writers) or a glob is read as one table (:func:`table_parts`).

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
import glob
import importlib
import importlib.util
import os
import re
import stat
from pathlib import Path
from typing import Any

from causalcost.errors import DataError

__all__ = ["read_table", "table_parts", "csv_header", "blank_line", "FORMATS", "ENGINES"]

#: File suffix -> format.
FORMATS = {".csv": "csv", ".tsv": "csv", ".parquet": "parquet", ".pq": "parquet"}
#: Engines that can read a path: polars and DuckDB scan it lazily, Dask in partitions,
#: pandas (a core dependency, the fallback when polars is not installed) into memory.
ENGINES = ("polars", "duckdb", "dask", "pandas")
_GLOB = re.compile(r"[*?\[]")
#: Files a Spark, Dask or Hive-style writer puts beside the parts: never data.
_SIDE_FILES = re.compile(r"^[._]|\.crc$")


def default_engine() -> str:
    """``"polars"`` when it is installed, else ``"pandas"`` (a core dependency)."""
    return "polars" if importlib.util.find_spec("polars") is not None else "pandas"


def table_parts(path: str | os.PathLike[str]) -> tuple[str, list[Path], str]:
    r"""The format, the data files and the separator of a file, a directory of parts or a glob.

    A directory (what Spark, Dask and Hive-style writers produce) is read as every file below
    it, in name order, except side files (names starting with ``_`` or ``.``, such as
    ``_SUCCESS`` and ``_metadata``, and ``.crc`` checksums); a glob (``runs/*.parquet``) as the
    files it matches. The format comes from the suffix of the path, else of the parts (they
    must agree), else from the parquet signature (``PAR1``) of every part; a CSV part of zero
    bytes (an empty partition) holds no rows and is skipped. Only regular files are read: a
    FIFO with no writer would block forever.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp()) / "runs"
    >>> folder.mkdir()
    >>> for name in ("part-0.csv", "part-1.csv", "_SUCCESS", ".part-0.csv.crc"):
    ...     _ = (folder / name).write_text("y,a\n1,0\n")
    >>> fmt, files, _ = table_parts(folder)
    >>> fmt, [f.name for f in files]
    ('csv', ['part-0.csv', 'part-1.csv'])
    """
    text = os.fspath(path)
    file = Path(text)
    if _GLOB.search(file.name) or any(_GLOB.search(p) for p in file.parts[:-1]):
        files = sorted(Path(p) for p in glob.glob(text, recursive=True))
        files = [f for f in files if not f.is_dir()]
        if not files:
            raise DataError(f"no file matches {text}")
    elif not file.exists():
        raise DataError(f"no such file: {file}")
    elif file.is_dir():
        files = sorted(f for f in file.rglob("*") if not f.is_dir()
                       and not any(_SIDE_FILES.search(part)
                                   for part in f.relative_to(file).parts))
        if not files:
            raise DataError(f"{file} is a directory with no data files (only side files such "
                            "as _SUCCESS or .crc, or nothing)")
    else:
        files = [file]
    for f in files:
        if not stat.S_ISREG(f.stat().st_mode):
            raise DataError(f"{f} is not a regular file (a FIFO, socket or device?): copy the "
                            "data to a file and read that")
    fmt = _format(file, files)
    if fmt == "csv" and len(files) > 1:
        files = [f for f in files if f.stat().st_size > 0] or files[:1]
    separator = "\t" if (file.suffix.lower() == ".tsv" or
                         all(f.suffix.lower() == ".tsv" for f in files)) else ","
    return fmt, files, separator


def _format(path: Path, files: list[Path]) -> str:
    own = FORMATS.get(path.suffix.lower())
    if own is not None and not _GLOB.search(path.name):
        return own
    found = {FORMATS.get(f.suffix.lower()) for f in files}
    if len(found) == 1 and None not in found:
        return found.pop()
    if len(found - {None}) > 1:
        kinds = sorted(f.suffix for f in files if FORMATS.get(f.suffix.lower()))
        raise DataError(f"{path} holds parts of different formats ({', '.join(set(kinds))}): "
                        "read one format at a time (a glob such as dir/*.parquet)")
    if all(_parquet_signature(f) for f in files):
        return "parquet"
    if path.suffix and not path.is_dir() and not _GLOB.search(path.name):
        raise DataError(f"cannot read {path.name}: unknown extension {path.suffix!r}; use "
                        f"{', '.join(FORMATS)}")
    odd = next(f for f in files if FORMATS.get(f.suffix.lower()) is None)
    raise DataError(f"cannot tell the format of {odd} (no .csv, .tsv, .parquet or .pq suffix, "
                    "no parquet signature): name the directory runs.csv, or the file with its "
                    "format's suffix")


def _parquet_signature(file: Path) -> bool:
    with open(file, "rb") as handle:
        return handle.read(4) == b"PAR1"


def read_table(path: str | os.PathLike[str], *, engine: str | None = None) -> Any:
    """Scan a ``.csv`` / ``.tsv`` or ``.parquet`` file, a directory of parts, or a glob.

    Parameters
    ----------
    path : str or path-like
        The file; ``.tsv`` is read with a tab separator. A directory of parts (as Spark, Dask
        and Hive-style writers produce) or a glob (``runs/*.parquet``) is read as one table;
        see :func:`table_parts`.
    engine : {"polars", "duckdb", "dask", "pandas"}, optional
        Returns a ``polars.LazyFrame``, a ``duckdb.DuckDBPyRelation``, a Dask data frame or a
        pandas data frame (read into memory). Default: polars when it is installed, else
        pandas.

    Returns
    -------
    polars.LazyFrame, duckdb.DuckDBPyRelation, dask.dataframe.DataFrame or pandas.DataFrame
        A lazy frame: nothing but the schema (the header, the parquet metadata) is read yet
        (pandas reads the rows).

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
    >>> frame = read_table(path, engine="polars")
    >>> type(frame).__name__, frame.collect_schema().names()
    ('LazyFrame', ['y', 'a', 'b'])
    >>> read_table(path, engine="pandas").to_dict("list")
    {'y': ['1', '0'], 'a': ['1', '0'], 'b': ['0', '1']}
    >>> read_table(path.with_suffix(".xlsx"))
    Traceback (most recent call last):
    ...
    causalcost.errors.DataError: cannot read runs.xlsx: unknown extension '.xlsx'; use .csv, .tsv, .parquet, .pq
    """  # noqa: E501
    file = Path(os.fspath(path))
    if (file.suffix and not _GLOB.search(file.name) and not file.is_dir()
            and file.suffix.lower() not in FORMATS):
        raise DataError(f"cannot read {file.name}: unknown extension {file.suffix!r}; use "
                        f"{', '.join(FORMATS)}")
    engine = default_engine() if engine is None else engine
    if engine not in ENGINES:
        raise DataError(f"engine must be one of {', '.join(ENGINES)}, got {engine!r}")
    fmt, files, separator = table_parts(file)
    try:
        module = importlib.import_module("dask.dataframe" if engine == "dask" else engine)
    except ImportError:
        raise DataError(f"read_table(engine={engine!r}) needs {engine}: "
                        f"pip install 'causalcost[{engine}]'") from None
    names: list[str] = []
    if fmt == "csv":
        for part in files:
            header = csv_header(part, separator)
            if names and header != names:
                raise DataError(f"cannot read {file}: the parts' headers differ ({files[0].name}"
                                f": {names}; {part.name}: {header}); read them separately")
            names = header
            blank = blank_line(part)
            if blank is not None:
                raise DataError(f"cannot read {part}: line {blank} is blank; engines disagree "
                                "on blank lines (a row of nulls, or none), so remove it")
    sources = [str(f) for f in files]
    try:
        frame = _scan(module, engine, fmt, sources, names, separator)
    except DataError:
        raise
    except Exception as exc:  # the engine's own exception types
        text = " ".join(str(exc).split())[:300]
        raise DataError(f"cannot read {file} as {fmt.upper()} with {engine}: "
                        f"{type(exc).__name__}: {text}") from None
    return frame


def _scan(module: Any, engine: str, fmt: str, sources: list[str], names: list[str],
          separator: str) -> Any:
    """The engine's reader: every CSV column as text (the header given, nothing sniffed)."""
    one = sources[0] if len(sources) == 1 else sources
    if engine == "polars":
        if fmt == "parquet":
            frame = module.scan_parquet(one, hive_partitioning=False)
        else:
            frame = module.scan_csv(one, separator=separator, has_header=True,
                                    infer_schema=False, new_columns=names, quote_char='"')
        frame.collect_schema()  # reads the metadata now: errors surface here
        return frame
    if engine == "duckdb":
        if fmt == "parquet":
            frame = module.read_parquet(one, hive_partitioning=False)
        else:
            frame = module.read_csv(one, header=True, auto_detect=False,
                                    columns=dict.fromkeys(names, "VARCHAR"),
                                    delimiter=separator, quotechar='"', escapechar='"')
        _ = frame.columns
        return frame
    text = {"dtype": str, "keep_default_na": False, "na_filter": False, "sep": separator,
            "quotechar": '"', "doublequote": True, "header": 0, "names": names,
            "skip_blank_lines": False}
    if engine == "dask":
        if fmt == "parquet":
            return module.read_parquet(sources)
        return module.read_csv(sources, blocksize=None, **text)
    import pandas as pd

    if fmt == "parquet":
        if not any(importlib.util.find_spec(m) for m in ("pyarrow", "fastparquet")):
            raise DataError("reading parquet with pandas needs pyarrow: pip install "
                            "'causalcost[arrow]', or read it with engine='polars' or "
                            "engine='duckdb' (causalcost[polars], causalcost[duckdb])")
        return pd.concat([module.read_parquet(s) for s in sources], ignore_index=True)
    return pd.concat([module.read_csv(s, **text) for s in sources], ignore_index=True)


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
