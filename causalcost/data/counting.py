"""One group-by on the engine that holds the data: rows counted by a few boolean keys.

The keys (the true class, the system's vote with the slot forced to P and to N, the slot's
own vote, ...) are narwhals expressions; they are folded into one small integer code per row
(rows where a column is not a label get a code of their own), and the engine runs
``group_by(code).agg(len())``. At most
``2 ** (keys + 1)`` rows come back, never the data. String columns also report, per group, the
smallest and largest non-positive label, so a third label is caught by the same query.

A ``function`` fusioner cannot run inside an engine: :func:`count_arrays` evaluates it on
numpy arrays for eager frames (data already in memory), with the same validation.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import narwhals as nw
import numpy as np

from causalcost.data.frames import Frame, collect, engine_error
from causalcost.data.labels import LabelRule, is_missing, raise_label_errors
from causalcost.errors import DataError

__all__ = ["count_votes", "count_arrays"]

_CODE, _LEN = "__causalcost_code", "__causalcost_len"
_WEIGHT = "__causalcost_rows"


def _other_names(rules: Sequence[LabelRule]) -> dict[str, str]:
    return {r.column: f"__causalcost_other{i}" for i, r in enumerate(rules) if r.kind == "string"}


def _flag_names(rules: Sequence[LabelRule]) -> dict[tuple[str, str], str]:
    return {(r.column, k): f"__causalcost_flag{i}_{k}" for i, r in enumerate(rules)
            for k in r.flags()}


def _finish(frame: Frame, rules: Sequence[LabelRule], codes: np.ndarray, sizes: np.ndarray,
            others: dict[str, set[Any]], n_keys: int,
            flags: dict[str, dict[str, bool]] | None = None) -> np.ndarray:
    full = np.zeros(2 ** (n_keys + 1), dtype=np.int64)
    np.add.at(full, codes.astype(np.int64), sizes.astype(np.int64))
    bad_rows = int(full[2 ** n_keys:].sum())
    _check(frame, rules, bad_rows, others, flags)
    return full[: 2 ** n_keys].reshape((2,) * n_keys) if n_keys else full[:1].reshape(())


def _check(frame: Frame, rules: Sequence[LabelRule], bad_rows: int,
           others: dict[str, set[Any]], flags: dict[str, dict[str, bool]] | None = None) -> None:
    """Raise for columns that are not labels; never return when a row was flagged."""
    flags = flags or {}
    mixed = any(f.get("named") and (f.get("true_text") or len(others.get(c, ())) > 1)
                for c, f in flags.items())
    if bad_rows or mixed or any(len(v) > 1 and c not in flags for c, v in others.items()):
        raise_label_errors(frame, rules, any_bad=bool(bad_rows), others=others, flags=flags)
        columns = ", ".join(repr(r.column) for r in rules)
        raise DataError(f"{bad_rows} row(s) hold a value that is not a label in one of the "
                        f"columns {columns} (or a third label); the engine could not say which")


def count_votes(frame: Frame, rules: Sequence[LabelRule], keys: Sequence[nw.Expr]) -> np.ndarray:
    """Rows of ``frame`` counted by boolean ``keys``, in one group-by run by the engine.

    Parameters
    ----------
    frame : narwhals DataFrame or LazyFrame
    rules : sequence of LabelRule
        The columns the keys read; a row where any of them is not a label is flagged, and a
        flagged row raises :class:`~causalcost.errors.DataError` naming the column and values.
    keys : sequence of narwhals.Expr
        Boolean expressions (never null on rows where every rule's column is a label).

    Returns
    -------
    numpy.ndarray
        Integer counts of shape ``(2,) * len(keys)``; along each axis index 0 is ``True``
        (positive) and 1 is ``False``, the package's (P, N) order.

    Examples
    --------
    >>> import narwhals as nw, pandas as pd
    >>> from causalcost.data.labels import label_rule
    >>> frame = nw.from_native(pd.DataFrame({"y": [1, 1, 0], "m": [True, False, False]}))
    >>> rules = [label_rule("y", nw.Int64()), label_rule("m", nw.Boolean())]
    >>> count_votes(frame, rules, [r.vote() for r in rules]).tolist()
    [[1, 1], [0, 1]]
    """
    n = len(keys)
    code, other = query_parts(rules, keys)
    names = _other_names(rules)
    flag_names = _flag_names(rules)
    flag_columns = list(flag_names.values())
    # polars plans the whole query when it is lazy (same engine, same data, no copy)
    query = frame.lazy() if frame.implementation.is_polars() else frame
    try:  # eager engines evaluate each step at once, lazy ones on collect
        if frame.implementation.is_dask():
            lazy, finish = dask_counts(frame, code, other, list(names.values()),
                                       [r.column for r in rules], flag_columns)
            result = finish(lazy.compute())
        else:
            result = collect(_grouped(query.select(code.alias(_CODE), *other),
                                      list(names.values()), flag_columns))
    except Exception as exc:  # an engine choking on a bad value (a cast): name the column
        error = exc if isinstance(exc, DataError) else engine_error(frame, exc)
        raise_label_errors(frame, rules, any_bad=True, others={})
        raise error from exc
    found = {col: {v for end in ("min", "max")
                   for v in result.get_column(f"{name}_{end}").to_list() if not is_missing(v)}
             for col, name in names.items()}
    flags = _found_flags(flag_names, lambda name: result.get_column(name).to_list())
    return _finish(frame, rules, result.get_column(_CODE).to_numpy(),
                   result.get_column(_LEN).to_numpy(), found, n, flags)


def _found_flags(flag_names: dict[tuple[str, str], str],
                 get: Callable[[str], list[Any]]) -> dict[str, dict[str, bool]]:
    """Per string column, whether any row raised each of its flags."""
    flags: dict[str, dict[str, bool]] = {}
    for (column, key), name in flag_names.items():
        flags.setdefault(column, {})[key] = any(not is_missing(v) and bool(v) for v in get(name))
    return flags


def query_parts(rules: Sequence[LabelRule], keys: Sequence[nw.Expr]
                ) -> tuple[nw.Expr, list[nw.Expr]]:
    """The row's code (``2 ** len(keys)`` where a column is not a label) and the expressions
    of the string columns' non-positive labels and of their flags, as :func:`count_votes`
    groups them."""
    n = len(keys)
    code = _add_bits([*keys], n)
    if rules:  # rows where a column is not a label all get the code 2 ** n
        valid = nw.all_horizontal(*(r.valid() for r in rules), ignore_nulls=False)
        code = nw.when(valid.fill_null(False)).then(code).otherwise(nw.lit(2**n, dtype=nw.Int32))
    names = _other_names(rules)
    other = [r.other().alias(names[r.column]) for r in rules if r.column in names]  # type: ignore[union-attr]
    flag_names = _flag_names(rules)
    other += [r.flags()[k].cast(nw.Int32).alias(flag_names[(r.column, k)])
              for r in rules for k in r.flags()]
    return code, other


def _grouped(selected: Frame, others: list[str], flags: Sequence[str] = ()) -> Frame:
    """Rows of ``selected`` (the code, the non-positive labels and the flags) counted by code;
    a flag is raised in a group when any of its rows raised it."""
    return selected.group_by(_CODE).agg(
        nw.len().alias(_LEN),
        *(nw.col(c).min().alias(f"{c}_min") for c in others),
        *(nw.col(c).max().alias(f"{c}_max") for c in others),
        *(nw.col(c).max().alias(c) for c in flags),
    )


#: Partial counts combined per step of Dask's tree reduction.
DASK_SPLIT_EVERY = 32


def dask_counts(frame: Frame, code: nw.Expr, other: Sequence[nw.Expr], others: list[str],
                columns: Sequence[str] = (), flags: Sequence[str] = (),
                ) -> tuple[Any, Callable[[Any], Any]]:
    """The group-by of :func:`count_votes` on a Dask frame: a lazy Dask frame and the function
    turning its computed (pandas) value into the counts by code (a narwhals frame).

    Each partition is counted by one task and the partial counts are combined by a tree
    reduction of at most :data:`DASK_SPLIT_EVERY` per step, with no shuffle. (Going through
    narwhals' Dask translation instead costs some eighty tasks per partition and, from 16
    partitions on, a shuffle.) A partition's task counts its rows by ``columns`` (the label
    columns the expressions read), as Dask's own ``value_counts`` does; the expressions then
    run once, on the few distinct rows, weighted by their counts. When they read a column not
    among ``columns`` (found on the empty ``_meta`` partition, before anything runs), each
    partition's task evaluates them on its rows instead.
    """
    native = frame.to_native()
    columns = list(dict.fromkeys(columns))
    outputs = [_CODE, _LEN, *(f"{c}_{end}" for c in others for end in ("min", "max")),
               *flags]
    ends = {**{f"{c}_{end}": end for c in others for end in ("min", "max")},
            **{c: "max" for c in flags}}

    def counted(part: Any) -> Any:  # rows of a pandas frame counted by ``columns``
        return part.groupby(columns, dropna=False, sort=False, observed=True).size(
            ).reset_index(name=_WEIGHT)

    def add(parts: Any) -> Any:
        return parts.groupby(columns, dropna=False, sort=False, observed=True)[_WEIGHT].sum(
            ).reset_index()

    def by_code(distinct: Any) -> Any:  # the distinct rows' codes, weighted by their counts
        weighted = nw.from_native(distinct, eager_only=True).select(
            code.alias(_CODE), *other, nw.col(_WEIGHT))
        return weighted.group_by(_CODE).agg(
            nw.col(_WEIGHT).sum().alias(_LEN),
            *(nw.col(c).min().alias(f"{c}_min") for c in others),
            *(nw.col(c).max().alias(f"{c}_max") for c in others),
            *(nw.col(c).max().alias(c) for c in flags),
        )

    if columns and _WEIGHT not in native.columns:
        meta = counted(native._meta)
        try:
            by_code(meta)
        except Exception:  # the expressions read more than ``columns``: every row, then
            pass
        else:
            return (native.reduction(counted, aggregate=add, combine=add,
                                     split_every=DASK_SPLIT_EVERY, meta=meta), by_code)

    def on_rows(part: Any) -> Any:
        selected = nw.from_native(part, eager_only=True).select(code.alias(_CODE), *other)
        return _grouped(selected, others, flags).to_native()[outputs]

    def combine(parts: Any) -> Any:
        return parts.groupby(_CODE, as_index=False, sort=False).agg(
            {_LEN: "sum", **ends})[outputs]

    return (native.reduction(on_rows, aggregate=combine, combine=combine,
                             split_every=DASK_SPLIT_EVERY, meta=on_rows(native._meta)),
            lambda computed: nw.from_native(computed, eager_only=True))


def _add_bits(keys: list[nw.Expr], n: int) -> nw.Expr:
    """The row's code: bit ``n - 1 - i`` set where key ``i`` is False (so C order = key order)."""
    code: nw.Expr = nw.lit(0, dtype=nw.Int32)
    for i, key in enumerate(keys):
        code = code + (~key).cast(nw.Int32) * (2 ** (n - 1 - i))
    return code


def count_arrays(
    frame: Frame, rules: Sequence[LabelRule],
    keys: Callable[[Mapping[str, np.ndarray]], Sequence[np.ndarray]],
) -> np.ndarray:
    """Like :func:`count_votes` for an eager frame, with keys computed by numpy.

    ``keys`` receives the columns' votes (column name -> bool array) and returns the key
    arrays; the columns are validated by the same rules first.

    Examples
    --------
    >>> import narwhals as nw, pandas as pd
    >>> from causalcost.data.labels import label_rule
    >>> frame = nw.from_native(pd.DataFrame({"y": [1, 1, 0], "m": [True, False, False]}))
    >>> rules = [label_rule("y", nw.Int64()), label_rule("m", nw.Boolean())]
    >>> count_arrays(frame, rules, lambda v: [v["y"], v["y"] ^ v["m"]]).tolist()
    [[1, 1], [0, 1]]
    """
    names = _other_names(rules)
    flag_names = _flag_names(rules)
    selected = collect(frame.select(
        *(r.vote().alias(f"__v{i}") for i, r in enumerate(rules)),
        nw.any_horizontal(*(r.bad() for r in rules), ignore_nulls=True).alias("__bad"),
        *(r.other().alias(names[r.column]) for r in rules if r.column in names),  # type: ignore[union-attr]
        *(r.flags()[k].alias(name) for (c, k), name in flag_names.items()
          for r in rules if r.column == c),
    ))
    bad = selected.get_column("__bad").to_numpy().astype(bool)
    found = {col: {v for v in selected.get_column(name).unique().to_list() if not is_missing(v)}
             for col, name in names.items()}
    flags = _found_flags(flag_names, lambda name: selected.get_column(name).to_list())
    _check(frame, rules, int(bad.sum()), found, flags)
    votes = {r.column: selected.get_column(f"__v{i}").to_numpy().astype(bool)
             for i, r in enumerate(rules)}
    arrays = [np.asarray(k, dtype=bool) for k in keys(votes)]
    n = len(arrays)
    code = np.zeros(len(bad), dtype=np.int64)
    for i, key in enumerate(arrays):
        code += (~key).astype(np.int64) << (n - 1 - i)
    sizes = np.bincount(code, minlength=2 ** n)
    return _finish(frame, rules, np.arange(len(sizes)), sizes, {}, n)
