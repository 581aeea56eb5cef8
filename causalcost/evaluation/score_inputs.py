"""A score-slot candidate's inputs, read once for every verb that judges it with a
:class:`~causalcost.ScoreSheet`: the true classes (``y_true``) and the candidate's scores for
the positive class, split by class; and which instances they were scored on (declared or
proven by a row fingerprint, never guessed).

The labels of ``y_true`` are read like every other truth in the package: booleans (True is P),
0/1 (1 is P), or any two labels with ``positive=`` naming the positive one (strings without it
are refused: the positive class is never guessed).

Examples
--------
>>> s_p, s_n = scores_by_class([1, 0, 1], [0.9, 0.2, 0.4])
>>> s_p.tolist(), s_n.tolist()
([0.9, 0.4], [0.2])
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np

from causalcost.data.labels import votes_from_values
from causalcost.errors import DataError, ValidationError
from causalcost.score_values import PROBABILITIES, read_scores
from causalcost.sheet.instances import FINGERPRINT_KEY, Instances, decide_instances

__all__ = ["truth_votes", "scores_by_class", "given_by_class", "score_matrix", "score_instances",
           "is_score_sheet", "is_score_runs", "is_score_slot", "vector_slot", "truth_positions",
           "vectors_by_class", "sheet_has_rows", "score_sheet_warnings"]


def is_score_sheet(sheet: Any) -> bool:
    """Whether ``sheet`` is a :class:`~causalcost.ScoreSheet` (without importing it eagerly)."""
    from causalcost.sheet.score_sheet import ScoreSheet

    return isinstance(sheet, ScoreSheet)


def is_score_runs(value: Any) -> bool:
    """Whether ``value`` is :class:`~causalcost.data.score_runs.ScoreRuns` (any K)."""
    from causalcost.data.score_runs import ScoreRuns

    return isinstance(value, ScoreRuns)


def is_score_slot(value: Any) -> bool:
    """Whether ``value`` prices a score slot's candidates from their scores (or vectors):
    a score sheet, score runs of any K, or a score sheet of K labels (duck-typed: it has
    ``offsets_by_class``, ``slot_matrix`` and ``price``). The one test the verbs dispatch on."""
    return is_score_sheet(value) or is_score_runs(value) or vector_slot(value)


def vector_slot(value: Any) -> bool:
    """Whether ``value`` prices a K-label score slot (K > 2) from probability vectors: score
    runs of K labels, or a score sheet of K labels (read through the surface they share:
    ``labels``, ``k``, ``offsets_by_class``, ``slot_matrix``, ``price``)."""
    if not (is_score_runs(value) or is_score_sheet(value)
            or all(hasattr(value, a) for a in ("offsets_by_class", "slot_matrix", "price"))):
        return False
    return int(getattr(value, "k", 2)) > 2


def truth_positions(y_true: Any, labels: Any, what: str = "y_true") -> np.ndarray:
    """``y_true`` as each row's position in ``labels`` (matched by value or by name, as
    predictions are; a label outside them is refused, naming it).

    >>> truth_positions(["b", "c", "a"], ("a", "b", "c")).tolist()
    [1, 2, 0]
    """
    from causalcost.data.predictions import PredictionReader

    if y_true is None:
        raise ValidationError(f"{what}: the true classes of the rows the vectors were made on "
                              "are needed (y_true=...)")
    try:
        reader = PredictionReader(y_true, labels=list(labels))
        return np.asarray(reader.codes(y_true, what), dtype=np.int64)
    except DataError as exc:  # the labels are the system's: say so, not "give labels="
        first = str(exc).split(";")[0]
        raise DataError(f"{first}; the system's labels are fixed by its runs (or sheet): keep "
                        "only rows of those classes") from None


def vectors_by_class(pricer: Any, y_true: Any, vectors: Any, what: str = "scores"
                     ) -> tuple[tuple[np.ndarray, ...], np.ndarray, np.ndarray]:
    """One candidate's probability vectors on ``y_true``'s rows, read by the one reader
    (:func:`~causalcost.score_values.read_score_vectors`: ``(rows, K)`` with columns in the
    order of the pricer's labels, a DataFrame's columns matched to them by name, a
    DataFrame on ``y_true``'s index aligned on it), split by true class.

    Returns
    -------
    (tuple of numpy.ndarray, numpy.ndarray, numpy.ndarray)
        Per class (label order) the vectors of its rows; all vectors in row order; each
        row's true class as a position in the labels.
    """
    import pandas as pd

    from causalcost.score_values import read_score_vectors

    truth = truth_positions(y_true, pricer.labels)
    index = y_true.index if isinstance(y_true, pd.Series) else None
    arr = read_score_vectors(vectors, what, labels=pricer.labels, rows=truth.size, index=index,
                             score_range=getattr(pricer, "score_range", PROBABILITIES))
    return tuple(arr[truth == c] for c in range(len(pricer.labels))), arr, truth


def truth_votes(y_true: Any, positive: Any = None, what: str = "y_true") -> np.ndarray:
    """``y_true`` as one boolean per row (True: class P).

    >>> truth_votes(["sick", "well"], positive="sick").tolist()
    [True, False]
    """
    if y_true is None:
        raise ValidationError(f"{what}: the true classes of the rows the scores were made on "
                              "are needed (y_true=...)")
    values = np.asarray(y_true)
    if positive is not None and values.ndim == 1 and values.size:
        seen = {str(v) for v in np.unique(values.astype(str) if values.dtype.kind in "US"
                                          else values).tolist()}
        if str(positive) not in seen:
            raise DataError(f"{what}: the positive label {positive!r} is not among its labels "
                            f"{sorted(seen)[:5]}; is positive= spelled as in the data?")
    return votes_from_values(values, what, positive)


def _score_array(scores: Any, y_true: Any, n: int, what: str,
                 score_range: tuple[float, float]) -> np.ndarray:
    """One candidate's scores on ``y_true``'s rows (a Series aligned by index), read by the
    one reader of scores (:func:`~causalcost.score_values.read_scores`)."""
    import pandas as pd

    index = y_true.index if isinstance(y_true, pd.Series) else None
    return read_scores(scores, what, rows=n, index=index, score_range=score_range)


def scores_by_class(y_true: Any, scores: Any, positive: Any = None, what: str = "scores",
                    score_range: tuple[float, float] = PROBABILITIES
                    ) -> tuple[np.ndarray, np.ndarray]:
    """One candidate's scores split by true class (P, N), in row order.

    Raises
    ------
    ScoreValueError
        Scores of another length than ``y_true``, text, missing, infinite or out-of-range
        scores (:mod:`causalcost.score_values`).
    DataError
        Labels that are not two classes (or strings without ``positive=``).

    >>> scores_by_class([True, False], [0.3, float("nan")])
    Traceback (most recent call last):
    ...
    causalcost.errors.ScoreValueError: scores: row 1 is missing (NaN or null); every score must be a number: drop or impute those rows
    """  # noqa: E501
    y = truth_votes(y_true, positive)
    arr = _score_array(scores, y_true, y.size, what, score_range)
    return arr[y], arr[~y]


def given_by_class(candidate: Any, score_range: tuple[float, float] = PROBABILITIES
                   ) -> tuple[np.ndarray, np.ndarray]:
    """A candidate's scores already split by class: ``{"P": scores, "N": scores}``.

    >>> [a.tolist() for a in given_by_class({"P": [0.9], "N": [0.1, 0.2]})]
    [[0.9], [0.1, 0.2]]
    """
    per = {str(k): v for k, v in candidate.items()}
    return (read_scores(per["P"], "candidate scores of class P", score_range=score_range),
            read_scores(per["N"], "candidate scores of class N", score_range=score_range))


def score_matrix(y_true: Any, scores: Any, names: list[Any], positive: Any = None,
                 score_range: tuple[float, float] = PROBABILITIES
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Many candidates' scores on one ``y_true``: per class (P, N) a (candidates, n_c) array.

    ``scores`` maps each name to its scores (in ``y_true``'s row order, or Series aligned by
    index), each read by the one reader of scores (:mod:`causalcost.score_values`).

    >>> p, n = score_matrix([1, 0, 0], {"a": [0.9, 0.1, 0.2], "b": [0.5, 0.5, 0.5]}, ["a", "b"])
    >>> p.shape, n.shape
    ((2, 1), (2, 2))
    """
    y = truth_votes(y_true, positive)
    block = np.empty((len(names), y.size))
    for i, k in enumerate(names):
        block[i] = _score_array(scores[k], y_true, y.size, f"scores[{k!r}]", score_range)
    # take() on index arrays copies several times faster than a boolean mask over columns
    return block.take(np.flatnonzero(y), axis=1), block.take(np.flatnonzero(~y), axis=1)


def sheet_has_rows(sheet: Any) -> bool:
    """Whether a score sheet's critical scores were counted on instances of its own (a log),
    so a candidate can be declared or proven scored on the same rows."""
    provenance = sheet.provenance or {}
    return provenance.get("source") == "data" or "rows" in provenance \
        or FINGERPRINT_KEY in provenance


def score_instances(sheet: Any, sizes: tuple[int, int], *, same_instances: bool = False,
                    row_fingerprint: str | None = None) -> Instances:
    """Whether a candidate with these class sizes was scored on the score sheet's own rows:
    declared (``same_instances=True``) or proven (``row_fingerprint`` equal to the one the
    sheet records), else the probability form; the same rules, errors and words as a
    :class:`~causalcost.CostSheet`'s (:func:`~causalcost.sheet.instances.decide_instances`).

    >>> import causalcost as cc
    >>> from causalcost.data.score_runs import score_runs
    >>> from causalcost.sheet.score_sheet import score_sheet_from_runs
    >>> runs = score_runs(np.array([[0.2, 0.9], [0.7, 0.1]]), truth=[1, 0], slot=1)
    >>> sheet = score_sheet_from_runs(runs, cc.CostMatrix(fn=5, fp=1))
    >>> score_instances(sheet, (1, 1)).text()
    'probability form: instances not declared the same'
    """
    # decide_instances reads three things of a sheet: whether it has counted rows (forced),
    # the fingerprint it records (provenance) and its class sizes
    view = SimpleNamespace(forced=() if sheet_has_rows(sheet) else None,
                           provenance=sheet.provenance or {},
                           class_counts=tuple(sheet.class_sizes))
    return decide_instances(view, *sizes, same_instances=same_instances,  # type: ignore[arg-type]
                            row_fingerprint=row_fingerprint)


def score_sheet_warnings(sheet: Any) -> tuple[str, ...]:
    """What every judgement on a score sheet must say about the sheet itself."""
    out = []
    if not getattr(sheet, "exact", True):
        out.append("the sheet keeps the critical scores on breakpoints, rounded outward: the "
                   "worst and expected costs may be overstated and the best cost understated "
                   "(never the other way)")
    if getattr(sheet, "signature", None) is not None and not getattr(
            sheet, "signature_checked", False):
        out.append("the sheet is signed but its signature was not checked here: check it with "
                   "causalcost verify")
    return tuple(out)
