"""Truth and prediction columns as binary votes, validated on the engine that holds them.

A column is read as a vote (``True`` = positive) when it holds

* booleans (``True`` is positive, ``False`` with ``positive=False`` / ``0`` / ``"false"``),
* the numbers 0 and 1 (integer or float dtype; ``1`` is positive, ``0`` with ``positive=0`` /
  ``False`` / ``"0"``),
* text spelling 0/1 or true/false (``"1"``, ``"0"``, ``"1.0"``, ``"0.0"``, ``"true"``,
  ``"false"`` in lower, title or upper case): read as those numbers and booleans, so a CSV
  file read as text counts as the same table typed; or
* strings (or categories) with ``positive=`` naming the positive label; every other value of
  the column must then be one single negative label.

``positive=`` is never reinterpreted: a boolean spelling (``0``, ``1``, ``True``, ``False``
or their text) picks the positive side of bool, 0/1 and 0/1-or-true/false text columns, and
is the only label such columns take; any other string names the positive label of string
columns and leaves bool and 0/1 columns to their convention (``True`` / ``1`` positive); a
string column may not mix that label with ``1`` / ``true`` spellings. A value that can be
neither (``positive=2``, ``positive=0.5``) is refused, and so is a named label that no column
of the log holds (a 0/1 truth and 0/1 predictions with ``positive="7"``; a score log's truth,
its one label column): it is never dropped in favour of ``1``
(:func:`refuse_unknown_positive`).

Anything else is a :class:`~causalcost.errors.DataError` naming the column and a few of the
offending values: nulls, empty strings, a third label, fractional numbers such as 0.5 or
scores. Rows are never dropped silently. The checks run as expressions inside the counting
query (:mod:`causalcost.data.counting`); only when one fails do small follow-up queries (a
filtered ``unique().head()``) fetch the values to show.
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
           "is_missing", "refuse_unknown_positive", "TRUE_TEXT", "FALSE_TEXT"]

#: Offending values quoted in an error message.
SHOWN = 5
_FORMS = "bool, 0/1 numbers, or strings with positive= naming the positive label"
#: Text read as the vote ``True`` / ``False`` (the 0/1 and true/false spellings).
TRUE_TEXT = ("1", "1.0", "true", "True", "TRUE")
FALSE_TEXT = ("0", "0.0", "false", "False", "FALSE")
_TEXT = TRUE_TEXT + FALSE_TEXT


@dataclass(frozen=True)
class LabelRule:
    """How one column is read as a vote.

    Attributes
    ----------
    column : str
    kind : {"bool", "integer", "float", "text", "string"}
        ``"text"``: a string column read through the 0/1 and true/false spellings
        (:data:`TRUE_TEXT`, :data:`FALSE_TEXT`); ``"string"``: a string column with a named
        positive label (0/1 and true/false spellings still read as such when the column
        holds nothing else).
    positive : object
        The label counted as positive (``True``, ``False``, ``1``, ``0`` or a string).
    """

    column: str
    kind: str
    positive: Any

    def _col(self) -> nw.Expr:
        c = nw.col(self.column)
        return c.cast(nw.String) if self.kind in ("text", "string") else c

    def vote(self, *, fill: bool = True) -> nw.Expr:
        """``True`` where the row's label is positive (only meaningful where :meth:`valid`);
        nulls become ``False`` unless ``fill=False``."""
        c = self._col()
        if self.kind == "bool":
            vote = c if self.positive else ~c
        elif self.kind == "text":
            vote = c.is_in(list(TRUE_TEXT if self.positive else FALSE_TEXT))
        elif self.kind == "string":
            vote = (c == self.positive) | c.is_in(list(TRUE_TEXT))
        else:
            vote = c == self.positive
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
        if self.kind == "text":
            return c.is_in(list(_TEXT))
        if self.kind == "string":
            return ~c.is_null() & (c != "")
        return ~c.is_null()

    def bad(self) -> nw.Expr:
        """``True`` where the value cannot be a label (null, a number other than 0 and 1)."""
        return (~self.valid()).fill_null(True)

    def other(self) -> nw.Expr | None:
        """For string columns, the non-positive label of each row (null elsewhere)."""
        if self.kind != "string":
            return None
        c = self._col()
        return nw.when(self.valid().fill_null(False) & (c != self.positive)).then(c)

    def flags(self) -> dict[str, nw.Expr]:
        """For string columns, row flags whose maximum decides how the column reads:
        ``"named"``, a label that is not a 0/1 or true/false spelling; ``"true_text"``, a
        ``1`` / ``true`` spelling (counted positive, so it may not sit beside a named label)."""
        if self.kind != "string":
            return {}
        c = self._col()
        return {"named": (self.valid() & ~c.is_in(list(_TEXT))).fill_null(False),
                "true_text": c.is_in(list(TRUE_TEXT)).fill_null(False)}


def _boolean(positive: Any) -> bool | None:
    """``positive`` as the vote it names when it is a boolean spelling, else ``None``."""
    if isinstance(positive, (bool, np.bool_)):
        return bool(positive)
    if isinstance(positive, (int, float, np.integer, np.floating)) and positive in (0, 1):
        return bool(positive == 1)
    if isinstance(positive, str) and positive in _TEXT:
        return positive in TRUE_TEXT
    return None


def label_rule(column: str, dtype: Any, positive: Any = None) -> LabelRule:
    """The rule reading ``column`` (of narwhals ``dtype``) as a vote.

    ``positive`` names the positive label: a boolean spelling (``True``, ``False``, ``1``,
    ``0``, ``"1"``, ``"false"``, ...) picks the positive side of bool, 0/1 and 0/1 text
    columns; another string names the positive label of string columns (bool and 0/1 columns
    then keep ``True`` / ``1`` positive). ``None`` means ``True`` / ``1``.

    Examples
    --------
    >>> import narwhals as nw
    >>> label_rule("y", nw.Int64()), label_rule("y", nw.String(), "sick").kind
    (LabelRule(column='y', kind='integer', positive=1), 'string')
    >>> label_rule("y", nw.Boolean(), "0"), label_rule("y", nw.String())
    (LabelRule(column='y', kind='bool', positive=False), LabelRule(column='y', kind='text', positive=True))
    >>> label_rule("y", nw.Int64(), 2)
    Traceback (most recent call last):
    ...
    causalcost.errors.DataError: positive=2 is not a label of column 'y' (0/1 numbers): pass 1 or 0 (True or False), or a string naming the positive label of string columns
    """  # noqa: E501
    side = _boolean(positive)
    if positive is not None and side is None and not isinstance(positive, str):
        what = ("booleans" if dtype == nw.Boolean else "0/1 numbers" if dtype.is_numeric()
                else "labels")
        raise DataError(f"positive={positive!r} is not a label of column {column!r} ({what}): "
                        "pass 1 or 0 (True or False), or a string naming the positive label "
                        "of string columns")
    if dtype == nw.Boolean:
        return LabelRule(column, "bool", True if side is None else side)
    if dtype.is_numeric():
        return LabelRule(column, "integer" if dtype.is_integer() else "float",
                         1 if side is None or side else 0)
    if dtype in (nw.String, nw.Categorical, nw.Enum):
        if positive is None or side is not None:
            return LabelRule(column, "text", True if side is None else side)
        return LabelRule(column, "string", positive)
    if dtype == nw.Object:
        raise DataError(
            f"column {column!r} holds Python objects (mixed types, or None among booleans); "
            f"convert it to bool, 0/1 numbers or strings (pandas: df[{column!r}].convert_dtypes())"
            " and fill or drop rows with no label"
        )
    raise DataError(f"column {column!r} has type {dtype}; truth and prediction columns must "
                    f"hold {_FORMS}")


def refuse_unknown_positive(truth: str, dtypes: Mapping[str, Any], positive: Any,
                            frame: Frame | None = None) -> None:
    """Refuse a ``positive=`` that names no label of the log: the truth column ``truth`` and
    the other label columns of ``dtypes`` (column -> narwhals dtype; the truth among them).

    A string that is not a boolean spelling (``"sick"``, ``"7"``) names the positive label of
    string columns; bool and 0/1 columns keep ``True`` / ``1`` positive (a log may mix a 0/1
    truth with string predictions). A bool or 0/1 column cannot hold the label, and neither
    can a text column of only the 0/1 and true/false spellings (a CSV read as text). When no
    column of the log holds it (a score log has one label column, its truth), the label the
    caller gave would be silently dropped, ``1`` counted positive instead: refused. With
    ``frame``, text columns are looked at (one query: does one hold a label other than those
    spellings?).

    Examples
    --------
    >>> import narwhals as nw, pandas as pd
    >>> refuse_unknown_positive("y", {"y": nw.String()}, "sick")  # names a string label
    >>> refuse_unknown_positive("y", {"y": nw.Int64(), "m": nw.String()}, "sick")  # m's
    >>> refuse_unknown_positive("y", {"y": nw.Int64()}, "7")
    Traceback (most recent call last):
    ...
    causalcost.errors.DataError: positive='7' is not a label of the truth column 'y' (0/1 numbers, 1 positive): leave positive= out for 1 as the positive label, pass positive=0 for 0, or name the truth column that holds '7'
    >>> text = nw.from_native(pd.DataFrame({"y": ["1", "0", "1"]}))
    >>> refuse_unknown_positive("y", {"y": nw.String()}, "sick", text)
    Traceback (most recent call last):
    ...
    causalcost.errors.DataError: positive='sick' is not a label of the truth column 'y' (0/1 or true/false text, 1 positive): leave positive= out for 1 as the positive label, pass positive=0 for 0, or name the truth column that holds 'sick'
    """  # noqa: E501
    if positive is None or not isinstance(positive, str) or _boolean(positive) is not None:
        return
    try:
        rules = {c: label_rule(c, dtype, positive) for c, dtype in dtypes.items()}
    except DataError:
        return  # a column that is not labels: the reading itself refuses it, in its words
    named = [r for r in rules.values() if r.kind == "string"]
    if named and frame is not None:
        try:
            found = collect(frame.select(*(r.flags()["named"].max().alias(f"__named{i}")
                                           for i, r in enumerate(named))),
                            "reading the columns' labels").row(0)
        except Exception:  # the counting query names what the engine cannot read
            return
        if any(v is None or is_missing(v) or bool(v) for v in found):
            return  # a named label (or nothing to look at): the string convention holds
        rules = {c: LabelRule(c, "text", True) if r.kind == "string" else r
                 for c, r in rules.items()}
    elif named:
        return
    kind = rules[truth].kind
    what, one, zero = {"bool": ("booleans, True positive", "True", "False"),
                       "text": ("0/1 or true/false text, 1 positive", "1", "0")}.get(
        kind, ("0/1 numbers, 1 positive", "1", "0"))
    others = " nor any other column of the log" if len(rules) > 1 else ""
    raise DataError(f"positive={positive!r} is not a label of the truth column {truth!r} "
                    f"({what}){others}: leave positive= out for {one} as the positive label, "
                    f"pass positive={zero} for {zero}, or name the truth column that holds "
                    f"{positive!r}")


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
    frame: Frame, rules: Iterable[LabelRule], *, any_bad: bool, others: Mapping[str, set[Any]],
    flags: Mapping[str, Mapping[str, bool]] | None = None,
) -> None:
    """Raise a :class:`DataError` for the first column that is not binary labels.

    ``any_bad`` says the counting query flagged bad rows; ``others`` holds, per string column,
    the non-positive labels it found, and ``flags`` whether any row raised each of the
    column's :meth:`LabelRule.flags`. Follow-up queries fetch a few offending values; a
    column the engine cannot even inspect is skipped (the caller then raises its own error).
    """
    for rule in rules:
        try:
            _check_column(frame, rule, any_bad, others, (flags or {}).get(rule.column))
        except _Unreadable:
            continue


def _number(value: Any) -> bool:
    try:
        float(value)
    except (TypeError, ValueError):
        return False
    return True


def _empty(value: Any) -> bool:
    return is_missing(value) or (isinstance(value, str) and value == "")


def _check_column(frame: Frame, rule: LabelRule, any_bad: bool,
                  others: Mapping[str, set[Any]], flags: Mapping[str, bool] | None) -> None:
    c = rule.column
    if any_bad:
        rows = _rows(frame, rule.bad())
        if rows:
            values, more = _sample(frame, c, rule.bad())
            shown = show_values(values, more)
            if all(_empty(v) for v in values):
                text = any(_empty(v) and not is_missing(v) for v in values)
                what = "null, NaN or empty text" if text else "null or NaN"
                raise DataError(f"column {c!r} has {rows} row(s) with no label ({what}); fill "
                                "or drop them before counting")
            if rule.kind == "text" and all(_number(v) for v in values if not _empty(v)):
                raise DataError(f"column {c!r} must hold 0/1 (positive {int(rule.positive)}) "
                                "or true/false, not scores or other numbers; found "
                                f"{shown} in {rows} row(s)")
            if rule.kind == "text":
                raise DataError(f"column {c!r} holds strings: pass positive= naming its "
                                "positive label (without one only 0/1 and true/false are "
                                f"labels); found {shown} in {rows} row(s)")
            raise DataError(f"column {c!r} must hold {_expected(rule)}; found {shown} in "
                            f"{rows} row(s)")
    if rule.kind != "string":
        return
    if flags is not None and not flags.get("named", True):
        return  # 0/1 and true/false spellings only: read as such
    if flags is not None and flags.get("true_text"):
        values, more = _sample(frame, c, None)
        raise DataError(
            f"column {c!r} mixes the labels of positive={rule.positive!r} with 1/true "
            f"spellings; found {show_values(values, more)}: it must hold {rule.positive!r} and "
            "one other label, or only 0/1 and true/false"
        )
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


def votes_from_values(values: Any, name: str = "predictions", positive: Any = None, *,
                      truth: bool = False) -> np.ndarray:
    """An array-like of labels as a boolean vote array, with the same rules as columns.

    With ``truth=True`` the values are a truth column, which must hold the label ``positive``
    names (:func:`refuse_unknown_positive`).

    Examples
    --------
    >>> votes_from_values([1, 0, 1]).tolist()
    [True, False, True]
    >>> votes_from_values(["sick", "well"], positive="sick").tolist()
    [True, False]
    >>> votes_from_values([1, 0, 1], positive="0").tolist()
    [False, True, False]
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
        if truth:
            refuse_unknown_positive(name, nw.Boolean(), positive)
        rule = label_rule(name, nw.Boolean(), positive)
        return array.copy() if rule.positive else ~array
    if array.dtype.kind in "US":
        array = array.astype(str).astype(object)
    series = pd.Series(array)
    if array.dtype == object:
        series = series.convert_dtypes()
    frame = nw.from_native(pd.DataFrame({name: series}))
    if truth:
        refuse_unknown_positive(name, {name: frame.schema[name]}, positive, frame)
    rule = label_rule(name, frame.schema[name], positive)
    extra = rule.flags()
    flags = frame.select(rule.bad().alias("bad"), rule.vote().alias("vote"),
                         *([rule.other().alias("other")] if rule.kind == "string" else []),
                         *(e.alias(f"flag_{k}") for k, e in extra.items()))
    others = {}
    if rule.kind == "string":
        others[name] = set(flags.get_column("other").drop_nulls().unique().to_list())
    found = {name: {k: bool(flags.get_column(f"flag_{k}").any()) for k in extra}}
    raise_label_errors(frame, [rule], any_bad=bool(flags.get_column("bad").any()), others=others,
                       flags=found if extra else None)
    return flags.get_column("vote").to_numpy().astype(bool)
