"""Any data frame through narwhals: wrap it, name its engine, and collect small results.

Accepted inputs: pandas, polars (``DataFrame`` or ``LazyFrame``), pyarrow tables, DuckDB
relations, Dask and PySpark data frames (anything :func:`narwhals.from_native` accepts), a
mapping of column name -> array (read as a pandas frame) and a path to a CSV or parquet file
(scanned lazily by :func:`causalcost.data.readers.read_table`).
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import narwhals as nw

from causalcost.errors import DataError, ValidationError
from causalcost.rows import align_by_index

__all__ = ["align_by_index", "align_series", "as_frame", "collect", "engine_error",
           "engine_name", "fills_nulls", "is_lazy", "log_columns", "require_columns"]

Frame = nw.DataFrame[Any] | nw.LazyFrame[Any]


def as_frame(data: Any) -> tuple[Frame, dict[str, Any]]:
    """``data`` as a narwhals frame, and what it came from (``{"engine": .., "lazy": ..}``).

    Examples
    --------
    >>> import pandas as pd
    >>> frame, source = as_frame(pd.DataFrame({"y": [True, False]}))
    >>> source
    {'engine': 'pandas', 'lazy': False}
    """
    source: dict[str, Any] = {}
    if isinstance(data, (str, os.PathLike)):
        from causalcost.data.readers import read_table

        source["file"] = os.fspath(data)
        data = read_table(data)
    elif isinstance(data, Mapping):
        import pandas as pd

        try:
            data = pd.DataFrame(dict(data))
        except ValueError as exc:
            raise DataError(f"a mapping of columns must hold equal-length arrays: {exc}") from None
    if isinstance(data, (nw.DataFrame, nw.LazyFrame)):
        frame = data
    else:
        with warnings.catch_warnings():  # narwhals announces a separate Dask plug-in
            warnings.filterwarnings("ignore", message=".*narwhals-dask.*", category=FutureWarning)
            try:
                frame = nw.from_native(data)
            except nw.exceptions.DuplicateError as exc:
                detail = " ".join(str(exc).split())
                raise DataError(
                    f"data (a {type(data).__module__.split('.')[0]} {type(data).__name__}) has "
                    f"duplicate column names ({detail}): rename them so that every column has "
                    "its own name"
                ) from None
            except TypeError:
                raise DataError(
                    f"cannot count a {type(data).__module__}.{type(data).__name__}: pass a data "
                    "frame (pandas, polars, pyarrow, DuckDB, Dask, PySpark), a mapping of column "
                    "name -> array, or the path of a .csv or .parquet file"
                ) from None
    if not isinstance(frame, (nw.DataFrame, nw.LazyFrame)):
        raise DataError(f"expected a data frame, got a {type(data).__name__} (a single column?)")
    return frame, {"engine": engine_name(frame), "lazy": is_lazy(frame), **source}


def engine_name(frame: Frame) -> str:
    """The engine holding ``frame``: ``"pandas"``, ``"polars"``, ``"duckdb"``, ..."""
    return str(frame.implementation)


def fills_nulls(frame: Frame) -> bool:
    """Whether expressions on ``frame`` must not meet nulls in casts and arithmetic.

    pandas-like engines and Dask fail to cast a missing boolean to an integer, so their vote
    expressions fill nulls (the rows are flagged as not labels anyway). SQL engines, polars and
    pyarrow carry nulls through, and skipping the fill saves DuckDB a ``COALESCE`` per column.
    """
    impl = frame.implementation
    return impl.is_pandas_like() or impl.is_dask()


def is_lazy(frame: Frame) -> bool:
    """Whether ``frame`` is lazy (a query the engine runs on collect) rather than in memory."""
    return isinstance(frame, nw.LazyFrame)


def collect(frame: Frame, what: str = "counting") -> nw.DataFrame[Any]:
    """Run a (small) query and bring its result into memory.

    Polars lazy frames run on the streaming engine, so a file larger than memory is scanned
    in batches; DuckDB and Spark results come back as pandas (a core dependency), so neither
    needs pyarrow. An engine failure (a malformed CSV line, say) becomes a :class:`DataError`.
    """
    if not isinstance(frame, nw.LazyFrame):
        return frame
    impl = frame.implementation
    kwargs: dict[str, Any] = {}
    if impl is nw.Implementation.POLARS:
        kwargs["engine"] = "streaming"
    elif impl.is_duckdb() or impl.is_pyspark() or impl.is_pyspark_connect():
        kwargs["backend"] = "pandas"  # small results; pyarrow is not needed (nor installed
        # with the duckdb and spark extras)
    try:
        return frame.collect(**kwargs)
    except Exception as exc:  # the engine's own error types: report them as data errors
        raise engine_error(frame, exc, what) from exc


def engine_error(frame: Frame, exc: Exception, what: str = "counting") -> DataError:
    """An engine's exception as a :class:`DataError` naming the engine and its message."""
    if _spark_stopped(frame):
        return DataError(f"the Spark session of this data frame was stopped, so {what} cannot "
                         "run: count before spark.stop(), or create the data frame again in "
                         "a new session")
    text = " ".join(str(exc).split())
    return DataError(f"the {engine_name(frame)} engine failed while {what}: "
                     f"{type(exc).__name__}: {text[:500]}")


def _spark_stopped(frame: Frame) -> bool:
    """Whether ``frame`` is a PySpark frame whose session (its SparkContext) was stopped."""
    if not frame.implementation.is_pyspark():
        return False
    try:
        return frame.to_native().sparkSession.sparkContext._jsc is None
    except Exception:  # an attribute PySpark renamed: no diagnosis, the engine's error stands
        return False


def require_columns(frame: Frame, columns: list[str]) -> dict[str, Any]:
    """The schema of ``columns`` (column -> narwhals dtype); a clear error for missing ones."""
    try:
        schema = frame.collect_schema()
    except Exception as exc:
        raise DataError(f"cannot read the columns of the data: {type(exc).__name__}: "
                        f"{exc}") from exc
    missing = [c for c in columns if c not in schema]
    if missing:
        have = list(schema)
        shown = ", ".join(map(repr, have[:20])) + (", ..." if len(have) > 20 else "")
        raise DataError(
            f"column{'s' if len(missing) > 1 else ''} {', '.join(map(repr, missing))} "
            f"{'are' if len(missing) > 1 else 'is'} not in the data; its columns are: {shown}"
        )
    return {c: schema[c] for c in columns}


def log_columns(data: Any, *, truth: str, models: Sequence[str], slot: object,
                observed: object) -> tuple[Frame, dict[str, Any], bool, dict[str, Any]]:
    """A system log checked for forced runs (binary or K labels): the frame, its source, whether
    the slot's own column is counted, and the dtypes of the columns read (truth first).

    ``observed=None`` counts the slot's column when the data has it; True requires it; False
    leaves it out.

    >>> import pandas as pd
    >>> frame, source, use_slot, dtypes = log_columns(
    ...     pd.DataFrame({"y": [1], "a": [1], "b": [0]}), truth="y", models=["a", "b"],
    ...     slot="a", observed=None)
    >>> use_slot, list(dtypes)
    (True, ['y', 'a', 'b'])
    """
    if not isinstance(slot, str) or slot not in models:
        raise ValidationError(f"slot {slot!r} must be one of the models {list(models)}")
    if truth in models:
        raise ValidationError(f"truth column {truth!r} cannot also be a model")
    if observed not in (None, True, False):
        raise ValidationError(f"observed must be None, True or False, got {observed!r}")
    frame, source = as_frame(data)
    use_slot = bool(observed) or (observed is None and slot in frame.collect_schema())
    columns = [truth, *(m for m in models if m != slot or use_slot)]
    return frame, source, use_slot, require_columns(frame, columns)


def align_series(frame: Frame, predictions: Any, engine: str) -> Any:
    """A pandas Series in the data's row order (by index), or refused when it cannot be.

    Anything else is returned as given. A Series whose index is the data's, or a permutation
    of it, is reordered to the data's rows; one with other labels is refused, never paired by
    position (for data without an index, only a default ``RangeIndex`` is accepted).

    >>> import narwhals as nw, pandas as pd
    >>> frame = nw.from_native(pd.DataFrame({"y": [1, 0]}, index=[10, 11]))
    >>> align_series(frame, pd.Series(["b", "a"], index=[11, 10]), "pandas").tolist()
    ['a', 'b']
    """
    import pandas as pd

    if not isinstance(predictions, pd.Series):
        return predictions
    native = frame.to_native()
    index = native.index if isinstance(native, pd.DataFrame) else None
    return align_by_index(predictions, index, "predictions",
                    against="the data" if index is not None else f"the {engine} data")
