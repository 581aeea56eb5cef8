"""K-label candidates as K x K confusions, many at once: the reading behind ``evaluate`` and
``compare`` on a sheet of K labels.

A candidate's confusion is ``N[c, j]`` (rows the true class ``c``, columns its prediction
``j``), over the sheet's labels in the sheet's order. Every reader here matches labels **by
name**: a labelled frame or an object with ``.labels`` is reordered to the sheet's labels when
it holds the same set and refused otherwise; predictions are matched to the labels as text.
Names of candidates are compared as text, so ``1`` and ``"1"`` are the same name and are
refused together. A pandas Series is paired with ``y_true`` by its index (reordered when the
index holds the same rows, refused otherwise), never by position.

:func:`count_confusions` counts every candidate's predictions at once: one ``np.bincount`` of
``candidate * K * K + true * K + predicted`` over all rows, so ten thousand candidates on a
thousand rows take a fraction of a second.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from causalcost.errors import CountError, DataError, InputTypeError, ValidationError

__all__ = ["as_matrix", "candidate_matrices", "count_confusions", "label_confusion",
           "unique_names"]


def as_matrix(value: Any) -> Any:
    """``value.to_numpy()`` for an object that has it (a confusion or cost object), else
    ``value``; the one place the K x K objects of other layers are read.

    Examples
    --------
    >>> as_matrix([[1, 0], [0, 1]])
    [[1, 0], [0, 1]]
    """
    if hasattr(value, "to_numpy") and not isinstance(value, (np.ndarray, pd.DataFrame)):
        return value.to_numpy()
    return value


def unique_names(names: Sequence[Any]) -> list[str]:
    """The candidates' names as text, refusing two that read the same (``1`` and ``"1"``).

    Examples
    --------
    >>> unique_names(["a", 1])
    ['a', '1']
    >>> unique_names([1, "1"])
    Traceback (most recent call last):
    causalcost.errors.ValidationError: two candidates are named '1' (1 and '1'): give each candidate its own name
    """  # noqa: E501
    seen: dict[str, Any] = {}
    for name in names:
        key = str(name)
        if key in seen:
            raise ValidationError(f"two candidates are named {key!r} ({seen[key]!r} and "
                                  f"{name!r}): give each candidate its own name")
        seen[key] = name
    return list(seen)


def _by_name(matrix: np.ndarray, given: Sequence[Any], labels: Sequence[str],
             what: str) -> np.ndarray:
    """Reorder a K x K matrix labelled ``given`` (rows and columns) to ``labels``."""
    names = [str(v) for v in given]
    if len(set(names)) != len(names):
        raise DataError(f"{what} repeats a label: {names}")
    if sorted(names) != sorted(labels):
        raise DataError(f"{what} is labelled {names} but the sheet's labels are {list(labels)}: "
                        "the labels must be the same names (in any order)")
    order = [names.index(v) for v in labels]
    return matrix[np.ix_(order, order)]


def _frame_matrix(frame: pd.DataFrame, labels: Sequence[str], what: str) -> np.ndarray:
    rows, cols = [str(v) for v in frame.index], [str(v) for v in frame.columns]
    if rows != cols and sorted(rows) == sorted(cols):
        frame = frame.copy()
        frame.index, frame.columns = rows, cols
        frame = frame.loc[:, rows]
        cols = rows
    if rows != cols:
        raise DataError(f"{what}: a K x K frame needs the same labels as rows (true class) and "
                        f"columns (prediction); got rows {rows} and columns {cols}")
    if rows == [str(i) for i in range(len(rows))] and isinstance(frame.index, pd.RangeIndex):
        return frame.to_numpy()  # an unlabelled frame: the sheet's order
    return _by_name(frame.to_numpy(), rows, labels, what)


def label_confusion(candidate: Any, labels: Sequence[str], what: str = "candidate",
                    ) -> np.ndarray:
    """One candidate's K x K confusion ``N[c, j]`` over ``labels``, from any accepted form.

    Accepted: a (K, K) array or nested list in the order of ``labels``; an object with
    ``.to_numpy()`` (and ``.labels``, matched by name); a DataFrame labelled with the labels
    (reordered by name); a DataFrame with columns ``truth`` and ``prediction``; a pair
    ``(truth, predictions)`` (pandas Series paired by index).

    Examples
    --------
    >>> label_confusion((["a", "b", "b"], ["a", "a", "b"]), ["a", "b"]).tolist()
    [[1, 0], [1, 1]]
    >>> import pandas as pd
    >>> m = pd.DataFrame([[1, 2], [3, 4]], index=["b", "a"], columns=["b", "a"])
    >>> label_confusion(m, ["a", "b"]).tolist()     # read by name, not by position
    [[4, 3], [2, 1]]

    Raises
    ------
    DataError
        Labels other than the sheet's, or a prediction that is not a label.
    ValidationError, CountError
        A matrix of the wrong shape or with bad counts.
    """
    names = [str(v) for v in labels]
    k = len(names)
    if isinstance(candidate, pd.DataFrame):
        if {"truth", "prediction"} <= set(map(str, candidate.columns)):
            return count_confusions(candidate["truth"], {what: candidate["prediction"]},
                                    names)[1][0]
        matrix = _frame_matrix(candidate, names, what)
    elif isinstance(candidate, tuple) and len(candidate) == 2 and not np.isscalar(candidate[0]) \
            and np.ndim(candidate[0]) == 1:
        return count_confusions(candidate[0], {what: candidate[1]}, names)[1][0]
    else:
        given = getattr(candidate, "labels", None)
        matrix = np.asarray(as_matrix(candidate), dtype=object)
        if given is not None and matrix.ndim == 2 and matrix.shape == (len(given),) * 2:
            matrix = _by_name(matrix, given, names, what)
    return _counts(matrix, k, what)


def _counts(value: Any, k: int, what: str) -> np.ndarray:
    """A checked (K, K) count matrix: finite, >= 0; ints stay ints."""
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise InputTypeError(f"{what} must be a K x K array of counts (rows the true class), "
                             f"got {type(value).__name__}") from None
    if arr.shape != (k, k):
        raise ValidationError(f"{what} must be {k} x {k} (rows the true class, columns the "
                              f"prediction, over the sheet's labels), got shape {arr.shape}")
    if not np.isfinite(arr).all() or (arr < 0).any():
        raise CountError(f"{what} must hold finite counts >= 0")
    return arr.astype(np.int64) if (arr == np.round(arr)).all() and \
        (np.abs(arr) < 2**53).all() else arr


def _codes(values: Any, labels: Sequence[str], what: str) -> np.ndarray:
    """Each value's position in ``labels`` (matched as text), refusing other values."""
    flat = np.asarray(values, dtype=object).ravel() if not isinstance(values, np.ndarray) \
        else values.ravel()
    codes, uniques = pd.factorize(flat, use_na_sentinel=True)
    if (codes < 0).any():
        raise DataError(f"{what} holds a missing value: every row needs a label")
    index = {n: i for i, n in enumerate(labels)}
    table = np.empty(len(uniques), dtype=np.int64)
    for i, v in enumerate(uniques):
        key = str(v.item() if hasattr(v, "item") else v)
        if key not in index:
            raise DataError(f"{what} holds {v!r}, which is not one of the sheet's labels "
                            f"{list(labels)}")
        table[i] = index[key]
    return table[codes].reshape(np.shape(values))


def _aligned(truth: Any, values: Any, what: str) -> Any:
    """``values`` in the order of ``truth``'s rows: pandas Series are paired by index."""
    t_series, v_series = isinstance(truth, pd.Series), isinstance(values, pd.Series)
    if not v_series:
        return values
    if not t_series:
        if isinstance(values.index, pd.RangeIndex) and values.index.equals(
                pd.RangeIndex(len(values))):
            return values.to_numpy()
        raise DataError(f"{what} is a pandas Series with its own index but y_true is not: "
                        "give y_true as a Series on the same index, or plain arrays")
    if values.index.equals(truth.index):
        return values.to_numpy()
    if len(values) == len(truth) and truth.index.is_unique and values.index.is_unique and \
            set(values.index) == set(truth.index):
        return values.reindex(truth.index).to_numpy()
    raise DataError(f"{what}'s index does not hold the same rows as y_true's: predictions are "
                    "paired with the true classes by index, never by position")


def count_confusions(y_true: Any, predictions: Mapping[Any, Any], labels: Sequence[str],
                     ) -> tuple[list[str], np.ndarray]:
    """Every candidate's K x K confusion from its predictions on ``y_true``'s rows, at once.

    Parameters
    ----------
    y_true : array-like
        The true class of each row (a pandas Series pairs by its index).
    predictions : mapping of name to array-like
        Each candidate's predicted labels on the same rows.
    labels : sequence of str
        The sheet's labels; values are matched to them as text.

    Returns
    -------
    (list of str, numpy.ndarray)
        The names, and the confusions, shape ``(candidates, K, K)``, int64.

    Examples
    --------
    >>> names, n = count_confusions(["a", "b", "c"], {"x": ["a", "c", "c"]}, ["a", "b", "c"])
    >>> names, n[0].tolist()
    (['x'], [[1, 0, 0], [0, 0, 1], [0, 0, 1]])
    """
    if not isinstance(predictions, Mapping) or not predictions:
        raise ValidationError("predictions must be a non-empty mapping of candidate name to "
                              "predicted labels")
    names = unique_names(list(predictions))
    k = len(labels)
    truth_values = y_true.to_numpy() if isinstance(y_true, pd.Series) else y_true
    truth = _codes(np.asarray(truth_values, dtype=object) if not isinstance(
        truth_values, np.ndarray) else truth_values, labels, "y_true")
    if truth.ndim != 1:
        raise DataError(f"y_true must be one-dimensional, got shape {truth.shape}")
    rows = truth.size
    arrays = []
    for name, values in zip(names, predictions.values()):
        arr = np.asarray(_aligned(y_true, values, f"predictions[{name!r}]"))
        if arr.ndim != 1 or arr.size != rows:
            raise DataError(f"predictions[{name!r}] has {arr.size} values but y_true has "
                            f"{rows}; give both on the same rows")
        arrays.append(arr)
    try:
        stacked = np.stack(arrays)
    except (TypeError, ValueError):
        stacked = np.array(arrays, dtype=object)
    if stacked.dtype.kind not in "biufUSO":
        stacked = stacked.astype(object)
    try:
        codes = _codes(stacked, labels, "predictions")
    except DataError:
        for name, arr in zip(names, arrays):  # name the candidate whose value is refused
            _codes(arr, labels, f"predictions[{name!r}]")
        raise
    keys = (np.arange(len(names), dtype=np.int64)[:, None] * (k * k) + truth[None, :] * k
            + codes)
    counts = np.bincount(keys.ravel(), minlength=len(names) * k * k)
    return names, counts.reshape(len(names), k, k)


def candidate_matrices(candidates: Any, labels: Sequence[str], y_true: Any = None,
                       predictions: Mapping[Any, Any] | None = None,
                       ) -> tuple[list[str], np.ndarray]:
    """Candidates given as confusions (a mapping of name to any form
    :func:`label_confusion` reads) and as predictions on ``y_true``, as one stack.

    Returns
    -------
    (list of str, numpy.ndarray)
        The names (as text, none twice) and the confusions ``(candidates, K, K)``.

    Examples
    --------
    >>> names, n = candidate_matrices({"m": [[2, 0], [1, 1]]}, ["a", "b"], y_true=["a", "b"],
    ...                               predictions={"p": ["b", "b"]})
    >>> names, n.tolist()
    (['m', 'p'], [[[2, 0], [1, 1]], [[0, 1], [0, 1]]])
    """
    names: list[Any] = []
    parts: list[np.ndarray] = []
    if candidates is not None:
        if not isinstance(candidates, Mapping):
            raise InputTypeError("candidates must be a mapping of name to a K x K confusion "
                                 f"(rows the true class), got {type(candidates).__name__}")
        unique_names(list(candidates))
        for name, cand in candidates.items():
            names.append(name)
            parts.append(label_confusion(cand, labels, f"candidate {str(name)!r}")[None])
    if predictions is not None or y_true is not None:
        if predictions is None or y_true is None:
            raise ValidationError("predictions= needs y_true= (the true classes of the same "
                                  "rows), and y_true= needs predictions=")
        made, counts = count_confusions(y_true, predictions, labels)
        names += list(predictions)
        parts.append(counts)
    if not parts:
        raise ValidationError("no candidates: give candidates (K x K confusions), or y_true "
                              "with predictions=")
    final = unique_names(names)
    dtype = np.int64 if all(p.dtype.kind in "iu" for p in parts) else float
    return final, np.concatenate([p.astype(dtype) for p in parts])
