"""Candidates for a slot from several sources as one frame, and from predictions or scores.

:func:`candidates_frame` joins mappings of name to confusion and candidate frames (names
compared as text, none twice); :func:`confusions_from_predictions` counts each candidate's
predictions (or cut scores) on ``y_true``'s rows. Reading a file of candidates is
:mod:`causalcost.evaluation.candidate_files`, reading one candidate of any K
:mod:`causalcost.evaluation.candidate_reading`; both are re-exported here (their old path).

Examples
--------
>>> import causalcost as cc
>>> candidates_frame({"coin": cc.Confusion(50, 50, 100, 100)}).loc["coin"].tolist()
[50.0, 50.0, 100.0, 100.0]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from causalcost.confusion import CLASSES, Confusion, check_labels
from causalcost.errors import ValidationError
from causalcost.evaluation.candidate_files import (
    FIELD_LIMIT,
    _frame,
    read_candidates_csv,
    read_candidates_frame,
)
from causalcost.evaluation.candidate_reading import (
    _frame_counts,
    _frame_labels,
    as_confusion,
    candidate_matrices,
    frame_labels,
)

__all__ = ["FIELD_LIMIT", "as_confusion", "candidate_matrices", "candidates_frame",
           "confusions_from_predictions", "frame_labels", "read_candidates_csv",
           "read_candidates_frame", "score_rule"]

def _name(name: object) -> str:
    return str(name)


def _refuse_twins(names: list[str]) -> None:
    index = pd.Index(names)
    if index.has_duplicates:
        twice = index[index.duplicated()][0]
        raise ValidationError(f"two candidates are named {twice!r} (names are compared as text, "
                              "so 1 and '1' are one name); rename one")


def _target(parts: tuple[Any, ...], labels: Sequence[Any] | None) -> tuple[str, ...]:
    """The labels of the candidates: given, else those of the first candidate over more than
    two labels, else ("P", "N")."""
    if labels is not None:
        return check_labels(labels, len(list(labels)), "labels")
    for part in parts:
        if isinstance(part, pd.DataFrame):
            own = _frame_labels(part)
            if own is not None:
                return own
        elif isinstance(part, Mapping):
            for candidate in part.values():
                if isinstance(candidate, Confusion) and candidate.k > 2:
                    return candidate.labels
    return CLASSES


def candidates_frame(*parts: Mapping[Any, Any] | pd.DataFrame,
                     labels: Sequence[Any] | None = None) -> pd.DataFrame:
    """Candidates from several sources (mappings of name to confusion, candidate frames) as one
    frame for :func:`~causalcost.compare`, refusing a name used twice.

    Parameters
    ----------
    *parts : mapping of name to candidate, or candidate frame
        A candidate is anything :func:`as_confusion` reads. Names are compared as text.
    labels : sequence, optional
        The K labels (row order). Without it: the labels of the first candidate over more than
        two labels, else the binary ``("P", "N")``. Labelled candidates are matched to them by
        name (reordered, or refused when the names differ).

    Returns
    -------
    pandas.DataFrame
        Index ``candidate``. Two labels: columns ``tp, fn, fp, tn`` (the positive label
        first). K labels: columns ``(true, predicted)`` for every pair of labels, in label
        order. ``attrs["labels"]`` holds the labels;
        :func:`~causalcost.evaluation.candidate_reading.candidate_matrices` reads it back as
        a (candidates, K, K) array.

    Raises
    ------
    ValidationError
        A name used twice, or candidates over other labels.

    Examples
    --------
    >>> import causalcost as cc
    >>> candidates_frame({"coin": cc.Confusion(50, 50, 100, 100)},
    ...                  {"good": {"tp": 90, "fn": 10, "fp": 20, "tn": 180}}).index.tolist()
    ['coin', 'good']
    >>> candidates_frame({"a": cc.Confusion(1, 0, 0, 1)}, {"a": cc.Confusion(0, 1, 1, 0)})
    Traceback (most recent call last):
    causalcost.errors.ValidationError: two candidates are named 'a' (names are compared as text, so 1 and '1' are one name); rename one
    >>> frame = candidates_frame({"x": [[5, 1, 0], [0, 4, 0], [2, 0, 3]]}, labels=["a", "b", "c"])
    >>> frame.loc["x", ("c", "a")], frame.attrs["labels"]
    (np.float64(2.0), ['a', 'b', 'c'])
    """  # noqa: E501
    target = _target(parts, labels)
    k = len(target)
    named = labels is not None or k > 2
    names: list[str] = []
    rows: list[np.ndarray] = []
    for part in parts:
        if isinstance(part, pd.DataFrame):
            rows.append(_frame_counts(part, target))
            names += [_name(n) for n in part.index]
        elif isinstance(part, Mapping):
            for name, candidate in part.items():
                names.append(_name(name))
                c = as_confusion(candidate, name, labels=target if named else None)
                if c.k != k:
                    raise ValidationError(f"candidate {name!r} has {c.k} labels, the others "
                                          f"{k} ({list(target)})")
                rows.append(np.asarray(c.to_numpy(), dtype=float)[None])
        else:
            raise TypeError(f"candidates must be mappings of name to Confusion or candidate "
                            f"frames, got {type(part).__name__}")
    _refuse_twins(names)
    m = np.concatenate(rows) if rows else np.empty((0, k, k))
    return _frame(names, m.reshape(len(m), k * k), target)


def score_rule(scores: Mapping[str, Any] | None, threshold: float | None) -> tuple[float, str]:
    """The cut that turns scores into labels, and the rule in words (printed with the results).

    A stated ``threshold`` is used as given. Without one, scores that are all probabilities
    (every value in [0, 1]) take the documented default 0.5, and the rule says it is the
    default; other scores are refused: the cut is not guessed.

    Examples
    --------
    >>> score_rule({"a": [0.2, 0.9]}, None)
    (0.5, 'scores: positive where score >= 0.5 (the default for probabilities in [0, 1]; give threshold= / --threshold to choose)')
    >>> score_rule({"a": [3.0, -1.0]}, 0.0)[1]
    'scores: positive where score >= 0 (threshold given)'
    """  # noqa: E501
    if threshold is not None:
        if isinstance(threshold, bool) or not isinstance(threshold, (int, float, np.number)) \
                or not np.isfinite(threshold):
            raise ValidationError(f"threshold must be a finite number, got {threshold!r}")
        return float(threshold), (f"scores: positive where score >= {float(threshold):g} "
                                  "(threshold given)")
    for name, values in (scores or {}).items():
        try:
            s = np.asarray(values, dtype=float)
        except (TypeError, ValueError):
            continue  # confusions_from_predictions names the unreadable scores
        if s.size and np.isfinite(s).all() and not ((s >= 0) & (s <= 1)).all():
            raise ValidationError(
                f"scores[{str(name)!r}] holds values outside [0, 1], so they are not "
                "probabilities and no cut can be assumed: give threshold= (--threshold) to "
                "say where the candidate predicts positive (score >= threshold)")
    return 0.5, ("scores: positive where score >= 0.5 (the default for probabilities in "
                 "[0, 1]; give threshold= / --threshold to choose)")


def confusions_from_predictions(y_true: Any, *, predictions: Mapping[Any, Any] | None = None,
                                scores: Mapping[Any, Any] | None = None,
                                threshold: float | None = None, positive: Any = None,
                                labels: Sequence[Any] | None = None,
                                ) -> dict[str, Confusion]:
    """Each candidate's confusion from its predictions (labels) or scores on ``y_true``.

    Read by one :class:`~causalcost.data.predictions.PredictionReader` (the rules of
    :func:`~causalcost.data.predictions.count_confusion`): pandas Series are aligned with
    ``y_true`` by index, values matched to the labels by value or name.

    Parameters
    ----------
    y_true : array-like
        The true classes, one a row: bool, 0/1 (1 positive), labels with ``positive``, or any
        labels with ``labels``.
    predictions : mapping of name to array-like, optional
        Each candidate's predicted labels on the same rows (the same label rules as ``y_true``).
    scores : mapping of name to array-like, optional
        Each candidate's scores for the positive class on the same rows: it predicts positive
        where ``score >= threshold`` (two labels only: a cut is binary by nature).
    threshold : float, optional
        The scores' cut. Without it, probabilities (all scores in [0, 1]) are cut at 0.5, the
        documented default (:func:`score_rule`); other scores are refused.
    positive : label, optional
        The positive label of ``y_true`` and ``predictions`` (needed for labels other than
        bool or 0/1).
    labels : sequence, optional
        The K labels in row order. Without it and without ``positive``, values beyond two are
        read as K labels: the sorted union of ``y_true``'s and the predictions' values.

    Returns
    -------
    dict of str to Confusion
        Predictions first, then scores, each in the order given.

    Raises
    ------
    DataError
        Values that are not labels (named), scores that are not finite numbers, arrays of
        another length than ``y_true``, or Series whose index does not match ``y_true``'s.
    ValidationError
        A name used twice (names are compared as text: ``1`` and ``"1"`` are one name),
        neither ``predictions`` nor ``scores``, scores for more than two labels, or scores
        outside [0, 1] without a ``threshold``.

    Examples
    --------
    >>> confusions_from_predictions(["sick", "well", "sick", "well"],
    ...                             predictions={"a": ["sick", "sick", "well", "well"]},
    ...                             scores={"b": [0.9, 0.2, 0.6, 0.7]}, positive="sick")
    {'a': Confusion(tp=1, fn=1, fp=1, tn=1), 'b': Confusion(tp=2, fn=0, fp=1, tn=1)}
    >>> confusions_from_predictions(["ok", "flu", "covid"], predictions={
    ...     "m": ["ok", "covid", "covid"]})["m"].labels
    ('covid', 'flu', 'ok')
    """
    from causalcost.data.predictions import PredictionReader
    from causalcost.errors import DataError

    if not predictions and not scores:
        raise ValidationError("give predictions={name: labels} or scores={name: scores}")
    for what, given in (("predictions", predictions), ("scores", scores)):
        if given is not None and not isinstance(given, Mapping):
            raise ValidationError(f"{what} must be a mapping of candidate name to an array, "
                                  f"got {type(given).__name__}")
    _refuse_twins([_name(n) for part in (predictions or {}, scores or {}) for n in part])
    reader = PredictionReader(y_true, (predictions or {}).values(), labels=labels,
                              positive=positive)
    if scores and len(reader.names) != 2:
        raise ValidationError(
            f"scores= cut at a threshold give two labels, but y_true is read over the "
            f"{len(reader.names)} labels {list(reader.names)}: give each candidate's labels "
            "as predictions=")
    cut = score_rule(scores, threshold)[0] if scores else 0.5
    out: dict[str, Confusion] = {}
    for name, values in (predictions or {}).items():
        out[_name(name)] = reader.confusion(values, f"predictions[{_name(name)!r}]")
    for name, values in (scores or {}).items():
        what = f"scores[{_name(name)!r}]"
        try:
            s = np.asarray(values.to_numpy() if isinstance(values, pd.Series) else values,
                           dtype=float)
        except (TypeError, ValueError):
            raise DataError(f"{what} must hold numbers (scores for the positive class); give "
                            "labels as predictions=") from None
        if s.ndim != 1 or not np.isfinite(s).all():
            raise DataError(f"{what} must be one-dimensional finite numbers")
        aligned = reader.aligned(values, what).astype(float)
        out[_name(name)] = reader.from_codes((aligned < cut).astype(np.int64))
    return out

