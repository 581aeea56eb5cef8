"""Truth and prediction columns as binary votes, validated on the engine that holds them.

A column is read as a vote (``True`` = positive) when it holds

* booleans (``True`` is positive),
* the numbers 0 and 1 (integer or float dtype; ``1`` is positive unless ``positive=0``), or
* strings (or categories) with ``positive=`` naming the positive label; every other value of
  the column must then be one single negative label.

Anything else is a :class:`~causalcost.errors.DataError` naming the column and a few of the
offending values: nulls, a third label, fractional numbers such as 0.5 or scores. Rows are
never dropped silently. The checks run as expressions inside the counting query
(:mod:`causalcost.data.counting`); only when one fails do small follow-up queries (a filtered
``unique().head()``) fetch the values to show.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import narwhals as nw
import numpy as np

from causalcost.data.frames import Frame, collect
from causalcost.errors import DataError

__all__ = ["LabelRule", "label_rule", "raise_label_errors", "votes_from_values", "show_values",
           "is_missing"]

#: Offending values quoted in an error message.
SHOWN = 5
_FORMS = "bool, 0/1 numbers, or strings with positive= naming the positive label"


@dataclass(frozen=True)
class LabelRule:
    """How one column is read as a vote.

    Attributes
    ----------
    column : str
    kind : {"bool", "integer", "float", "string"}
    positive : object
        The label counted as positive (``True``, ``1``, ``0`` or a string).
    """

    column: str
    kind: str
    positive: Any

    def _col(self) -> nw.Expr:
        c = nw.col(self.column)
        return c.cast(nw.String) if self.kind == "string" else c

    def vote(self, *, fill: bool = True) -> nw.Expr:
        """``True`` where the row's label is positive (only meaningful where :meth:`valid`);
        nulls become ``False`` unless ``fill=False``."""
        c = self._col()
        vote = (c if self.positive else ~c) if self.kind == "bool" else c == self.positive
        return vote.fill_null(False) if fill else vote

    def value(self, *, fill: bool = True) -> nw.Expr:
        """The vote as something to add up (0/1): an integer 0/1 column with 1 positive is
        used as is when nulls need no filling, which spares the engine a comparison."""
        if self.kind == "integer" and self.positive == 1 and not fill:
            return nw.col(self.column)
        return self.vote(fill=fill)

    def valid(self) -> nw.Expr:
        """``True`` where the value is a label; ``False`` or null where it is not."""
        c = self._col()
        if self.kind == "integer":
            return c.is_between(0, 1)
        if self.kind == "float":
            return (c == 0) | (c == 1)
        return ~c.is_null()

    def bad(self) -> nw.Expr:
        """``True`` where the value cannot be a label (null, a number other than 0 and 1)."""
        return (~self.valid()).fill_null(True)

    def other(self) -> nw.Expr | None:
        """For string columns, the non-positive label of each row (null elsewhere)."""
        if self.kind != "string":
            return None
        c = self._col()
        return nw.when(c != self.positive).then(c)


def label_rule(column: str, dtype: Any, positive: Any = None) -> LabelRule:
    """The rule reading ``column`` (of narwhals ``dtype``) as a vote.

    ``positive`` names the positive label of string columns. Boolean and numeric columns are
    read as ``True``/``1`` positive, unless ``positive`` is ``0`` or ``False``.

    Examples
    --------
    >>> import narwhals as nw
    >>> label_rule("y", nw.Int64()), label_rule("y", nw.String(), "sick").kind
    (LabelRule(column='y', kind='integer', positive=1), 'string')
    """
    numeric_positive = (isinstance(positive, (bool, int, float, np.bool_, np.integer, np.floating))
                        and positive in (0, 1))
    if dtype == nw.Boolean:
        return LabelRule(column, "bool", bool(positive) if numeric_positive else True)
    if dtype.is_numeric():
        return LabelRule(column, "integer" if dtype.is_integer() else "float",
                         int(positive) if numeric_positive else 1)
    if dtype in (nw.String, nw.Categorical, nw.Enum):
        if not isinstance(positive, str):
            raise DataError(
                f"column {column!r} holds strings: pass positive= naming its positive label "
                f"(got positive={positive!r})"
            )
        return LabelRule(column, "string", positive)
    if dtype == nw.Object:
        raise DataError(
            f"column {column!r} holds Python objects (mixed types, or None among booleans); "
            f"convert it to bool, 0/1 numbers or strings (pandas: df[{column!r}].convert_dtypes())"
            " and fill or drop rows with no label"
        )
    raise DataError(f"column {column!r} has type {dtype}; truth and prediction columns must "
                    f"hold {_FORMS}")


def _plain(value: Any) -> Any:
    """A plain Python value; every engine's null (None, NaN, pandas NA) becomes ``None``."""
    return None if is_missing(value) else nw.to_py_scalar(value)


def is_missing(value: Any) -> bool:
    """Whether ``value`` is a null of some engine (None, NaN, pandas NA / NaT)."""
    if value is None or type(value).__name__ in ("NAType", "NaTType"):
        return True
    try:
        return bool(value != value)
    except (TypeError, ValueError):
        return False


def show_values(values: Iterable[Any], more: bool = False) -> str:
    """Values as plain Python reprs, sorted, ``None`` last, with ``...`` when there are more."""
    plain = sorted({repr(_plain(v)) for v in values}, key=lambda r: (r == "None", r))
    return ", ".join(plain) + (", ..." if more else "")


def _sample(frame: Frame, column: str, where: nw.Expr | None) -> tuple[list[Any], bool]:
    try:
        query = frame.filter(where) if where is not None else frame
        found = collect(query.select(nw.col(column)).unique().head(SHOWN + 1), "listing labels")
    except Exception as exc:  # eager engines fail at once, outside collect
        raise _Unreadable from exc
    values = found.get_column(column).to_list()
    return values[:SHOWN], len(values) > SHOWN


def _rows(frame: Frame, where: nw.Expr) -> int:
    try:
        got = collect(frame.filter(where).select(nw.len()), "counting bad labels")
    except Exception as exc:
        raise _Unreadable from exc
    return int(got.item(0, 0))


class _Unreadable(Exception):
    """A diagnostic query the engine cannot run (the caller's error stands)."""


def raise_label_errors(
    frame: Frame, rules: Iterable[LabelRule], *, any_bad: bool, others: Mapping[str, set[Any]]
) -> None:
    """Raise a :class:`DataError` for the first column that is not binary labels.

    ``any_bad`` says the counting query flagged bad rows; ``others`` holds, per string column,
    the non-positive labels it found. Follow-up queries fetch a few offending values; a
    column the engine cannot even inspect is skipped (the caller then raises its own error).
    """
    for rule in rules:
        try:
            _check_column(frame, rule, any_bad, others)
        except _Unreadable:
            continue


def _check_column(frame: Frame, rule: LabelRule, any_bad: bool,
                  others: Mapping[str, set[Any]]) -> None:
    c = rule.column
    if any_bad:
        rows = _rows(frame, rule.bad())
        if rows:
            values, more = _sample(frame, c, rule.bad())
            shown = show_values(values, more)
            if all(is_missing(v) for v in values):
                raise DataError(f"column {c!r} has {rows} row(s) with no label (null or "
                                "NaN); fill or drop them before counting")
            raise DataError(f"column {c!r} must hold {_expected(rule)}; found {shown} in "
                            f"{rows} row(s)")
    labels = {_plain(v) for v in others.get(c, ())} - {None}
    if len(labels) > 1:
        values, more = _sample(frame, c, None)
        hint = (f"; is positive={rule.positive!r} spelled as in the data?"
                if rule.positive not in {_plain(v) for v in values} else "")
        raise DataError(
            f"column {c!r} must hold two labels, the positive {rule.positive!r} and one "
            f"other; found {show_values(values, more)}{hint}"
        )


def _expected(rule: LabelRule) -> str:
    if rule.kind in ("integer", "float"):
        return f"0/1 (positive {rule.positive}) or True/False, not scores or other numbers"
    return _FORMS


def votes_from_values(values: Any, name: str = "predictions", positive: Any = None) -> np.ndarray:
    """An array-like of labels as a boolean vote array, with the same rules as columns.

    Examples
    --------
    >>> votes_from_values([1, 0, 1]).tolist()
    [True, False, True]
    >>> votes_from_values(["sick", "well"], positive="sick").tolist()
    [True, False]
    >>> votes_from_values([1, 0.5])
    Traceback (most recent call last):
    ...
    causalcost.errors.DataError: column 'predictions' must hold 0/1 (positive 1) or True/False, not scores or other numbers; found 0.5 in 1 row(s)
    """  # noqa: E501
    import pandas as pd

    array = np.asarray(values)
    if array.ndim != 1:
        raise DataError(f"{name} must be one-dimensional, got shape {array.shape}")
    if array.dtype == bool:
        negated = isinstance(positive, (bool, int, np.integer)) and positive == 0
        return ~array if negated else array
    series = pd.Series(array)
    if array.dtype == object:
        series = series.convert_dtypes()
    frame = nw.from_native(pd.DataFrame({name: series}))
    rule = label_rule(name, frame.schema[name], positive)
    flags = frame.select(rule.bad().alias("bad"), rule.vote().alias("vote"),
                         *([rule.other().alias("other")] if rule.kind == "string" else []))
    others = {}
    if rule.kind == "string":
        others[name] = set(flags.get_column("other").drop_nulls().unique().to_list())
    raise_label_errors(frame, [rule], any_bad=bool(flags.get_column("bad").any()), others=others)
    return flags.get_column("vote").to_numpy().astype(bool)
