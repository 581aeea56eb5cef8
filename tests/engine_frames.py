"""The data frame engines the counting tests run on: each turns a pandas frame into a frame
of that engine (one definition for every test file that compares engines)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import dask.dataframe as dd
import duckdb
import pandas as pd
import polars as pl
import pyarrow as pa

ENGINES: dict[str, Callable[[pd.DataFrame], Any]] = {
    "pandas": lambda df: df,
    "polars": pl.from_pandas,
    "polars_lazy": lambda df: pl.from_pandas(df).lazy(),
    "pyarrow": lambda df: pa.Table.from_pandas(df, preserve_index=False),
    "duckdb": lambda df: duckdb.from_arrow(pa.Table.from_pandas(df, preserve_index=False)),
    "dask": lambda df: dd.from_pandas(df, npartitions=3),
}
