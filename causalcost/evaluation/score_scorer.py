"""scikit-learn model selection by system cost for a score slot: a scorer priced with a
:class:`~causalcost.ScoreSheet` (what :func:`~causalcost.system_scorer` returns for one).

The scorer asks the estimator for ``predict_proba`` (its score for the positive class, the
column of the positive label), prices the fold's scores against the sheet's critical scores
and returns *minus* the chosen system cost. A fold is the estimator's data, never the rows the
sheet was counted on, so it is always priced in the probability form on the fold's class
sizes. Built with :func:`sklearn.metrics.make_scorer`: ``response_method="predict_proba"`` on
scikit-learn 1.4 and later, ``needs_proba=True`` before (the package supports 1.2 and later).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from causalcost.errors import ValidationError
from causalcost.evaluation.score_inputs import scores_by_class

__all__ = ["score_system_cost", "score_scorer", "make_proba_scorer"]


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


def score_scorer(sheet: Any, criterion: str, confidence: float, positive: Any
                 ) -> Callable[..., float]:
    """:func:`~causalcost.system_scorer` for a score sheet: minus
    :func:`score_system_cost` of ``estimator.predict_proba(X)``'s positive column.

    ``positive`` (the positive label of ``y``) also picks the ``predict_proba`` column
    (scikit-learn's ``pos_label``); without it the estimator's last class (1 for 0/1 labels,
    True for booleans) is the positive one and ``y`` must be bool or 0/1.
    """
    kwargs: dict[str, Any] = {"sheet": sheet, "criterion": criterion,
                              "confidence": confidence}
    if positive is not None:
        kwargs["pos_label"] = positive
    return make_proba_scorer(score_system_cost, **kwargs)
