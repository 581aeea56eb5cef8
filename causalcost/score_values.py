"""The one reader of scores: every score that enters causalcost passes here.

A score slot's system fuses numbers: the log's score columns, a candidate's scores, the
``y_score`` of a scikit-learn scorer. Whatever the entry (:func:`causalcost.forced_runs` on any
engine, :func:`causalcost.ensemble_runs`, :func:`causalcost.compare`,
:func:`causalcost.evaluate`, :func:`causalcost.backtest`, :func:`causalcost.system_scorer`,
:func:`~causalcost.pricing.scores.price_scores`, the command line), one rule decides what a
score is:

* **numbers**: integers, floats or booleans (read as 0 and 1). Text is refused (a CSV file's
  columns are text on disk and are parsed as numbers by the engine that reads the file; a text
  column of a data frame, or strings in a list, are refused), and so is anything else that is
  not a real number;
* **present and finite**: NaN, a missing value (``None``, a null) and ``+-inf`` are refused,
  naming the first such row;
* **in the rule's score range**: ``[0, 1]`` by default (:data:`PROBABILITIES`, a fusion of
  probabilities), up to floating-point rounding at its ends (:data:`ROUNDING`: a
  ``predict_proba`` may return ``1.0000000000000002``); a system fusing other scores (margins, log-odds) declares its range with
  ``score_range=(low, high)`` (either end may be infinite: then only finiteness is asked), and
  the sheet records it, so a candidate's scores are checked against the range its critical
  scores were computed for;
* **one per row, aligned**: as many scores as rows; a pandas Series is aligned on the rows'
  index (:func:`causalcost.rows.align_by_index`).

A refusal is a :class:`~causalcost.errors.ScoreValueError` (a
:class:`~causalcost.errors.DataError`) naming the scores, the first bad row (its index label,
or its position) and what it holds; where several rows are bad, the first in row order is
named, and within a row the first column in the models' order, so every entry names the same
cell.

Examples
--------
>>> read_scores([0.2, 0.9], what="scores").tolist()
[0.2, 0.9]
>>> read_scores([0.2, 1.7], what="scores")
Traceback (most recent call last):
...
causalcost.errors.ScoreValueError: scores: row 1 holds 1.7, outside the score range [0, 1]; scores of a fusion of probabilities lie in [0, 1]; a rule over other scores (margins, log-odds) declares its range: score_range=
"""  # noqa: E501

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from typing import Any

import numpy as np

from causalcost.errors import InputTypeError, ScoreValueError, ValidationError
from causalcost.rows import align_by_index

__all__ = ["PROBABILITIES", "ROUNDING", "as_score_range", "check_scores", "numeric_scores",
           "parse_text_scores", "read_score_vectors", "read_scores",
           "range_text"]

#: The default score range: a fusion of probabilities.
PROBABILITIES: tuple[float, float] = (0.0, 1.0)
#: How far past an end of the range a score may lie, relative to the end (at least this much
#: absolutely): rounding in the arithmetic that made it, never a score of another scale.
ROUNDING = 1e-9


def as_score_range(value: Any, what: str = "score_range") -> tuple[float, float]:
    """A declared score range as ``(low, high)`` floats with ``low < high`` (``None``: the
    default :data:`PROBABILITIES`); either end may be infinite, neither NaN.

    >>> as_score_range((-5, 5)), as_score_range(None)
    ((-5.0, 5.0), (0.0, 1.0))
    >>> as_score_range((1, 0))
    Traceback (most recent call last):
    ...
    causalcost.errors.ValidationError: score_range must be (low, high) with low < high, got (1, 0)
    """
    if value is None:
        return PROBABILITIES
    if isinstance(value, (str, bytes)) or not isinstance(value, (Sequence, np.ndarray)) \
            or len(value) != 2:
        raise InputTypeError(f"{what} must be a pair (low, high) of numbers, got {value!r}")
    ends = []
    for v in value:
        if isinstance(v, bool) or not isinstance(v, numbers.Real):
            raise InputTypeError(f"{what} must be a pair (low, high) of numbers, got {value!r}")
        ends.append(float(v))
    low, high = ends
    if math.isnan(low) or math.isnan(high) or not low < high:
        raise ValidationError(f"{what} must be (low, high) with low < high, got "
                              f"{tuple(value)!r}")
    return low, high


def range_text(score_range: tuple[float, float]) -> str:
    """``[0, 1]``, ``[-5, 5]``, ``(-inf, inf)``: a range as it is printed in messages."""
    low, high = score_range

    def end(v: float) -> str:
        return f"{v:g}" if math.isfinite(v) else ("-inf" if v < 0 else "inf")

    return f"{'[' if math.isfinite(low) else '('}{end(low)}, {end(high)}" \
           f"{']' if math.isfinite(high) else ')'}"


def _label(labels: Any, position: int) -> Any:
    if labels is None:
        return position
    label = labels[position]
    return label.item() if isinstance(label, np.generic) else label


def _where(what: str, cell: tuple[int, ...], labels: Any, columns: Sequence[Any] | None
           ) -> str:
    """``scores: row 3`` or ``score column 'b' on row 'x7'``: the cell a message names."""
    row = _label(labels, cell[0])
    if len(cell) == 1:
        return f"{what}: row {row!r}"
    if columns is not None:
        return f"score column {columns[cell[1]]!r} on row {row!r}"
    return f"{what}: row {row!r}, column {cell[1]}"


def numeric_scores(values: Any, what: str = "scores", labels: Any = None,
                   columns: Sequence[Any] | None = None) -> np.ndarray:
    """``values`` as a float array under the rule's first clause: numbers or booleans only.

    Text and other objects are refused naming the first cell; ``None`` and pandas' missing
    values become NaN (refused as missing by :func:`check_scores`).

    >>> numeric_scores([True, 0, 0.5]).tolist()
    [1.0, 0.0, 0.5]
    >>> numeric_scores(["0.3", "0.9"], what="scores['new']")
    Traceback (most recent call last):
    ...
    causalcost.errors.ScoreValueError: scores['new']: row 0 holds the text '0.3', not a number; give the scores as numbers (convert the column, e.g. pandas.to_numeric)
    """  # noqa: E501
    if hasattr(values, "to_numpy") and not isinstance(values, np.ndarray):
        kind = getattr(getattr(values, "dtype", None), "kind", "O")
        try:  # a numeric pandas column (nullable dtypes: missing as NaN); never text parsed
            values = values.to_numpy(dtype=float, na_value=np.nan) if kind in "biuf" else \
                values.to_numpy()
        except (TypeError, ValueError):
            values = values.to_numpy()
    arr = np.asarray(values)
    if arr.dtype.kind in "biuf":
        return arr.astype(float, copy=False)
    if arr.dtype.kind in "US" and not isinstance(values, np.ndarray):
        arr = np.asarray(values, dtype=object)  # numpy made text of a list's numbers too
    if arr.dtype.kind in "USO":
        flat = arr.reshape(-1)
        out = np.empty(flat.size, dtype=float)
        for i, v in enumerate(flat.tolist()):
            if v is None or (v.__class__.__name__ in ("NAType", "NaTType")):
                out[i] = np.nan
            elif isinstance(v, (bool, numbers.Real)):
                out[i] = float(v)
            else:
                cell = tuple(int(j) for j in np.unravel_index(i, arr.shape))
                shown = (f"the text {v!r}" if isinstance(v, (str, bytes)) else
                         f"{v!r} ({type(v).__name__})")
                raise ScoreValueError(
                    f"{_where(what, cell, labels, columns)} holds {shown}, not a number; give "
                    "the scores as numbers (convert the column, e.g. pandas.to_numeric)")
        return out.reshape(arr.shape)
    raise ScoreValueError(f"{what}: scores of dtype {arr.dtype} are not numbers; give the "
                          "scores as integers, floats or booleans")


def parse_text_scores(values: Any, what: str = "scores", labels: Any = None) -> np.ndarray:
    """Scores read from a text file (a CSV's cells are text on disk): each cell parsed as a
    number, an empty cell read as missing; a cell that is not a number is refused naming it.

    >>> parse_text_scores(["0.25", " 1", ""]).tolist()
    [0.25, 1.0, nan]
    >>> parse_text_scores(["0.25", "high"], "score column 'a'")
    Traceback (most recent call last):
    ...
    causalcost.errors.ScoreValueError: score column 'a': row 1 holds the text 'high', not a number; give the scores as numbers
    """  # noqa: E501
    flat = np.asarray(values, dtype=object).reshape(-1)
    out = np.empty(flat.size, dtype=float)
    for i, v in enumerate(flat.tolist()):
        text = "" if v is None else str(v).strip()
        try:
            out[i] = float(text) if text else np.nan
        except ValueError:
            raise ScoreValueError(f"{_where(what, (i,), labels, None)} holds the text {v!r}, "
                                  "not a number; give the scores as numbers") from None
    return out


def check_scores(arr: np.ndarray, what: str = "scores", *,
                 score_range: tuple[float, float] = PROBABILITIES, labels: Any = None,
                 columns: Sequence[Any] | None = None) -> np.ndarray:
    """Refuse missing, infinite and out-of-range scores in a float array (1-D: rows; 2-D:
    ``(rows, columns)``), naming the first bad cell in row order; ``arr`` is returned.

    >>> check_scores(np.array([[0.1, 0.2], [np.inf, 0.5]]), columns=["a", "b"])
    Traceback (most recent call last):
    ...
    causalcost.errors.ScoreValueError: score column 'a' on row 1 holds inf; scores must be finite numbers: drop or impute those rows
    """  # noqa: E501
    low, high = score_range
    with np.errstate(invalid="ignore"):
        bad = ~np.isfinite(arr)
        if math.isfinite(low):
            bad |= arr < low - ROUNDING * max(1.0, abs(low))
        if math.isfinite(high):
            bad |= arr > high + ROUNDING * max(1.0, abs(high))
    if not bad.any():
        return arr
    cell = tuple(int(i) for i in np.argwhere(bad)[0])
    value = float(arr[cell])
    where = _where(what, cell, labels, columns)
    count = int(bad.sum())
    more = f" (and {count - 1} other bad score(s))" if count > 1 else ""
    if math.isnan(value):
        raise ScoreValueError(f"{where} is missing (NaN or null){more}; every score must be a "
                              "number: drop or impute those rows")
    if math.isinf(value):
        raise ScoreValueError(f"{where} holds {value!r}{more}; scores must be finite numbers: "
                              "drop or impute those rows")
    raise ScoreValueError(
        f"{where} holds {value!r}{more}, outside the score range {range_text(score_range)}; "
        + ("scores of a fusion of probabilities lie in [0, 1]; a rule over other scores "
           "(margins, log-odds) declares its range: score_range=" if score_range == PROBABILITIES
           else
           "the rule's critical scores were computed for that range: give scores inside it"))


def read_scores(values: Any, what: str = "scores", *, rows: int | None = None,
                index: Any = None, against: str = "y_true",
                score_range: tuple[float, float] = PROBABILITIES) -> np.ndarray:
    """One column of scores read under the whole rule: aligned on ``index`` (a pandas Series),
    numbers only, ``rows`` of them, present, finite and in ``score_range``.

    Parameters
    ----------
    values : array-like or pandas.Series
        The scores, in the rows' order (or a Series on their index).
    what : str
        How messages name them (``"scores['new1']"``).
    rows : int, optional
        How many scores are expected.
    index : pandas.Index, optional
        The rows' labels: a Series is aligned on it, and messages name rows by it.
    against : str
        What the rows are, in messages (``"y_true"``, ``"the log"``).
    score_range : (float, float), default (0, 1)
        The range of the rule the scores are fed to.

    Returns
    -------
    numpy.ndarray
        The scores as float64, one per row.

    Raises
    ------
    ScoreValueError
        Text, missing, infinite or out-of-range scores, or another number of scores.
    DataError
        A Series whose index cannot be aligned.

    Examples
    --------
    >>> import pandas as pd
    >>> y = pd.Series([1, 0], index=["a", "b"])
    >>> read_scores(pd.Series([0.4, 0.9], index=["b", "a"]), index=y.index).tolist()
    [0.9, 0.4]
    >>> read_scores([0.1, float("nan")], "scores['x']", index=y.index)
    Traceback (most recent call last):
    ...
    causalcost.errors.ScoreValueError: scores['x']: row 'b' is missing (NaN or null); every score must be a number: drop or impute those rows
    """  # noqa: E501
    aligned = align_by_index(values, index, what, against=against)
    if np.isscalar(aligned) or aligned is None:
        raise ScoreValueError(f"{what} must be one score per row (an array), got "
                              f"{type(aligned).__name__} {aligned!r}")
    arr = numeric_scores(aligned, what, index)
    if arr.ndim != 1:
        raise ScoreValueError(f"{what} must be one score per row (one-dimensional), got shape "
                              f"{arr.shape}")
    if rows is not None and arr.size != rows:
        raise ScoreValueError(f"{what}: {arr.size} scores for {rows} rows of {against}; give "
                              f"one score per row, in {against}'s order (or as a pandas Series "
                              "on its index)")
    return check_scores(arr, what, score_range=score_range, labels=index)


def _vector_columns(values: Any, labels: Sequence[Any], what: str) -> Any:
    """A DataFrame's columns in the order of ``labels``: each label found once, by value or,
    for labels that are not text, by their text (a CSV's header ``"2"`` for the label 2)."""
    columns = list(values.columns)
    picked = []
    for label in labels:
        hits = [c for c in columns if c == label and type(c) is not bool]
        if not hits and not isinstance(label, str):
            hits = [c for c in columns if str(c) == str(label)]
        if len(hits) != 1:
            state = "no column" if not hits else f"{len(hits)} columns"
            raise ScoreValueError(
                f"{what}: {state} for the label {label!r}; a data frame of score vectors has "
                f"one column per label, named by the labels {list(labels)} (its columns are "
                f"{columns})")
        picked.append(hits[0])
    extra = [c for c in columns if c not in picked]
    if extra:
        raise ScoreValueError(f"{what}: columns {extra} are not labels of the system "
                              f"{list(labels)}; give one column per label and nothing else")
    return values[picked]


def read_score_vectors(values: Any, what: str = "scores", *, labels: Sequence[Any],
                       rows: int | None = None, index: Any = None, against: str = "y_true",
                       score_range: tuple[float, float] = PROBABILITIES) -> np.ndarray:
    """One probability vector per row (a K-label score slot's output) read under the rule.

    The same rule as :func:`read_scores`, cell by cell, plus the shape: ``(rows, K)`` with
    one column per label, in the order of ``labels`` (a data frame's columns are matched to
    the labels by name, so their order does not matter; an array's columns are taken in
    label order, as ``predict_proba``'s are in ``classes_`` order). With the default range
    (probabilities) every row must sum to 1 up to 1e-6: a row that does not is not a
    probability vector (a column missing, or scores of another scale; declare
    ``score_range`` for those).

    Parameters
    ----------
    values : array-like of shape (rows, K) or pandas.DataFrame
        The vectors. A DataFrame's rows are aligned on ``index`` like a Series'.
    what : str
        How messages name them.
    labels : sequence
        The system's K labels, in the order of the columns.
    rows, index, against, score_range
        As for :func:`read_scores`.

    Returns
    -------
    numpy.ndarray of float, shape (rows, K)

    Raises
    ------
    ScoreValueError
        Text, missing, infinite or out-of-range cells (the first in row order is named),
        another shape, a row of probabilities that does not sum to 1, a data frame whose
        columns are not the labels.

    Examples
    --------
    >>> read_score_vectors([[0.2, 0.5, 0.3]], labels=["a", "b", "c"]).tolist()
    [[0.2, 0.5, 0.3]]
    >>> read_score_vectors([[0.2, 0.5]], labels=["a", "b", "c"])
    Traceback (most recent call last):
    ...
    causalcost.errors.ScoreValueError: scores: 2 columns for the K = 3 labels ['a', 'b', 'c']; give one probability per label, in that order (predict_proba's columns in classes_ order)
    """  # noqa: E501
    import pandas as pd

    labels = list(labels)
    if isinstance(values, pd.DataFrame):
        values = _vector_columns(values, labels, what)
        if index is not None and not values.index.equals(index):
            if not (index.is_unique and values.index.is_unique
                    and len(values.index) == len(index) and index.isin(values.index).all()):
                raise ScoreValueError(
                    f"{what} is a data frame whose index does not match {against}'s; align it "
                    f"({what}.reindex({against}.index)) or pass an array in the same row order")
            values = values.reindex(index)
        elif index is None and not (isinstance(values.index, pd.RangeIndex)
                                    and values.index.equals(pd.RangeIndex(len(values)))):
            raise ScoreValueError(
                f"{what} is a data frame with its own index, but {against} has no index to "
                f"align it with: pass {what}.to_numpy() in {against}'s row order")
        values = values.to_numpy()
    if np.isscalar(values) or values is None:
        raise ScoreValueError(f"{what} must be one vector per row (a 2-D array), got "
                              f"{type(values).__name__} {values!r}")
    arr = numeric_scores(values, what, index, columns=labels)
    if arr.ndim != 2:
        raise ScoreValueError(f"{what} must be one vector of K = {len(labels)} probabilities "
                              f"per row (shape (rows, {len(labels)})), got shape {arr.shape}")
    if arr.shape[1] != len(labels):
        raise ScoreValueError(
            f"{what}: {arr.shape[1]} columns for the K = {len(labels)} labels {labels}; give "
            "one probability per label, in that order (predict_proba's columns in classes_ "
            "order)")
    if rows is not None and arr.shape[0] != rows:
        raise ScoreValueError(f"{what}: {arr.shape[0]} vectors for {rows} rows of {against}; "
                              f"give one vector per row, in {against}'s order")
    check_scores(arr, what, score_range=score_range, labels=index,
                 columns=[f"{what}[{label!r}]" for label in labels])
    if tuple(score_range) == PROBABILITIES and arr.size:
        off = np.abs(arr.sum(axis=1) - 1.0) > 1e-6
        if off.any():
            row = int(np.argmax(off))
            raise ScoreValueError(
                f"{what}: row {_label(index, row)!r} sums to {float(arr[row].sum())!r}, not 1"
                f"{f' (and {int(off.sum()) - 1} other row(s))' if off.sum() > 1 else ''}; a "
                "probability vector has one entry per label summing to 1 (is a column "
                "missing?); scores of another scale declare score_range=")
    return arr
