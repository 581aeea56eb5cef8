"""A fitted scikit-learn classifier, thresholded where the system wants it.

:func:`system_threshold_classifier` scores ``X`` with a fitted binary classifier, sweeps its
threshold against the cost sheet (:func:`~causalcost.evaluation.thresholds.system_thresholds`) and
returns scikit-learn's ``FixedThresholdClassifier`` at the chosen threshold, so the candidate
drops into a pipeline predicting what the system prefers. The estimator is used as fitted
(*prefit*): it is wrapped in ``FrozenEstimator``, so fitting the returned classifier (or
cloning it, as cross-validation does) keeps the estimator and the threshold chosen for it.

Unlike scikit-learn's ``TunedThresholdClassifierCV``, which optimises a metric the user writes
down for the model alone, the criterion here is the cost of the *system* the model joins:
its expected cost (cost function 1) or its worst case.

Choose the threshold on data the estimator was not fitted on, and check it on other data:
the sweep's optimum is exact for the rows it was computed on.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from causalcost.errors import DataError, InputTypeError, ValidationError
from causalcost.evaluation.thresholds import CRITERIA, ThresholdSweep, system_thresholds
from causalcost.sheet.costsheet import CostSheet

__all__ = ["system_threshold_classifier", "classifier_scores"]

_METHODS = ("auto", "predict_proba", "decision_function")


def _check_estimator(estimator: Any) -> np.ndarray:
    from sklearn.base import is_classifier
    from sklearn.exceptions import NotFittedError
    from sklearn.utils.validation import check_is_fitted

    if not is_classifier(estimator):
        raise InputTypeError(f"estimator must be a scikit-learn classifier, got "
                             f"{type(estimator).__name__}")
    try:
        check_is_fitted(estimator)
    except NotFittedError:
        raise ValidationError(f"the {type(estimator).__name__} is not fitted: fit it first; the "
                              "threshold is chosen for the estimator as fitted") from None
    classes = np.asarray(estimator.classes_)
    if classes.size != 2:
        raise ValidationError(f"estimator must be a binary classifier, it has {classes.size} "
                              f"classes {classes.tolist()}")
    return classes


def _method(estimator: Any, response_method: str) -> str:
    if response_method not in _METHODS:
        raise ValidationError(f"response_method must be one of {', '.join(_METHODS)}, got "
                              f"{response_method!r}")
    candidates = (["predict_proba", "decision_function"] if response_method == "auto"
                  else [response_method])
    for name in candidates:
        if hasattr(estimator, name):
            return name
    raise ValidationError(f"the {type(estimator).__name__} has no "
                          f"{' or '.join(candidates)} to score instances with")


def classifier_scores(estimator: Any, X: Any, *, positive: Any = None,
                      response_method: str = "auto") -> tuple[np.ndarray, Any, str]:
    """Scores of a fitted binary classifier for its positive class, as scikit-learn thresholds
    them.

    Parameters
    ----------
    estimator : fitted binary classifier
    X : array-like
    positive : optional
        The positive class (default ``estimator.classes_[1]``).
    response_method : {"auto", "predict_proba", "decision_function"}
        ``"auto"`` uses ``predict_proba`` when there is one.

    Returns
    -------
    (ndarray, label, str)
        The scores (the positive class's probability, or the decision function, negated when
        the positive class is ``classes_[0]``), the positive label and the method used.

    Examples
    --------
    >>> from sklearn.linear_model import LogisticRegression
    >>> model = LogisticRegression().fit([[0.0], [1.0], [2.0], [3.0]], ["a", "a", "b", "b"])
    >>> scores, positive, method = classifier_scores(model, [[0.0], [3.0]], positive="a")
    >>> (scores[0] > scores[1]), positive, method
    (np.True_, 'a', 'predict_proba')
    """
    classes = _check_estimator(estimator)
    pos = classes[1] if positive is None else positive
    if not any(pos == c for c in classes.tolist()):
        raise ValidationError(f"positive={positive!r} is not a class of the estimator "
                              f"({classes.tolist()})")
    index = int(np.flatnonzero(classes == pos)[0])
    method = _method(estimator, response_method)
    raw = np.asarray(getattr(estimator, method)(X), dtype=float)
    if method == "predict_proba":
        scores = raw[:, index]
    else:
        scores = raw.ravel() if index == 1 else -raw.ravel()
    label = pos.item() if isinstance(pos, np.generic) else pos
    return scores, label, method


def system_threshold_classifier(estimator: Any, sheet: CostSheet, X: Any, y: Any, *,
                                criterion: str = "worst", positive: Any = None,
                                response_method: str = "auto",
                                return_sweep: bool = False) -> Any:
    """The fitted classifier thresholded where the system's cost is lowest on ``(X, y)``.

    Parameters
    ----------
    estimator : fitted binary classifier
        With ``predict_proba`` or ``decision_function`` (used as fitted, never refitted).
    sheet : CostSheet
        The slot's cost sheet.
    X, y : array-like
        The rows to choose the threshold on (held out from the estimator's fit), and their
        true classes (labels of the estimator's classes).
    criterion : {"worst", "expected", "accuracy", "youden"}
        Lowest worst-case system cost (default), lowest expected system cost (``Eval1``), or
        the model-only points for comparison (:data:`~causalcost.evaluation.thresholds.CRITERIA`).
    positive : optional
        The class that is the system's P (default ``estimator.classes_[1]``).
    response_method : {"auto", "predict_proba", "decision_function"}
    return_sweep : bool
        Also return the :class:`~causalcost.evaluation.thresholds.ThresholdSweep`.

    Returns
    -------
    sklearn.model_selection.FixedThresholdClassifier
        Around ``FrozenEstimator(estimator)``, predicting ``positive`` when the score is
        ``>= threshold``; ``(classifier, sweep)`` with ``return_sweep=True``.

    Raises
    ------
    ValidationError
        If the estimator is not fitted or not binary, ``positive`` is not one of its classes,
        or ``criterion`` / ``response_method`` is unknown.
    DataError
        If ``y`` holds labels the estimator does not know, or one class only.

    Examples
    --------
    >>> import causalcost as cc
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.linear_model import LogisticRegression
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> X, fit, pick = X[:, :4], slice(0, None, 2), slice(1, None, 2)
    >>> model = LogisticRegression(max_iter=1000).fit(X[fit], y[fit])
    >>> sheet = cc.sheet_from_network("thesis_and", cc.CostMatrix(fn=5, fp=1))
    >>> clf = system_threshold_classifier(model, sheet, X[pick], y[pick], positive=0)

    In this AND system a slot's false negative always becomes the system's, its false positive
    rarely does (``e_N(P) = 0.2``), so the system wants the slot to say "malignant" (class 0)
    almost always:

    >>> type(clf).__name__, clf.pos_label, round(clf.threshold, 4)
    ('FixedThresholdClassifier', 0, 0.0044)
    >>> clf.predict(X[:3]).tolist()
    [0, 0, 0]
    """
    from sklearn.frozen import FrozenEstimator
    from sklearn.model_selection import FixedThresholdClassifier

    from causalcost.evaluation.general import refuse_labels

    refuse_labels(sheet, "system_threshold_classifier (one threshold)",
                  "score K-label estimators with cc.system_scorer(sheet) or compare their "
                  "predictions with cc.compare(sheet, y_true=..., predictions={...})")
    if criterion not in CRITERIA:
        raise ValidationError(f"criterion must be one of {', '.join(CRITERIA)}, got "
                              f"{criterion!r}")
    scores, pos, method = classifier_scores(estimator, X, positive=positive,
                                            response_method=response_method)
    labels = np.asarray(y)
    if labels.ndim != 1 or labels.shape[0] != scores.shape[0]:
        raise DataError(f"y must hold one label per row of X: {scores.shape[0]} rows, y of "
                        f"shape {labels.shape}")
    known = np.isin(labels, np.asarray(estimator.classes_))
    if not known.all():
        shown = sorted({str(v) for v in labels[~known].tolist()})[:5]
        raise DataError(f"y holds labels the estimator does not know: {shown} "
                        f"(its classes: {np.asarray(estimator.classes_).tolist()})")
    sweep: ThresholdSweep = system_thresholds(sheet, labels == pos, scores)
    point = sweep.points[criterion]
    clf = FixedThresholdClassifier(FrozenEstimator(estimator), threshold=point.threshold,
                                   pos_label=pos, response_method=method)
    return (clf, sweep) if return_sweep else clf
