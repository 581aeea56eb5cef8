"""Plain-Python reference for the data path, and every way of handing a table to causalcost.

:func:`reference_counts` counts forced runs row by row from Python values: a label is
positive when it equals the positive label (nothing else is read), the fusioner is evaluated
from its definition (weights as exact :class:`fractions.Fraction`), and the counts are
integers. Nothing of :mod:`causalcost.data` is used.

:func:`as_engine` hands a pandas table to causalcost through one engine: in memory (pandas,
polars eager and lazy, pyarrow, a DuckDB relation, Dask) or written to a CSV or parquet file
and read back by a path engine (polars, DuckDB, Dask, pandas).

Test files import it with ``from numpy_reference import ...`` (pytest puts this directory on
``sys.path``).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

import causalcost as cc

MEMORY = ("pandas", "polars", "polars_lazy", "pyarrow", "duckdb", "dask")
PATH_ENGINES = ("polars", "duckdb", "dask", "pandas")
FILES = tuple(f"{fmt}:{engine}" for fmt in ("csv", "parquet") for engine in PATH_ENGINES)
ENGINES = MEMORY + FILES


def as_engine(name: str, table: pd.DataFrame, folder: Path) -> Any:
    """``table`` as the engine ``name`` holds it (a path for ``"csv:..."`` / ``"parquet:..."``
    names is written to ``folder`` and read back with that engine)."""
    if name == "pandas":
        return table
    if name in ("polars", "polars_lazy"):
        import polars as pl

        frame = pl.from_pandas(table)
        return frame.lazy() if name == "polars_lazy" else frame
    if name == "pyarrow":
        import pyarrow as pa

        return pa.Table.from_pandas(table, preserve_index=False)
    if name == "duckdb":
        import duckdb

        return duckdb.from_df(table)
    if name == "dask":
        import dask.dataframe as dd

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return dd.from_pandas(table, npartitions=3)
    fmt, engine = name.split(":")
    path = folder / f"table.{fmt}"
    if fmt == "csv":
        table.to_csv(path, index=False)
    else:
        table.to_parquet(path, index=False)
    return cc.read_table(path, engine=engine)


def fusion(rule: str, votes: Sequence[bool], *, k: int | None = None,
           weights: Sequence[Any] | None = None, threshold: Any = None,
           tie: str | None = None) -> bool:
    """The fusioner's vote from its definition (weights and threshold exact)."""
    n, yes = len(votes), sum(bool(v) for v in votes)
    if rule == "and":
        return yes == n
    if rule == "or":
        return yes >= 1
    if rule == "majority":
        return 2 * yes > n or (2 * yes == n and tie == "positive")
    if rule == "k_of_n":
        return yes >= int(k)  # type: ignore[arg-type]
    if rule == "weighted":
        total = sum((Fraction(str(w)) for w, v in zip(weights, votes) if v), Fraction(0))  # type: ignore[arg-type]
        return total >= Fraction(str(threshold))
    raise AssertionError(rule)


def reference_counts(truth: Sequence[Any], models: Mapping[str, Sequence[Any]], slot: str,
                     positive: Mapping[str, Any], rule: str, **options: Any) -> np.ndarray:
    """Counts with axes (class, forced-P vote, forced-N vote, slot vote); index 0 is P.

    ``positive`` maps each column (``"truth"`` and the model names) to its positive label.
    """
    names = list(models)
    counts = np.zeros((2, 2, 2, 2), dtype=np.int64)
    for i, label in enumerate(truth):
        row = {m: models[m][i] == positive[m] for m in names}
        forced = []
        for x in (True, False):
            forced.append(fusion(rule, [x if m == slot else row[m] for m in names], **options))
        index = [label != positive["truth"], not forced[0], not forced[1], not row[slot]]
        counts[tuple(int(v) for v in index)] += 1
    return counts
