"""Candidates as K x K confusions, many at once, for any number of labels: the one reader
behind ``evaluate`` and ``compare``.

A candidate's confusion is ``N[c, j]`` (rows the true class ``c``, columns its prediction
``j``), over the sheet's labels in the sheet's order. The values layer reads them:
:func:`~causalcost.evaluation.candidates.as_confusion` (a labelled frame or an object with
``.labels`` is matched to the sheet's labels by name) and
:class:`~causalcost.data.predictions.PredictionReader` (a pandas Series is paired with
``y_true`` by its index, values matched to the labels by value or name, unknown values and
two spellings of one label refused). Names of candidates are compared as text, so ``1`` and
``"1"`` are the same name and are refused together.

:func:`count_confusions` counts every candidate's predictions at once: one ``np.bincount`` of
``candidate * K * K + true * K + predicted`` over all rows, so ten thousand candidates on a
thousand rows take a fraction of a second.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from causalcost.cells import _show
from causalcost.confusion import CELLS, CLASSES, Confusion
from causalcost.errors import CausalCostError, CountError, InputTypeError, ValidationError

__all__ = ["as_confusion", "as_matrix", "candidate_matrices", "count_confusions",
           "frame_labels", "label_confusion", "unique_names"]


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


def _counts(confusion: Any) -> np.ndarray:
    """A Confusion's (K, K) counts: int64 when every cell is a whole number within 2**53."""
    arr = np.asarray(confusion.to_numpy(), dtype=float)
    if (arr == np.round(arr)).all() and (arr < 2**53).all():
        return arr.astype(np.int64)
    return arr


def label_confusion(candidate: Any, labels: Sequence[str], what: str = "candidate",
                    ) -> np.ndarray:
    """One candidate's K x K confusion ``N[c, j]`` over ``labels``, from any accepted form:
    ``as_confusion(candidate, labels=labels).to_numpy()`` (int64 for whole counts).

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
        A prediction that is not a label, or Series whose indexes do not match.
    ValidationError, CountError, InputTypeError
        Labels other than the sheet's, a matrix of the wrong shape or with bad counts.
    """
    return _counts(as_confusion(candidate, labels=[str(v) for v in labels], what=what))


def count_confusions(y_true: Any, predictions: Mapping[Any, Any], labels: Sequence[str],
                     ) -> tuple[list[str], np.ndarray]:
    """Every candidate's K x K confusion from its predictions on ``y_true``'s rows, at once
    (read by :meth:`~causalcost.data.predictions.PredictionReader.count_many`).

    Parameters
    ----------
    y_true : array-like
        The true class of each row (a pandas Series pairs by its index).
    predictions : mapping of name to array-like
        Each candidate's predicted labels on the same rows.
    labels : sequence of str
        The sheet's labels; values are matched to them by value or name.

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
    from causalcost.data.predictions import PredictionReader

    if not isinstance(predictions, Mapping) or not predictions:
        raise ValidationError("predictions must be a non-empty mapping of candidate name to "
                              "predicted labels")
    names = unique_names(list(predictions))
    reader = PredictionReader(y_true, labels=list(labels))
    whats = [f"predictions[{name!r}]" for name in names]
    return names, reader.count_many(list(predictions.values()), whats)


def candidate_matrices(candidates: Any = None, labels: Sequence[str] | None = None,
                       y_true: Any = None, predictions: Mapping[Any, Any] | None = None,
                       ) -> tuple[list[str], np.ndarray]:
    """Candidates in any form, for any K, as one stack of confusions ``N[i, c, j]``.

    Parameters
    ----------
    candidates : mapping or DataFrame, optional
        A mapping of name to any form :func:`label_confusion` reads, or a candidate frame
        (:func:`~causalcost.evaluation.candidates.candidates_frame`,
        :func:`~causalcost.read_candidates_frame`: columns ``tp, fn, fp, tn``, or
        ``(true, predicted)`` pairs read by label name).
    labels : sequence of str, optional
        The K labels (row order). Without it: a frame's own labels (``("P", "N")`` for
        ``tp, fn, fp, tn``); needed for a mapping or predictions.
    y_true, predictions : optional
        Candidates as predicted labels on ``y_true``'s rows (a Series pairs by its index).

    Returns
    -------
    (list of str, numpy.ndarray)
        The names (as text, none twice: ``1`` and ``"1"`` are one name) and the confusions
        ``(candidates, K, K)``.

    Examples
    --------
    >>> names, n = candidate_matrices({"m": [[2, 0], [1, 1]]}, ["a", "b"], y_true=["a", "b"],
    ...                               predictions={"p": ["b", "b"]})
    >>> names, n.tolist()
    (['m', 'p'], [[[2, 0], [1, 1]], [[0, 1], [0, 1]]])
    >>> from causalcost.evaluation.candidates import candidates_frame
    >>> names, n = candidate_matrices(candidates_frame({"x": [[1, 2], [3, 4]]}))
    >>> names, n.tolist()
    (['x'], [[[1.0, 2.0], [3.0, 4.0]]])
    """
    names: list[Any] = []
    parts: list[np.ndarray] = []
    if isinstance(candidates, pd.DataFrame):
        own = frame_labels(candidates)
        labels = own if labels is None else tuple(str(v) for v in labels)
        names += [str(v) for v in candidates.index]
        parts.append(_frame_counts(candidates, tuple(labels)))
    elif candidates is not None:
        if not isinstance(candidates, Mapping):
            raise InputTypeError("candidates must be a mapping of name to a K x K confusion "
                                 f"(rows the true class), got {type(candidates).__name__}")
        if labels is None:
            raise ValidationError("candidate_matrices needs the labels of a mapping of "
                                  "candidates")
        unique_names(list(candidates))
        for name, cand in candidates.items():
            names.append(name)
            parts.append(label_confusion(cand, labels, f"candidate {str(name)!r}")[None])
    if predictions is not None or y_true is not None:
        if predictions is None or y_true is None:
            raise ValidationError("predictions= needs y_true= (the true classes of the same "
                                  "rows), and y_true= needs predictions=")
        if labels is None:
            raise ValidationError("candidate_matrices needs the labels of the predictions")
        made, counts = count_confusions(y_true, predictions, labels)
        names += list(predictions)
        parts.append(counts)
    if not parts:
        raise ValidationError("no candidates: give candidates (K x K confusions), or y_true "
                              "with predictions=")
    final = unique_names(names)
    dtype = np.int64 if all(p.dtype.kind in "iu" for p in parts) else float
    return final, np.concatenate([p.astype(dtype) for p in parts])


def as_confusion(candidate: object, name: object = None, *,
                 labels: Sequence[Any] | None = None, what: str | None = None) -> Confusion:
    """``candidate`` in any accepted form as a :class:`~causalcost.Confusion` over ``labels``;
    errors name the candidate.

    Accepted: a Confusion (its labels matched to ``labels`` by name); a mapping of ``tp, fn,
    fp, tn`` (binary, positive first); a (K, K) list or array of counts, rows the true class
    in ``labels``' order; a DataFrame labelled on both axes (matched by name); a DataFrame with
    columns ``truth`` and ``prediction``, or a **tuple** ``(y_true, y_pred)``, counted by
    :func:`causalcost.data.predictions.count_confusion` (Series aligned by index). Errors
    begin with ``what`` (default: the candidate and its ``name``).

    Examples
    --------
    >>> as_confusion((["a", "b", "b"], ["a", "a", "b"]), labels=["a", "b"]).to_numpy().tolist()
    [[1.0, 0.0], [1.0, 1.0]]
    >>> as_confusion({"tp": 1, "fn": 2, "fp": 3, "tn": 4}, "x")
    Confusion(tp=1, fn=2, fp=3, tn=4)
    """
    import pandas as pd

    from causalcost.data.predictions import count_confusion

    if what is None:
        what = "candidate" if name is None else f"candidate {name!r}"
    if not isinstance(candidate, (Confusion, Mapping, pd.DataFrame, tuple)) and (
            not hasattr(candidate, "to_numpy") and _ndim(candidate) != 2):
        raise InputTypeError(f"{what} must be a Confusion, a mapping of tp, fn, fp, tn, a (K, K) "
                             "array of counts (rows the true class) or a tuple (y_true, y_pred); "
                             f"got {type(candidate).__name__} {_show(candidate)}")
    try:
        if isinstance(candidate, Confusion):
            return candidate if labels is None else candidate.reorder(labels)
        if isinstance(candidate, Mapping):
            binary = Confusion.from_mapping(candidate)
            return binary if labels is None else binary.with_labels(labels)
        if isinstance(candidate, pd.DataFrame) and {"truth", "prediction"} <= set(
                map(str, candidate.columns)):
            return count_confusion(candidate["truth"], candidate["prediction"], labels=labels)
        if isinstance(candidate, tuple) and len(candidate) == 2:
            return count_confusion(candidate[0], candidate[1], labels=labels)
        return Confusion(candidate, labels=labels)
    except CausalCostError as exc:
        raise type(exc)(f"{what}: {exc}") from None


def _ndim(value: object) -> int:
    """Dimensions of an array-like (-1 for text, None, and nested lists that are ragged)."""
    if value is None or isinstance(value, (str, bytes)):
        return -1
    try:
        return int(np.ndim(value))
    except ValueError:
        return -1


def _frame_labels(part: pd.DataFrame) -> tuple[str, ...] | None:
    """The labels of a K-label candidate frame (columns (true, predicted)); None for a binary
    frame (columns tp, fn, fp, tn)."""
    if not isinstance(part.columns, pd.MultiIndex):
        return None
    if part.columns.nlevels != 2:
        raise ValidationError("a K-label candidate frame has two column levels (true class, "
                              f"prediction), got {part.columns.nlevels}")
    return tuple(dict.fromkeys(str(v) for v in part.columns.get_level_values(0)))


def _frame_counts(part: pd.DataFrame, labels: tuple[str, ...]) -> np.ndarray:
    """A candidate frame's counts as (n, K, K), its cells looked up by label name."""
    own = _frame_labels(part)
    k = len(labels)
    if own is None:
        missing = [c for c in CELLS if c not in part.columns]
        if missing:
            raise ValidationError(f"a candidate frame needs the columns tp, fn, fp, tn; "
                                  f"missing {missing}")
        if k != 2:
            raise ValidationError(f"a binary candidate frame (tp, fn, fp, tn) cannot be read "
                                  f"over the {k} labels {list(labels)}")
        return part[list(CELLS)].to_numpy(dtype=float).reshape(-1, 2, 2)
    columns = {(str(t), str(p)): i for i, (t, p) in enumerate(part.columns)}
    if set(own) != set(labels) or len(columns) != k * k or len(part.columns) != k * k:
        raise ValidationError(
            f"a K-label candidate frame's columns must be the (true, predicted) pairs of the "
            f"labels {list(labels)}, matched by name; its labels are {list(own)} "
            f"({len(part.columns)} columns)")
    try:
        order = [columns[(t, p)] for t in labels for p in labels]
    except KeyError as exc:
        raise ValidationError(f"a K-label candidate frame lacks the column {exc.args[0]}") \
            from None
    m = part.to_numpy(dtype=float)[:, order].reshape(-1, k, k)
    with np.errstate(invalid="ignore"):
        bad = ~(np.isfinite(m) & (m >= 0)).all(axis=(1, 2))
    if bad.any():
        name = part.index[int(np.flatnonzero(bad)[0])]
        raise CountError(f"candidate {name!r}: counts must be finite and >= 0")
    return m


def frame_labels(frame: pd.DataFrame) -> tuple[str, ...]:
    """The labels of a candidate frame (``("P", "N")`` for columns ``tp, fn, fp, tn``).

    >>> from causalcost.evaluation.candidates import candidates_frame
    >>> frame_labels(candidates_frame({"x": [[1, 2], [3, 4]]}))
    ('P', 'N')
    """
    own = _frame_labels(frame)
    return own if own is not None else tuple(frame.attrs.get("labels", CLASSES))
