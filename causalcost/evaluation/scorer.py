"""scikit-learn model selection by system cost: a scorer priced with a cost sheet.

:func:`system_scorer` turns a :class:`~causalcost.CostSheet` into a scikit-learn scorer: the
candidate's predictions on a fold are counted into a confusion matrix, priced with
:func:`~causalcost.evaluate` against the sheet, and the scorer returns *minus* the chosen cost
(scikit-learn maximises scores). It is built with :func:`sklearn.metrics.make_scorer`
(``greater_is_better=False``), so it works wherever scikit-learn takes ``scoring=``:
``GridSearchCV``, ``cross_validate`` and ``TunedThresholdClassifierCV``, which moves the
decision threshold to the one with the lowest system cost.

scikit-learn is imported when a scorer is built, not when :mod:`causalcost` is.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from causalcost.confusion import Confusion
from causalcost.data.labels import votes_from_values
from causalcost.errors import InputTypeError, ValidationError
from causalcost.evaluation.evaluating import evaluate
from causalcost.evaluation.general import is_label_sheet
from causalcost.sheet.costsheet import CostSheet

__all__ = ["system_scorer", "CRITERIA", "system_cost"]

#: The costs a scorer can minimise.
CRITERIA = ("expected", "worst", "high_confidence_worst")


def _positive(sheet: CostSheet, positive: Any, y: np.ndarray) -> Any:
    """The positive label: the user's, else the sheet's; 0/1 or bool labels need none."""
    label = positive if positive is not None else sheet.provenance.get("positive")
    values = np.unique(y)
    if label is None:
        if y.dtype == bool or all(isinstance(v, (int, float, np.integer, np.floating))
                                  and v in (0, 1) for v in values.tolist()):
            return True if y.dtype == bool else 1
        names = tuple(sheet.label_names)
        if {str(v) for v in values.tolist()} <= set(names):  # the sheet's own labels, by name
            return names[0]
        raise ValidationError(f"y holds the labels {values.tolist()[:5]}, not 0/1, True/False "
                              f"or the sheet's {', '.join(names)}, and the sheet records no "
                              "positive label: pass positive= to system_scorer naming the "
                              "positive class")
    if label not in values.tolist():
        raise ValidationError(f"the positive label {label!r} is not among y's labels "
                              f"{values.tolist()[:5]}: pass positive= naming one of them (the "
                              "sheet's slot predicts that class)")
    return label


def system_cost(y_true: Any, y_pred: Any, *, sheet: CostSheet, criterion: str = "expected",
                confidence: float = 0.95, positive: Any = None) -> float:
    """The system cost (by ``criterion``) of predictions ``y_pred`` against ``y_true``.

    The scorer's function: :func:`system_scorer` returns minus this.

    Examples
    --------
    >>> import causalcost as cc
    >>> sheet = cc.sheet_from_network("thesis_and", cc.CostMatrix(fn=5, fp=1))
    >>> y_true = [1] * 100 + [0] * 200
    >>> y_pred = [1] * 50 + [0] * 50 + [1] * 100 + [0] * 100    # thesis §4, example 1
    >>> system_cost(y_true, y_pred, sheet=sheet), system_cost(y_true, y_pred, sheet=sheet,
    ...                                                        criterion="worst")
    (320.0, 390.0)
    """
    _check(sheet, criterion, positive)
    if is_label_sheet(sheet):  # K labels: the fold's K x K confusion, labels matched by name
        from causalcost.evaluation.candidate_reading import count_confusions

        model: Any = count_confusions(y_true, {"y_pred": y_pred}, list(sheet.labels))[1][0]
    else:
        model = _binary_confusion(sheet, y_true, y_pred, positive)
    if criterion == "high_confidence_worst":
        high = evaluate(sheet, model, confidence=confidence).high_confidence
        assert high is not None
        return float(high.worst_cost)
    # a fold is never the sheet's rows: evaluate's default, the probability form
    report = evaluate(sheet, model)
    return float(report.expected_cost if criterion == "expected" else report.worst_cost)


def _check(sheet: Any, criterion: str, positive: Any) -> None:
    if not (isinstance(sheet, CostSheet) or is_label_sheet(sheet)):
        hint = ("; a ScoreSheet prices scores, not predicted labels: use system_scorer(sheet) "
                "or causalcost.evaluation.score_scorer.score_system_cost"
                if type(sheet).__name__ == "ScoreSheet" else "")
        raise InputTypeError(f"sheet must be a CostSheet or a sheet of K labels, got "
                             f"{type(sheet).__name__}{hint}")
    if criterion not in CRITERIA:
        raise ValidationError(f"criterion must be one of {', '.join(CRITERIA)}, got "
                              f"{criterion!r}")
    if positive is not None and is_label_sheet(sheet):
        raise ValidationError("positive= names the positive class of two labels; a sheet of K "
                              "labels matches y's labels to its own by name")


def _binary_confusion(sheet: CostSheet, y_true: Any, y_pred: Any, positive: Any) -> Confusion:
    truth = np.asarray(y_true)
    label = _positive(sheet, positive, truth)
    t = votes_from_values(truth, "y_true", label)
    p = votes_from_values(np.asarray(y_pred), "y_pred", label)
    if len(t) != len(p):
        raise ValidationError(f"y_true has {len(t)} labels and y_pred {len(p)}")
    return Confusion(tp=int((t & p).sum()), fn=int((t & ~p).sum()), fp=int((~t & p).sum()),
                     tn=int((~t & ~p).sum()))


def system_scorer(sheet: CostSheet | Any, criterion: str = "expected", *, confidence: float = 0.95,
                  positive: Any = None, costs: Any = None) -> Callable[..., float]:
    """A scikit-learn scorer: minus the system cost of an estimator's predictions.

    Parameters
    ----------
    sheet : CostSheet or sheet of K labels
        The slot's sheet; its costs and rates price each fold. With a sheet of K labels the
        fold's K x K confusion is counted (``y``'s labels matched to the sheet's by name), so
        multi-class estimators are selected by system cost the same way.
    criterion : {"expected", "worst", "high_confidence_worst"}
        Which cost to minimise: the expected system cost (cost function 1), the worst case, or
        the worst case that holds on the fold's instances with probability ``confidence``.
    confidence : float, default 0.95
        For ``"high_confidence_worst"``.
    costs : CostMatrix or (K, K) array, optional
        Score runs of K labels only (they carry no costs): the system's costs, rows the true
        class; by default every mistake costs 1.
    positive : optional
        The positive label of ``y``. Default: the label the sheet records (sheets derived from
        data with a ``positive=``); 0/1 and boolean labels need none (1 / True). Any other
        labels without one are refused, never guessed.

    Returns
    -------
    callable
        ``scorer(estimator, X, y)`` (a :func:`sklearn.metrics.make_scorer` scorer with
        ``greater_is_better=False``): minus the cost of ``estimator.predict(X)``. With a
        :class:`~causalcost.ScoreSheet` the scorer calls ``predict_proba`` instead
        (``response_method="predict_proba"``) and prices the fold's scores for the positive
        class (:func:`~causalcost.evaluation.score_scorer.score_scorer`; ``positive`` also
        picks the probability column). With score runs of K > 2 labels (or a score sheet of
        K labels) the scorer prices the whole ``predict_proba`` against the system's offset
        vectors (:class:`~causalcost.evaluation.score_scorer.VectorScorer`; ``criterion``
        ``"expected"`` or ``"worst"``).

    Notes
    -----
    Each fold is priced as :func:`~causalcost.evaluate` prices a candidate counted on other
    rows than the sheet's: the probability form on the fold's own class sizes, always (a fold
    is the estimator's data, never the system rows the sheet was counted on, even when its
    class sizes happen to equal the sheet's). Costs are totals over the fold (folds of equal
    size compare directly; ``TunedThresholdClassifierCV`` compares thresholds on one fold).

    Examples
    --------
    >>> import numpy as np, causalcost as cc
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.model_selection import cross_validate
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(300, 2)); y = (X[:, 0] + rng.normal(size=300) > 0.5).astype(int)
    >>> sheet = cc.sheet_from_network("thesis_and", cc.CostMatrix(fn=5, fp=1))
    >>> scores = cross_validate(LogisticRegression(), X, y, cv=3,
    ...                         scoring=system_scorer(sheet))["test_score"]
    >>> bool((scores < 0).all())
    True
    """
    from causalcost.evaluation.score_inputs import is_score_slot

    if is_score_slot(sheet):  # priced from predict_proba's scores
        from causalcost.evaluation.score_scorer import score_scorer

        if criterion not in CRITERIA:
            raise ValidationError(f"criterion must be one of {', '.join(CRITERIA)}, got "
                                  f"{criterion!r}")
        return score_scorer(sheet, criterion, confidence, positive, costs)
    if costs is not None:
        raise ValidationError("costs= prices score runs of K labels; a cost sheet prices with "
                              "its own costs")
    _check(sheet, criterion, positive)
    from sklearn.metrics import make_scorer

    return make_scorer(system_cost, greater_is_better=False, sheet=sheet, criterion=criterion,
                       confidence=confidence, positive=positive)
