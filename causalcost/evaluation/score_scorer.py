"""scikit-learn model selection by system cost for a score slot: a scorer priced with a
:class:`~causalcost.ScoreSheet` (what :func:`~causalcost.system_scorer` returns for one).

The scorer asks the estimator for ``predict_proba`` (its score for the positive class, the
column of the positive label), prices the fold's scores against the sheet's critical scores
and returns *minus* the chosen system cost. A fold is the estimator's data, never the rows the
sheet was counted on, so it is always priced in the probability form on the fold's class
sizes. Built with :func:`sklearn.metrics.make_scorer`: ``response_method="predict_proba"`` on
scikit-learn 1.4 and later, ``needs_proba=True`` before (the package supports 1.2 and later).

A slot of K > 2 labels (score runs of K labels, e.g. :func:`~causalcost.ensemble_runs`, or a
score sheet of K labels) takes the estimator's whole ``predict_proba`` (one probability vector
per row, its columns matched to the system's labels through ``estimator.classes_``; a label the
fold's estimator never saw gets probability 0) and prices it against the system's offset
vectors in the probability form (:class:`VectorScorer`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from causalcost.errors import ValidationError
from causalcost.evaluation.score_inputs import is_score_runs, scores_by_class, vector_slot

__all__ = ["score_system_cost", "score_scorer", "make_proba_scorer", "vector_system_cost",
           "VectorScorer"]


def score_system_cost(y_true: Any, y_score: Any, *, sheet: Any, criterion: str = "expected",
                      confidence: float = 0.95, pos_label: Any = None) -> float:
    """The system cost (by ``criterion``) of scores ``y_score`` for the positive class on rows
    whose true classes are ``y_true``: the probability form (a fold is never the sheet's rows).

    Examples
    --------
    A hyper-parameter picked by the system's expected cost, on ``predict_proba``:

    >>> import causalcost as cc
    >>> from causalcost.data.score_runs import score_runs
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.model_selection import GridSearchCV
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 2)); y = (X[:, 0] + rng.normal(size=200) > 0).astype(int)
    >>> log = np.clip(rng.normal(0.4, 0.2, (200, 3)) + 0.3 * y[:, None], 0, 1)
    >>> sheet = cc.sheet_from_data(score_runs(log, truth=y, slot=0), cc.CostMatrix(fn=5, fp=1))
    >>> search = GridSearchCV(LogisticRegression(), {"C": [0.001, 1.0]}, cv=3,
    ...                       scoring=cc.system_scorer(sheet)).fit(X, y)
    >>> cost = score_system_cost(y, search.predict_proba(X)[:, 1], sheet=sheet)
    >>> bool(cost > 0), sorted(search.best_params_)
    (True, ['C'])
    """
    if np.ndim(y_score) == 2:  # a (rows, 2) predict_proba: the positive column is the last
        if np.shape(y_score)[1] != 2:
            raise ValidationError(f"y_score has {np.shape(y_score)[1]} columns: a score slot "
                                  "is binary (one score for the positive class)")
        y_score = np.asarray(y_score)[:, 1]
    per_class = scores_by_class(y_true, y_score, pos_label, "y_score", sheet.score_range)
    bound = sheet.price(per_class, same_instances=False,
                        confidence=confidence if criterion == "high_confidence_worst" else None)
    if criterion == "expected":
        return float(bound.expected_cost)
    if criterion == "worst":
        return float(bound.worst_cost)
    return float(bound.high_confidence_worst_cost)


def make_proba_scorer(function: Callable[..., float], **kwargs: Any) -> Callable[..., float]:
    """A loss on ``predict_proba`` as a scikit-learn scorer (``greater_is_better=False``), for
    every supported scikit-learn: ``response_method`` from 1.4, ``needs_proba`` before."""
    import sklearn
    from sklearn.metrics import make_scorer

    major, minor = (int(p) for p in sklearn.__version__.split(".")[:2])
    if (major, minor) >= (1, 4):
        return make_scorer(function, greater_is_better=False,
                           response_method="predict_proba", **kwargs)
    return make_scorer(function, greater_is_better=False, needs_proba=True,
                       **kwargs)


def score_scorer(sheet: Any, criterion: str, confidence: float, positive: Any,
                 costs: Any = None) -> Callable[..., float]:
    """:func:`~causalcost.system_scorer` for a score sheet: minus
    :func:`score_system_cost` of ``estimator.predict_proba(X)``'s positive column.

    ``positive`` (the positive label of ``y``) also picks the ``predict_proba`` column
    (scikit-learn's ``pos_label``); without it the estimator's last class (1 for 0/1 labels,
    True for booleans) is the positive one and ``y`` must be bool or 0/1.
    """
    if vector_slot(sheet):
        if positive is not None:
            raise ValidationError("positive= names the positive class of two labels; a slot of "
                                  f"K = {sheet.k} labels matches y's labels to its own by name")
        return VectorScorer(sheet, criterion, costs, confidence)
    if is_score_runs(sheet):  # two labels: the runs' own exact sheet prices each fold
        from causalcost.evaluation.score_runs_judge import runs_sheet

        sheet = runs_sheet(sheet, costs)
    elif costs is not None:
        raise ValidationError("costs=: a score sheet prices with its own costs; leave costs= "
                              "out (or re-price the sheet with sheet.with_costs(...))")
    kwargs: dict[str, Any] = {"sheet": sheet, "criterion": criterion,
                              "confidence": confidence}
    if positive is not None:
        kwargs["pos_label"] = positive
    return make_proba_scorer(score_system_cost, **kwargs)


#: What a K-label scorer can score a fold by.
VECTOR_CRITERIA = ("expected", "worst", "high_confidence_worst")


def _criterion(criterion: str, k: int) -> str:
    if criterion not in VECTOR_CRITERIA:
        raise ValidationError(f"criterion must be one of {list(VECTOR_CRITERIA)} for a slot "
                              f"of K = {k} labels, got {criterion!r}")
    return criterion


def vector_system_cost(y_true: Any, y_score: Any, *, pricer: Any, criterion: str = "expected",
                       costs: Any = None, confidence: float = 0.95) -> float:
    """The system cost (``"expected"``, ``"worst"`` or ``"high_confidence_worst"`` at
    ``confidence``) of probability vectors ``y_score`` (``(rows, K)`` in the order of the
    system's labels, or a DataFrame whose columns are the labels) on rows whose true classes
    are ``y_true``: the probability form (a fold is never the system's own rows).

    Examples
    --------
    >>> from causalcost.data.score_runs import ScoreRuns
    >>> runs = ScoreRuns(slot="m", models=("m",), rule="soft vote", critical=None,
    ...                  truth=np.array([0, 1, 2]), observed_scores=np.full((3, 3), 1 / 3),
    ...                  labels=("a", "b", "c"), offsets=np.zeros((3, 3)), matrix=np.eye(3))
    >>> vector_system_cost(["a", "b", "c", "c"], np.eye(3)[[0, 1, 2, 0]], pricer=runs)
    1.0
    """
    from causalcost.evaluation.score_inputs import vectors_by_class
    from causalcost.evaluation.score_vector_judge import price_vector_candidate, vector_costs

    high = _criterion(criterion, pricer.k) == "high_confidence_worst"
    by_class = vectors_by_class(pricer, y_true, y_score, "y_score")[0]
    bound = price_vector_candidate(pricer, by_class, vector_costs(pricer, costs), False,
                                   confidence if high else None)
    if high:
        return float(bound.high_confidence_worst_cost)  # type: ignore[arg-type]
    return float(bound.expected_cost if criterion == "expected" else bound.worst_cost)


class VectorScorer:
    """A scikit-learn scorer for a K-label score slot: ``scorer(estimator, X, y)`` is minus
    :func:`vector_system_cost` of ``estimator.predict_proba(X)`` (greater is better, as
    ``GridSearchCV(scoring=...)`` expects). The probability columns are matched to the
    system's labels through ``estimator.classes_`` (by value, or by name); a label the
    estimator never saw has probability 0; a class outside the system's labels is refused.

    Parameters
    ----------
    pricer : ScoreRuns or score sheet of K labels
    criterion : {"expected", "worst", "high_confidence_worst"}
    costs : CostMatrix or (K, K) array, optional
        Score runs: the system's costs (default: every mistake costs 1).
    confidence : float, default 0.95
        For ``"high_confidence_worst"``.
    """

    def __init__(self, pricer: Any, criterion: str = "expected", costs: Any = None,
                 confidence: float = 0.95) -> None:
        from causalcost.evaluation.score_vector_judge import vector_costs

        self.pricer, self.criterion = pricer, _criterion(criterion, pricer.k)
        self.costs = vector_costs(pricer, costs)
        self.confidence = confidence

    def vectors(self, estimator: Any, X: Any) -> np.ndarray:
        """``estimator.predict_proba(X)`` with one column per system label, in label order."""
        proba = np.asarray(estimator.predict_proba(X), dtype=float)
        classes = list(getattr(estimator, "classes_", ()))
        if proba.ndim != 2 or len(classes) != proba.shape[1]:
            raise ValidationError(f"the estimator's predict_proba has shape {proba.shape} for "
                                  f"classes_ {classes}: one column per class is needed")
        labels = list(self.pricer.labels)
        found = [_column(label, classes) for label in labels]
        unknown = [c for i, c in enumerate(classes) if i not in found]
        if unknown:
            raise ValidationError(f"the estimator's classes {unknown} are not labels of the "
                                  f"system {labels}: fit it on y with the system's labels")
        return np.column_stack([proba[:, i] if i is not None else np.zeros(proba.shape[0])
                                for i in found])

    def __call__(self, estimator: Any, X: Any, y: Any) -> float:
        return -vector_system_cost(y, self.vectors(estimator, X), pricer=self.pricer,
                                   criterion=self.criterion, costs=self.costs,
                                   confidence=self.confidence)

    def __repr__(self) -> str:
        return (f"VectorScorer(slot={self.pricer.slot!r}, criterion={self.criterion!r}, "
                f"K={self.pricer.k})")


def _column(label: Any, classes: list[Any]) -> int | None:
    """Where ``label`` is among an estimator's classes: by value, else by its text."""
    for i, c in enumerate(classes):
        if c == label and type(c) is not bool:
            return i
    for i, c in enumerate(classes):
        if str(c) == str(label):
            return i
    return None
