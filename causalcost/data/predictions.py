"""A confusion matrix from predictions, for any number of labels: one reader.

:func:`count_confusion` reads ``(y_true, y_pred)`` as arrays; :func:`confusion_from_predictions`
reads two columns of a data frame (on the engine holding it); :class:`PredictionReader` reads
``y_true`` once and counts many candidates' predictions against it (what
:func:`causalcost.evaluation.candidates.confusions_from_predictions` uses). The rules, the
same everywhere:

* **Rows.** Two pandas Series are paired by index: a permuted index is aligned, indexes with
  other labels (or repeated ones) are refused; anything else is paired by position, and the
  lengths must agree.
* **Labels given** (``labels=[...]``, K >= 2, in row order): every value is matched to a label
  by value (``2`` is the label ``2``) or else by name (``"2"`` or ``2.0`` is the label named
  ``"2"``); a value that is neither, a null, or two values that read as the same label
  (``1`` and ``"1"``) are refused, naming the value. The confusion's labels are the names.
* **Binary** (no ``labels``, or ``positive=`` given): the label rules of the forced runs
  (:mod:`causalcost.data.labels`): bool, 0/1 or their text, or strings with ``positive=``
  naming the positive label, which is never guessed. The confusion has labels ``("P", "N")``.
* **No labels and more than two values** (and no ``positive``): the labels are the sorted
  union of the values found in ``y_true`` and the predictions.

:func:`confusion_at_threshold` cuts scores at a threshold (binary by nature).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import narwhals as nw
import numpy as np

from causalcost.confusion import Confusion, check_labels
from causalcost.data.counting import count_votes
from causalcost.data.frames import (
    Frame,
    as_frame,
    collect,
    engine_error,
    fills_nulls,
    require_columns,
)
from causalcost.data.frames import (
    align_by_index as align_series,
)
from causalcost.data.labels import label_rule, votes_from_values
from causalcost.errors import DataError, InputTypeError, ValidationError

__all__ = ["PredictionReader", "align_series", "confusion_at_threshold",
           "confusion_from_predictions", "count_confusion", "count_groups", "label_values"]

_LEN = "__causalcost_len"


# ------------------------------------------------------------------------------ labels
def label_values(labels: Iterable[Any], positive: Any = None) -> tuple[Any, ...]:
    """The labels as plain Python values (numpy scalars unwrapped), distinct by name, the
    ``positive`` one first when given (two labels only).

    >>> label_values(["well", "sick"], positive="sick")
    ('sick', 'well')
    """
    if isinstance(labels, (str, bytes)) or not isinstance(labels, Iterable):
        raise InputTypeError(f"labels must be a list of the K labels, got "
                             f"{type(labels).__name__} {labels!r}")
    values = tuple(v.item() if isinstance(v, np.generic) else v for v in labels)
    if len(values) < 2:
        raise ValidationError(f"labels must name at least two labels, got {list(values)}")
    names = check_labels(values, len(values), "labels")
    for v in values:
        try:
            hash(v)
        except TypeError:
            raise InputTypeError(f"labels must be strings or numbers, got {v!r}") from None
    if positive is None:
        return values
    if len(values) != 2:
        raise ValidationError(f"positive={positive!r} names the positive one of two labels; with "
                              f"{len(values)} labels give labels= alone (rows and columns follow "
                              "its order)")
    first = _match(positive, values, names)
    if first is None:
        raise ValidationError(f"positive={positive!r} is not one of the labels {list(values)}")
    return (values[first], values[1 - first])


def _name(value: Any) -> str:
    """A value's name: ``str``, with integral floats written as integers (``2.0`` is ``"2"``)."""
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        return str(int(value))
    return str(value)


def _match(value: Any, labels: tuple[Any, ...], names: tuple[str, ...]) -> int | None:
    """The position of ``value`` among ``labels``: by value (a string only equals a string and
    a bool a bool), else by name."""
    for i, label in enumerate(labels):
        if isinstance(value, str) != isinstance(label, str) or (
                isinstance(value, (bool, np.bool_)) != isinstance(label, bool)):
            continue
        try:
            if label == value:
                return i
        except (TypeError, ValueError):
            continue
    name = _name(value)
    return names.index(name) if name in names else None


def _plain(values: np.ndarray) -> list[Any]:
    return [v.item() if isinstance(v, np.generic) else v for v in values]


def _sorted(values: list[Any]) -> list[Any]:
    """Sorted; values of mixed types as numbers first (by value), then the rest by text.

    >>> _sorted(["b", 10, 2.5, "a"])
    [2.5, 10, 'a', 'b']
    """
    try:
        return sorted(values)
    except TypeError:
        def key(v: Any) -> tuple[int, float, str]:
            if isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool):
                return (0, float(v), "")
            return (1, 0.0, str(v))
        return sorted(values, key=key)


def _factorize(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Codes and distinct values (nulls coded -1); numpy text arrays by sorting (faster than
    pandas' hashing of their object form)."""
    if values.dtype.kind in "US":
        uniques, codes = np.unique(values, return_inverse=True)
        return codes.ravel(), uniques.astype(object)
    if values.dtype.kind in "iub" and values.size:
        low, high = int(values.min()), int(values.max())
        if high - low < 1 << 16:  # small integer range: a table, no hashing
            shifted = values.astype(np.int64) - low
            present = np.flatnonzero(np.bincount(shifted))
            table = np.zeros(high - low + 1, dtype=np.int64)
            table[present] = np.arange(len(present))
            return table[shifted], (present + low).astype(values.dtype)
    import pandas as pd

    return pd.factorize(values, use_na_sentinel=True)


class _Labels:
    """K labels and how values are matched to them (by value, else by name)."""

    def __init__(self, labels: Iterable[Any], positive: Any = None) -> None:
        self.values = label_values(labels, positive)
        self.names = check_labels(self.values, len(self.values), "labels")
        self._known: dict[tuple[Any, ...], np.ndarray] = {}
        self._text = all(isinstance(v, str) for v in self.values)

    def codes(self, values: np.ndarray, what: str, weights: np.ndarray | None = None,
              ) -> np.ndarray:
        """The label index of each value; refuses nulls, unknown values and two values that
        read as the same label. ``weights``: rows per value (for the counts in messages)."""
        if self._text and values.dtype.kind == "U" and len(self.values) <= 32:
            direct = np.full(len(values), -1, dtype=np.int64)
            for i, label in enumerate(self.values):  # a few vectorised comparisons, no sort
                direct[values == label] = i
            if (direct >= 0).all():
                return direct
        codes, uniques = _factorize(values)

        def rows(mask: np.ndarray) -> int:
            return int(weights[mask].sum()) if weights is not None else int(mask.sum())

        if (codes < 0).any():
            raise DataError(f"{what} has {rows(codes < 0)} row(s) with no label (null or NaN); "
                            "fill or drop them")
        key = (values.dtype.str, *_plain(uniques))
        try:
            return self._known[key][codes]
        except (KeyError, TypeError):
            pass
        found = [_match(v, self.values, self.names) for v in _plain(uniques)]
        for i, (value, at) in enumerate(zip(_plain(uniques), found)):
            if at is None:
                raise DataError(
                    f"{what} holds {value!r} ({rows(codes == i)} row(s)), which is not one of "
                    f"the labels {list(self.values)}; give labels= every value it holds, or "
                    "clean it")
        if len(set(found)) < len(found):
            at = next(a for a in found if found.count(a) > 1)
            twins = [v for v, a in zip(_plain(uniques), found) if a == at]
            raise DataError(f"{what} holds both {twins[0]!r} and {twins[1]!r}, which read as the "
                            f"same label {self.names[at]!r}: use one spelling per label")
        mapped = np.asarray(found, dtype=np.int64)
        try:
            self._known[key] = mapped
        except TypeError:  # values that cannot be hashed as a key
            pass
        return mapped[codes]

    @classmethod
    def found(cls, arrays: Sequence[tuple[str, np.ndarray]]) -> _Labels | None:
        """The sorted union of the values of ``arrays`` when there are more than two (None
        otherwise: the binary rules apply)."""
        uniques: list[Any] = []
        for _, values in arrays:
            if values.dtype.kind in "iub" and values.size:
                low, high = values.min(), values.max()
                if high.item() - low.item() <= 1:  # the values are exactly low and high
                    uniques += _plain(np.unique([low, high]))
                    continue
            uniques += _plain(_factorize(values)[1])  # nulls are refused when counting
        distinct = list(dict.fromkeys(uniques))  # hash equality: 1 and 1.0 are one value
        if len(distinct) <= 2:
            return None
        names = [str(v) for v in distinct]
        if len(set(names)) < len(names):
            twice = next(n for n in names if names.count(n) > 1)
            shown = [v for v, n in zip(distinct, names) if n == twice]
            raise DataError(f"the values hold both {shown[0]!r} and {shown[1]!r}, which read as "
                            f"the same label {twice!r}: use one spelling per label, or give "
                            "labels=")
        return cls(_sorted(distinct))


# -------------------------------------------------------------------------------- rows
def _values(values: Any, what: str) -> np.ndarray:
    """A one-dimensional numpy array of labels (pandas Series and arrays keep their dtype)."""
    if isinstance(values, np.ndarray):
        array = values
    elif hasattr(values, "to_numpy") and hasattr(values, "index"):
        array = values.to_numpy()
    elif isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise DataError(f"{what} must be a sequence of labels (one per row), got "
                        f"{type(values).__name__}")
    else:
        items = list(values)
        array = np.empty(len(items), dtype=object)
        array[:] = items
    if array.ndim != 1:
        raise DataError(f"{what} must be one-dimensional (one label per row), got shape "
                        f"{array.shape}")
    return array


def _aligned(truth: Any, values: Any, what: str) -> Any:
    """``values`` in ``truth``'s row order when both are pandas Series (a Series against
    rows without an index: only with the default index); else as given."""
    import pandas as pd

    return align_series(values, truth.index if isinstance(truth, pd.Series) else None, what)


class PredictionReader:
    """``y_true`` read once; :meth:`confusion` counts one candidate's predictions against it.

    Parameters
    ----------
    y_true : array-like or pandas Series
        The true class of each row.
    predictions : iterable of array-like, optional
        Every candidate's predictions, looked at only to find the labels when neither
        ``labels`` nor ``positive`` is given (more than two values: their sorted union).
    labels : sequence, optional
        The K labels in row order.
    positive : optional
        The positive label of two (see the module).

    Examples
    --------
    >>> reader = PredictionReader(["a", "b", "c", "c"], labels=["a", "b", "c"])
    >>> reader.confusion(["a", "c", "c", "b"]).to_numpy().tolist()
    [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 1.0, 1.0]]
    """

    def __init__(self, y_true: Any, predictions: Iterable[Any] = (), *,
                 labels: Sequence[Any] | None = None, positive: Any = None) -> None:
        self.y_true = y_true
        truth = _values(y_true, "y_true")
        self.rows = len(truth)
        self._votes: dict[tuple[Any, ...], np.ndarray] = {}
        if labels is not None:
            self.labels: _Labels | None = _Labels(labels, positive)
        elif positive is None:
            arrays = [("y_true", truth)]
            arrays += [("predictions", _values(p, "predictions")) for p in predictions]
            self.labels = _Labels.found(arrays)
        else:
            self.labels = None
        self.positive = positive
        if self.labels is None:
            self._truth = self._vote(truth, "y_true")
        else:
            self._truth = self.labels.codes(truth, "y_true")

    @property
    def names(self) -> tuple[str, ...]:
        """The confusion's label names (``("P", "N")`` under the binary rules)."""
        return ("P", "N") if self.labels is None else self.labels.names

    def _vote(self, values: np.ndarray, what: str) -> np.ndarray:
        """Binary votes with the label rules, checked once per distinct set of values."""
        codes, uniques = _factorize(values)
        key = (values.dtype.str, tuple(_plain(uniques)))  # the votes do not depend on ``what``
        if (codes >= 0).all():
            try:
                hash(key)
                if key not in self._votes:
                    self._votes[key] = votes_from_values(uniques, what, self.positive)
                return self._votes[key][codes]
            except (DataError, TypeError):
                pass  # read every row to name the problem with its row count
        return votes_from_values(values, what, self.positive)

    def aligned(self, values: Any, what: str = "y_pred") -> np.ndarray:
        """``values`` as an array in ``y_true``'s row order (two Series aligned by index), of
        ``y_true``'s length."""
        array = _values(_aligned(self.y_true, values, what), what)
        if len(array) != self.rows:
            raise DataError(f"{what} has {len(array)} values but y_true has {self.rows}; give "
                            "both on the same rows")
        return array

    def codes(self, y_pred: Any, what: str = "y_pred") -> np.ndarray:
        """The label index of each prediction (binary: 0 positive, 1 negative), rows aligned
        with ``y_true``."""
        values = self.aligned(y_pred, what)
        if self.labels is None:
            return (~self._vote(values, what)).astype(np.int64)
        return self.labels.codes(values, what)

    def confusion(self, y_pred: Any, what: str = "y_pred") -> Confusion:
        """The confusion of ``y_pred`` against ``y_true`` (see the module for the rules)."""
        return self.from_codes(self.codes(y_pred, what))

    def count_many(self, predictions: Sequence[Any], whats: Sequence[str] | None = None,
                   ) -> np.ndarray:
        """Every candidate's counts at once, shape ``(candidates, K, K)`` (int64, rows the true
        class): the values of all candidates matched to the labels in one pass, then one
        ``np.bincount`` of ``candidate * K * K + true * K + predicted``; a refused value is
        named with its candidate (``whats``, default ``predictions[i]``).

        >>> PredictionReader(["a", "b"], labels=["a", "b"]).count_many(
        ...     [["a", "a"], ["b", "b"]]).tolist()
        [[[1, 0], [1, 0]], [[0, 1], [0, 1]]]
        """
        whats = list(whats) if whats is not None else [f"predictions[{i}]"
                                                        for i in range(len(predictions))]
        arrays = [self.aligned(v, w) for v, w in zip(predictions, whats)]
        codes: np.ndarray | None = None
        if self.labels is not None and arrays:
            try:
                stacked = np.stack(arrays)
                codes = self.labels.codes(stacked.ravel(), "predictions").reshape(stacked.shape)
            except (DataError, TypeError, ValueError):
                codes = None  # read one by one below, naming the candidate refused
        if codes is None:
            codes = np.stack([self.codes(a, w) for a, w in zip(arrays, whats)]) if arrays \
                else np.empty((0, self.rows), dtype=np.int64)
        k = len(self.names)
        truth = self._truth if self.labels is not None else (~self._truth).astype(np.int64)
        keys = (np.arange(len(arrays), dtype=np.int64)[:, None] * (k * k) + truth[None, :] * k
                + codes)
        counts = np.bincount(keys.ravel(), minlength=len(arrays) * k * k)
        return counts.reshape(len(arrays), k, k)

    def from_codes(self, predicted: np.ndarray) -> Confusion:
        """The confusion of per-row label indices (as :meth:`codes` gives) against ``y_true``."""
        k = len(self.names)
        truth = self._truth if self.labels is not None else (~self._truth).astype(np.int64)
        counts = np.bincount(truth * k + predicted, minlength=k * k).astype(float)
        return Confusion.trusted(counts.reshape(k, k).tolist(), self.names)


def count_confusion(y_true: Any, y_pred: Any, *, labels: Sequence[Any] | None = None,
                    positive: Any = None) -> Confusion:
    """Count a model's outcomes from its predictions, for any number of labels.

    Parameters
    ----------
    y_true, y_pred : array-like or pandas Series
        One label per row; two Series are aligned by index (see the module).
    labels : sequence, optional
        The K labels in row order (values matched by value, else by name). Without it: the
        binary rules, or the sorted union of the values when there are more than two.
    positive : optional
        The positive label of two (binary rules; with ``labels``, moved first).

    Returns
    -------
    Confusion
        Rows the true class; labels the names of ``labels`` (``("P", "N")`` for the binary
        rules).

    Raises
    ------
    DataError
        Values that are not labels (named), nulls, Series with other indexes, or other
        lengths.
    ValidationError
        ``labels`` with repeated names, or ``positive`` not among two ``labels``.

    Examples
    --------
    >>> import pandas as pd
    >>> y = pd.Series(["flu", "ok", "covid", "ok"], index=[10, 11, 12, 13])
    >>> pred = pd.Series(["ok", "ok", "flu", "covid"], index=[13, 11, 12, 10])  # permuted
    >>> count_confusion(y, pred, labels=["ok", "flu", "covid"])
    Confusion([[2, 0, 0],
               [0, 0, 1],
               [0, 1, 0]], labels=('ok', 'flu', 'covid'))
    >>> count_confusion([1, 0, 1], [1, 1, 0])
    Confusion(tp=1, fn=1, fp=1, tn=0)
    """
    return PredictionReader(y_true, [y_pred], labels=labels, positive=positive).confusion(y_pred)


def count_groups(frame: Frame, columns: Sequence[str]) -> tuple[dict[str, list[Any]], np.ndarray]:
    """Rows counted by the values of ``columns`` (distinct names; nulls kept as a value), in one
    group-by on the engine holding ``frame``."""
    query = frame.lazy() if frame.implementation.is_polars() else frame
    try:
        result = collect(query.group_by(*columns, drop_null_keys=False).agg(
            nw.len().alias(_LEN)))
    except DataError:
        raise
    except Exception as exc:
        raise engine_error(frame, exc) from exc
    sizes = result.get_column(_LEN).to_numpy().astype(np.int64)
    return {c: result.get_column(c).to_list() for c in columns}, sizes


def confusion_from_predictions(
    data: Any, truth: str, prediction: str, *, positive: Any = None,
    labels: Sequence[Any] | None = None,
) -> Confusion:
    """Count a model's outcomes from a truth column and a prediction column of ``data``.

    Parameters
    ----------
    data : data frame, mapping or path
        As in :func:`causalcost.forced_runs` (any engine; one group-by, counts come back).
    truth, prediction : str
        Column names.
    positive : optional
        The positive label of string columns (bool and 0/1 columns: ``True``/``1``).
    labels : sequence, optional
        The K labels in row order, matched as in :func:`count_confusion`. Without it and
        without ``positive``, columns holding more than two values are counted over their
        sorted union.

    Examples
    --------
    >>> confusion_from_predictions({"y": ["sick", "sick", "well"], "m": ["sick", "well", "well"]},
    ...                            "y", "m", positive="sick")
    Confusion(tp=1, fn=1, fp=0, tn=1)
    >>> confusion_from_predictions({"y": ["a", "b", "c"], "m": ["a", "c", "c"]}, "y", "m",
    ...                            labels=["c", "b", "a"]).to_frame().loc["b", "c"]
    np.float64(1.0)
    """
    frame, _ = as_frame(data)
    dtypes = require_columns(frame, [truth, prediction])
    if labels is None:
        try:
            rules = [label_rule(c, dtypes[c], positive) for c in (truth, prediction)]
            counts = count_votes(frame, rules, [r.vote(fill=fills_nulls(frame)) for r in rules])
        except DataError:
            if positive is not None:
                raise
            groups, sizes = count_groups(frame, list(dict.fromkeys([truth, prediction])))
            arrays = [(c, np.asarray(v, dtype=object)) for c, v in groups.items()]
            found = _Labels.found(arrays)
            if found is None:
                raise
            return _grouped(found, groups, sizes, truth, prediction)
        (tp, fn), (fp, tn) = counts.tolist()
        return Confusion(tp=tp, fn=fn, fp=fp, tn=tn)
    known = _Labels(labels, positive)
    groups, sizes = count_groups(frame, list(dict.fromkeys([truth, prediction])))
    return _grouped(known, groups, sizes, truth, prediction)


def _grouped(labels: _Labels, groups: dict[str, list[Any]], sizes: np.ndarray, truth: str,
             prediction: str) -> Confusion:
    def codes(column: str) -> np.ndarray:
        values = np.empty(len(sizes), dtype=object)
        values[:] = groups[column]
        return labels.codes(values, f"column {column!r}", sizes)

    k = len(labels.names)
    counts = np.zeros((k, k), dtype=np.int64)
    np.add.at(counts, (codes(truth), codes(prediction)), sizes)
    return Confusion(counts, labels=labels.names)


def confusion_at_threshold(
    y_true: Any, scores: Any, threshold: float, *, positive: Any = None
) -> Confusion:
    """Count outcomes of predicting positive where ``scores >= threshold``.

    Parameters
    ----------
    y_true : array-like
        True labels (bool, 0/1, or strings with ``positive=``).
    scores : array-like of float
        One finite score per instance; higher means more positive. Two pandas Series are
        aligned by index (see the module).
    threshold : float
        Predict positive where ``score >= threshold``.
    positive : optional
        The positive label of ``y_true`` when it holds strings.

    Examples
    --------
    >>> confusion_at_threshold([1, 1, 0, 0], [0.9, 0.4, 0.6, 0.1], 0.5)
    Confusion(tp=1, fn=1, fp=1, tn=1)
    """
    truth = votes_from_values(y_true, "y_true", positive)
    scores = _aligned(y_true, scores, "scores")
    try:
        values = np.asarray(scores, dtype=float)
    except (TypeError, ValueError):
        raise DataError("scores must be numbers (one per instance)") from None
    if values.ndim != 1 or len(values) != len(truth):
        raise DataError(f"scores must be one number per instance: {len(truth)} labels, "
                        f"scores of shape {values.shape}")
    bad = ~np.isfinite(values)
    if bad.any():
        shown = sorted(set(values[bad].tolist()), key=str)[:5]
        raise DataError(f"scores must be finite; found {shown} in {int(bad.sum())} row(s)")
    if isinstance(threshold, bool) or not np.isfinite(float(threshold)):
        raise DataError(f"threshold must be a finite number, got {threshold!r}")
    predicted = values >= float(threshold)
    code = (~truth).astype(np.int64) * 2 + (~predicted).astype(np.int64)
    tp, fn, fp, tn = np.bincount(code, minlength=4).tolist()
    return Confusion(tp=tp, fn=fn, fp=fp, tn=tn)
