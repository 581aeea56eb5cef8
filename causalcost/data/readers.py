"""Lazy scans of CSV and parquet files, so a file larger than memory can be counted.

:func:`read_table` returns a query, not the data: a polars ``LazyFrame`` (default; collected on
polars' streaming engine) or a DuckDB relation. :func:`causalcost.forced_runs` then runs one
group-by over it and only the counts come back.
"""

from __future__ import annotations

import importlib
import os
from pathlib import Path
from typing import Any

from causalcost.errors import DataError

__all__ = ["read_table", "FORMATS", "ENGINES"]

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
    if engine not in ENGINES:
        raise DataError(f"engine must be one of {', '.join(ENGINES)}, got {engine!r}")
    try:
        module = importlib.import_module(engine)
    except ImportError:
        raise DataError(f"read_table(engine={engine!r}) needs {engine}: "
                        f"pip install 'causalcost[{engine}]'") from None
    separator = "\t" if file.suffix.lower() == ".tsv" else ","
    try:
        if engine == "polars":
            frame = (module.scan_parquet(file) if fmt == "parquet" else
                     module.scan_csv(file, separator=separator, infer_schema_length=10_000))
            frame.collect_schema()  # reads the header / metadata now: errors surface here
        else:
            source = str(file / "*.parquet") if file.is_dir() else str(file)
            frame = (module.read_parquet(source) if fmt == "parquet" else
                     module.read_csv(source, sep=separator))
            _ = frame.columns
    except Exception as exc:  # the engine's own exception types
        text = " ".join(str(exc).split())[:300]
        raise DataError(f"cannot read {file} as {fmt.upper()} with {engine}: "
                        f"{type(exc).__name__}: {text}") from None
    return frame
