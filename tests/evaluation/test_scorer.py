"""cc.system_scorer: a scikit-learn scorer worth minus the system cost.

The cost is recomputed without the scorer: the expected cost from the sheet's four error
rates by the formula of cost function 1 (each of the model's cells times the system's error
rate given the class and the model's vote), the worst cases from ``cc.evaluate``. Inside
``GridSearchCV``, ``cross_validate`` and ``TunedThresholdClassifierCV`` the folds are re-fitted
by hand and the choice scikit-learn makes is checked to minimise the recomputed cost.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import make_classification
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_validate
from sklearn.tree import DecisionTreeClassifier

import causalcost as cc
from causalcost.errors import CausalCostError, InputTypeError

COSTS = cc.CostMatrix(fn=5, fp=1)


@pytest.fixture(scope="module")
def sheet() -> cc.CostSheet:
    return cc.sheet_from_network("thesis_and", COSTS)


@pytest.fixture(scope="module")
def data() -> tuple[np.ndarray, np.ndarray]:
    X, y = make_classification(n_samples=600, n_features=6, n_informative=3, weights=[0.65],
                               flip_y=0.08, random_state=4)
    return X, y


def expected_cost(sheet: cc.CostSheet, y: np.ndarray, pred: np.ndarray) -> float:
    """Cost function 1 from the sheet's rates: E[system FN] = tp e_P(P) + fn e_P(N), ..."""
    y, pred = np.asarray(y).astype(bool), np.asarray(pred).astype(bool)
    tp, fn = (y & pred).sum(), (y & ~pred).sum()
    fp, tn = (~y & pred).sum(), (~y & ~pred).sum()
    r, c = sheet.rates, sheet.costs
    sys_fn = tp * r.rate("P", "P") + fn * r.rate("P", "N")
    sys_fp = fp * r.rate("N", "P") + tn * r.rate("N", "N")
    pos, neg = tp + fn, fp + tn
    return float(sys_fn * c.fn + (pos - sys_fn) * c.tp + sys_fp * c.fp + (neg - sys_fp) * c.tn)


def criterion_cost(sheet: cc.CostSheet, y: np.ndarray, pred: np.ndarray,
                   criterion: str) -> float:
    if criterion == "expected":
        return expected_cost(sheet, y, pred)
    y, pred = np.asarray(y).astype(bool), np.asarray(pred).astype(bool)
    model = cc.Confusion(tp=int((y & pred).sum()), fn=int((y & ~pred).sum()),
                         fp=int((~y & pred).sum()), tn=int((~y & ~pred).sum()))
    if criterion == "worst":
        return cc.evaluate(sheet, model).worst_cost
    return cc.evaluate(sheet, model, confidence=0.95).high_confidence.worst_cost


def test_thesis_example_one(sheet: cc.CostSheet) -> None:
    from causalcost.evaluation.scorer import system_cost

    y = np.array([1] * 100 + [0] * 200)
    pred = np.array([1] * 50 + [0] * 50 + [1] * 100 + [0] * 100)
    assert system_cost(y, pred, sheet=sheet) == pytest.approx(320.0, rel=1e-12)
    assert expected_cost(sheet, y, pred) == pytest.approx(320.0, rel=1e-12)


@pytest.mark.parametrize("criterion", ["expected", "worst", "high_confidence_worst"])
def test_scorer_is_minus_the_cost(sheet: cc.CostSheet, data, criterion: str) -> None:
    X, y = data
    model = LogisticRegression().fit(X[:400], y[:400])
    scorer = cc.system_scorer(sheet, criterion=criterion)
    value = scorer(model, X[400:], y[400:])
    assert value == pytest.approx(-criterion_cost(sheet, y[400:], model.predict(X[400:]),
                                                  criterion), rel=1e-12)
    assert value < 0


@pytest.mark.parametrize("criterion", ["expected", "worst"])
def test_grid_search_picks_the_lowest_system_cost(sheet: cc.CostSheet, data,
                                                  criterion: str) -> None:
    X, y = data
    cv = StratifiedKFold(4, shuffle=True, random_state=0)
    grid = {"max_depth": [1, 2, 3, 5, 8], "min_samples_leaf": [1, 20]}
    search = GridSearchCV(DecisionTreeClassifier(random_state=0), grid, cv=cv,
                          scoring=cc.system_scorer(sheet, criterion=criterion)).fit(X, y)
    means = []
    for params in search.cv_results_["params"]:
        costs = []
        for train, test in cv.split(X, y):
            est = clone(DecisionTreeClassifier(random_state=0)).set_params(**params)
            pred = est.fit(X[train], y[train]).predict(X[test])
            costs.append(criterion_cost(sheet, y[test], pred, criterion))
        means.append(np.mean(costs))
    np.testing.assert_allclose(search.cv_results_["mean_test_score"], -np.array(means),
                               rtol=1e-12)
    assert means[search.best_index_] == min(means)
    assert search.best_params_ == search.cv_results_["params"][int(np.argmin(means))]


def test_cross_validate_scores_are_the_fold_costs(sheet: cc.CostSheet, data) -> None:
    X, y = data
    cv = StratifiedKFold(3, shuffle=True, random_state=1)
    scores = cross_validate(LogisticRegression(), X, y, cv=cv,
                            scoring={"cost": cc.system_scorer(sheet),
                                     "worst": cc.system_scorer(sheet, "worst")})
    for i, (train, test) in enumerate(cv.split(X, y)):
        pred = LogisticRegression().fit(X[train], y[train]).predict(X[test])
        assert scores["test_cost"][i] == pytest.approx(-expected_cost(sheet, y[test], pred),
                                                       rel=1e-12)
        assert scores["test_worst"][i] == pytest.approx(
            -criterion_cost(sheet, y[test], pred, "worst"), rel=1e-12)
    assert (scores["test_worst"] <= scores["test_cost"] + 1e-9).all()


@pytest.mark.parametrize("criterion", ["expected", "high_confidence_worst"])
def test_tuned_threshold_minimises_the_system_cost(sheet: cc.CostSheet, data,
                                                   criterion: str) -> None:
    tuned_cv = pytest.importorskip("sklearn.model_selection")
    if not hasattr(tuned_cv, "TunedThresholdClassifierCV"):  # scikit-learn < 1.5
        pytest.skip("TunedThresholdClassifierCV needs scikit-learn >= 1.5")
    X, y = data
    cv = StratifiedKFold(3, shuffle=True, random_state=2)
    thresholds = np.linspace(0.05, 0.95, 19)
    tuned = tuned_cv.TunedThresholdClassifierCV(
        LogisticRegression(), scoring=cc.system_scorer(sheet, criterion), cv=cv,
        thresholds=thresholds, store_cv_results=True).fit(X, y)
    fold_costs = np.zeros((3, len(thresholds)))
    for i, (train, test) in enumerate(cv.split(X, y)):
        proba = LogisticRegression().fit(X[train], y[train]).predict_proba(X[test])[:, 1]
        for j, t in enumerate(thresholds):
            fold_costs[i, j] = criterion_cost(sheet, y[test], (proba >= t).astype(int),
                                              criterion)
    mean = fold_costs.mean(axis=0)
    np.testing.assert_allclose(tuned.cv_results_["scores"], -mean, rtol=1e-12)
    best = int(np.argmin(mean))
    assert tuned.best_threshold_ == pytest.approx(thresholds[best], rel=1e-12)
    assert tuned.best_score_ == pytest.approx(-mean.min(), rel=1e-12)
    # with false negatives five times dearer, the tuned threshold sits below 0.5
    assert tuned.best_threshold_ < 0.5
    assert mean.min() < mean[np.argmin(np.abs(thresholds - 0.5))]


def test_labels_are_taken_from_the_user_never_guessed(sheet: cc.CostSheet) -> None:
    from causalcost.evaluation.scorer import system_cost

    y = np.array(["sick"] * 100 + ["well"] * 200)
    pred = np.array(["sick"] * 50 + ["well"] * 50 + ["sick"] * 100 + ["well"] * 100)
    with pytest.raises(CausalCostError, match="positive="):
        system_cost(y, pred, sheet=sheet)
    assert system_cost(y, pred, sheet=sheet, positive="sick") == pytest.approx(320.0)
    with pytest.raises(CausalCostError, match="'ill' is not among"):
        system_cost(y, pred, sheet=sheet, positive="ill")
    as_bool = system_cost(y == "sick", pred == "sick", sheet=sheet)
    assert as_bool == pytest.approx(320.0)
    with pytest.raises(CausalCostError, match="criterion must be one of"):
        cc.system_scorer(sheet, criterion="best")
    with pytest.raises(InputTypeError, match="sheet must be a CostSheet"):
        cc.system_scorer({"fn": 5})
    with pytest.raises(CausalCostError, match="y_true has 3 labels"):
        system_cost([1, 0, 1], [1, 0], sheet=sheet)


def test_a_fold_with_the_sheets_class_sizes_is_still_other_rows() -> None:
    """A count-form sheet and a fold of the same class sizes: evaluate would take the fold for
    the sheet's own rows; the scorer prices it in the probability form like every fold."""
    from causalcost.evaluation.scorer import system_cost
    from causalcost.pricing.bounds import bound_from_rates

    rng = np.random.default_rng(3)
    n = 300
    y = rng.random(n) < 0.4
    log = {"y": y, **{m: np.where(rng.random(n) < 0.8, y, ~y) for m in ("a", "b", "c")}}
    sheet = cc.sheet_from_data(log, COSTS, truth="y", slot="b", fusioner="majority",
                               models=["a", "b", "c"])
    pred = np.where(rng.random(n) < 0.7, y, ~y)
    model = cc.Confusion(tp=int((y & pred).sum()), fn=int((y & ~pred).sum()),
                         fp=int((~y & pred).sum()), tn=int((~y & ~pred).sum()))
    assert cc.evaluate(sheet, model).form == "probability"  # never guessed from sizes
    b = bound_from_rates(sheet.rates, model, COSTS, assumption=sheet.assumption,
                         monotonicity=sheet.monotonicity_check)
    assert system_cost(y, pred, sheet=sheet, criterion="worst") == pytest.approx(b.worst_cost,
                                                                                 rel=1e-12)
    assert system_cost(y, pred, sheet=sheet) == pytest.approx(b.expected_cost, rel=1e-12)
    assert system_cost(y, pred, sheet=sheet) == pytest.approx(expected_cost(sheet, y, pred),
                                                              rel=1e-12)
    # a fold of other class sizes gets the same form: the costs of the two line up
    fold = cc.Confusion(tp=int((y[:-1] & pred[:-1]).sum()), fn=int((y[:-1] & ~pred[:-1]).sum()),
                        fp=int((~y[:-1] & pred[:-1]).sum()),
                        tn=int((~y[:-1] & ~pred[:-1]).sum()))
    assert system_cost(y[:-1], pred[:-1], sheet=sheet, criterion="worst") == pytest.approx(
        cc.evaluate(sheet, fold).worst_cost, rel=1e-12)
