"""A fitted scikit-learn classifier thresholded for the system (evaluation.estimator).

On the breast-cancer data bundled with scikit-learn (no download), malignant (target 0) as
the system's P: the returned ``FixedThresholdClassifier`` predicts exactly ``score >=
threshold`` with scikit-learn's own scores, its confusion on the rows the threshold was chosen
on is the sweep's chosen point, and that point's costs are what :func:`causalcost.evaluate`
says; the estimator is never refitted (prefit).
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import FixedThresholdClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC

import causalcost as cc
from causalcost.errors import DataError, InputTypeError, ValidationError
from causalcost.evaluation.estimator import classifier_scores, system_threshold_classifier

MALIGNANT = 0


@pytest.fixture(scope="module")
def split():
    X, y = load_breast_cancer(return_X_y=True)
    X = X[:, :4]  # a few features: a weaker candidate, so thresholds matter
    rng = np.random.default_rng(0)
    order = rng.permutation(len(y))
    fit, pick, test = order[:200], order[200:400], order[400:]
    return X, y, fit, pick, test


@pytest.fixture(scope="module")
def model(split):
    X, y, fit, *_ = split
    return LogisticRegression(max_iter=2000).fit(X[fit], y[fit])


@pytest.fixture(scope="module")
def sheet():
    return cc.sheet_from_network("thesis_and", cc.CostMatrix(fn=5, fp=1))


def confusion(y: np.ndarray, pred: np.ndarray, positive) -> cc.Confusion:
    t, p = y == positive, pred == positive
    return cc.Confusion(int(np.sum(t & p)), int(np.sum(t & ~p)), int(np.sum(~t & p)),
                        int(np.sum(~t & ~p)))


@pytest.mark.parametrize("criterion", ["worst", "expected", "accuracy", "youden"])
def test_the_classifier_predicts_the_chosen_point(split, model, sheet, criterion) -> None:
    X, y, _, pick, test = split
    clf, sweep = system_threshold_classifier(model, sheet, X[pick], y[pick],
                                             criterion=criterion, positive=MALIGNANT,
                                             return_sweep=True)
    assert isinstance(clf, FixedThresholdClassifier)
    point = sweep.points[criterion]
    assert clf.threshold == point.threshold and clf.pos_label == MALIGNANT
    got = confusion(y[pick], clf.predict(X[pick]), MALIGNANT)
    assert got == point.confusion
    report = cc.evaluate(sheet, got)
    assert report.worst_cost == pytest.approx(point.worst_cost)
    assert report.eval1 == pytest.approx(point.expected_cost)
    # same rule on other rows: malignant exactly where P(malignant) >= threshold
    p_malignant = model.predict_proba(X[test])[:, list(model.classes_).index(MALIGNANT)]
    expected = np.where(p_malignant >= point.threshold, MALIGNANT, 1 - MALIGNANT)
    np.testing.assert_array_equal(clf.predict(X[test]), expected)


def test_the_system_point_is_never_worse_for_the_system_on_its_rows(split, model, sheet):
    X, y, _, pick, _ = split
    _, sweep = system_threshold_classifier(model, sheet, X[pick], y[pick], positive=MALIGNANT,
                                           return_sweep=True)
    assert sweep.worst_case_optimum.worst_cost <= sweep.model_only_optimum.worst_cost
    assert sweep.expected_optimum.expected_cost <= sweep.model_only_optimum.expected_cost
    assert sweep.model_only_optimum.accuracy >= sweep.worst_case_optimum.accuracy


def test_prefit_the_estimator_is_never_refitted(split, model, sheet) -> None:
    X, y, fit, pick, test = split
    clf = system_threshold_classifier(model, sheet, X[pick], y[pick], positive=MALIGNANT)
    before = clf.predict(X[test])
    coef = model.coef_.copy()
    clf.fit(X[fit][:50], 1 - y[fit][:50])  # inverted labels: a refit would change everything
    again = clone(clf).fit(X[test], y[test])
    np.testing.assert_array_equal(model.coef_, coef)
    np.testing.assert_array_equal(clf.predict(X[test]), before)
    np.testing.assert_array_equal(again.predict(X[test]), before)


def test_decision_function_and_the_first_class_as_positive(split, sheet) -> None:
    X, y, fit, pick, test = split
    svc = make_pipeline(StandardScaler(), LinearSVC()).fit(X[fit], y[fit])
    scores, positive, method = classifier_scores(svc, X[test], positive=0)
    assert (positive, method) == (0, "decision_function")
    np.testing.assert_allclose(scores, -svc.decision_function(X[test]))
    clf = system_threshold_classifier(svc, sheet, X[pick], y[pick], positive=0)
    assert clf.response_method == "decision_function"
    expected = np.where(scores >= clf.threshold, 0, 1)
    np.testing.assert_array_equal(clf.predict(X[test]), expected)


def test_string_classes_and_a_pipeline(split, sheet) -> None:
    X, y, fit, pick, test = split
    names = np.array(["malignant", "benign"])[y]
    pipe = make_pipeline(StandardScaler(), LogisticRegression()).fit(X[fit], names[fit])
    clf = system_threshold_classifier(pipe, sheet, X[pick], names[pick], positive="malignant",
                                      criterion="expected")
    assert set(clf.predict(X[test])) <= {"malignant", "benign"}
    assert clf.pos_label == "malignant"


def test_refusals(split, model, sheet) -> None:
    X, y, fit, pick, _ = split
    with pytest.raises(ValidationError, match="not fitted"):
        system_threshold_classifier(LogisticRegression(), sheet, X[pick], y[pick])
    three = LogisticRegression(max_iter=2000).fit(X[fit], y[fit] + (X[fit, 0] > 15))
    with pytest.raises(ValidationError, match="binary"):
        system_threshold_classifier(three, sheet, X[pick], y[pick])
    with pytest.raises(ValidationError, match="criterion"):
        system_threshold_classifier(model, sheet, X[pick], y[pick], criterion="cheapest")
    with pytest.raises(ValidationError, match="not a class"):
        system_threshold_classifier(model, sheet, X[pick], y[pick], positive=2)
    with pytest.raises(DataError, match="does not know"):
        system_threshold_classifier(model, sheet, X[pick], y[pick] + 5)
    with pytest.raises(DataError, match="one label per row"):
        system_threshold_classifier(model, sheet, X[pick], y[pick][:-1])
    with pytest.raises(InputTypeError, match="classifier"):
        system_threshold_classifier(StandardScaler().fit(X), sheet, X[pick], y[pick])
    with pytest.raises(ValidationError, match="response_method"):
        system_threshold_classifier(model, sheet, X[pick], y[pick], response_method="predict")
