"""Paired t-tests over cross-validation folds (causalcost.stats.crossval).

The k-fold test is checked against scipy.stats.ttest_rel and the lecture notes (seed 004);
the 5x2cv test against Dietterich's formula worked by hand; the fold generator against
estimators whose errors are known exactly.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from sklearn.dummy import DummyClassifier
from sklearn.linear_model import LogisticRegression

from causalcost.errors import CausalCostError, InputTypeError, ValidationError
from causalcost.stats.crossval import (
    FiveByTwoCVTest,
    PairedTTest,
    five_by_two_cv_differences,
    five_by_two_cv_t_test,
    paired_t_test,
)

fold_errors = st.floats(0.0, 1.0, allow_nan=False)


# ------------------------------------------------------------------ k-fold paired t-test
@settings(max_examples=200, deadline=None)
@given(data=st.data(), k=st.integers(2, 30), confidence=st.floats(0.5, 0.999))
def test_paired_t_test_is_scipy_ttest_rel(data: st.DataObject, k: int, confidence: float) -> None:
    a = np.array(data.draw(st.lists(fold_errors, min_size=k, max_size=k)))
    b = np.array(data.draw(st.lists(fold_errors, min_size=k, max_size=k)))
    delta = a - b
    ours = paired_t_test(a, b, confidence)
    assert ours.dof == k - 1
    if np.ptp(delta) <= 1e-12 * max(1.0, float(np.max(np.abs(delta)))):
        return  # no spread: scipy's statistic is NaN or rounding noise (see the next test)
    reference = stats.ttest_rel(a, b)
    assert ours.statistic == pytest.approx(reference.statistic, rel=1e-9)
    assert ours.p_value == pytest.approx(reference.pvalue, rel=1e-9, abs=1e-300)
    ci = reference.confidence_interval(confidence_level=confidence)
    assert (ours.low, ours.high) == pytest.approx((ci.low, ci.high), rel=1e-9, abs=1e-15)
    # the notes' s = sqrt(1 / (k (k - 1)) sum (delta_i - mean)^2); notes 004 typeset the sum
    # inside the square root's denominator, which cannot be meant: this is the mean's SE
    s = math.sqrt(np.sum((delta - delta.mean()) ** 2) / (k * (k - 1)))
    assert ours.standard_error == pytest.approx(s, rel=1e-9)
    assert ours.significant == (ours.low > 0 or ours.high < 0)


def test_notes_004_t_constant_for_eleven_folds() -> None:
    # lecture notes 004, "k-fold Cross-validation paired t-Test": "para N = 95 e k = 11, a
    # constante é t_{95,9} = 2.23". 2.23 is Student's 97.5 % quantile on k - 1 = 10 degrees
    # of freedom (2.228); on 9 it would be 2.262, so the subscript 9 is the notes' slip.
    rng = np.random.default_rng(4)
    a, b = rng.uniform(0.1, 0.3, 11), rng.uniform(0.1, 0.3, 11)
    res = paired_t_test(a, b, 0.95)
    assert res.dof == 10
    assert round(res.t_quantile, 2) == 2.23
    assert res.margin == pytest.approx(res.t_quantile * res.standard_error, rel=1e-12)
    assert round(stats.t.ppf(0.975, 9), 2) == 2.26


def test_hand_worked_paired_example() -> None:
    # delta = (0.02, 0.01, 0.03, 0.00, 0.03): mean 0.018, sample sd 0.013038 (sum of squared
    # deviations 0.00068), SE = 0.013038 / sqrt(5) = 0.0058310, t = 3.0870 on 4 dof
    res = paired_t_test([0.12, 0.10, 0.15, 0.11, 0.13], [0.10, 0.09, 0.12, 0.11, 0.10])
    assert res.mean == pytest.approx(0.018, rel=1e-12)
    assert res.standard_error == pytest.approx(math.sqrt(0.00068 / 20), rel=1e-9)
    assert res.statistic == pytest.approx(0.018 / math.sqrt(0.00068 / 20), rel=1e-9)
    assert res.p_value == pytest.approx(2 * stats.t.sf(res.statistic, 4), rel=1e-12)
    assert res.significant


def test_no_spread_in_the_differences() -> None:
    same = paired_t_test([0.1, 0.2, 0.3], [0.1, 0.2, 0.3])
    assert (same.statistic, same.p_value, same.low, same.high) == (0.0, 1.0, 0.0, 0.0)
    assert not same.significant
    shifted = paired_t_test([0.5, 0.5, 0.5], [0.25, 0.25, 0.25])
    assert (shifted.statistic, shifted.p_value) == (math.inf, 0.0)
    assert shifted.low == shifted.high == 0.25 and shifted.significant
    assert paired_t_test([0.25, 0.25], [0.5, 0.5]).statistic == -math.inf


def test_paired_result_object() -> None:
    res = paired_t_test([0.2, 0.3, 0.25, 0.3], [0.1, 0.2, 0.3, 0.2], confidence=0.9)
    assert isinstance(res, PairedTTest)
    frame = res.to_frame()
    assert isinstance(frame, pd.DataFrame) and len(frame) == 1
    assert frame.loc[0, "mean"] == res.mean and frame.loc[0, "dof"] == 3
    assert repr(res).startswith("PairedTTest(mean A - B = 0.0625 +- ")
    assert "at 90%" in repr(res)
    with pytest.raises(AttributeError):
        res.mean = 0.0  # type: ignore[misc]


@pytest.mark.parametrize(
    ("args", "error", "message"),
    [
        (([0.1, 0.2], [0.1]), ValidationError,
         r"errors_a and errors_b must have the same length .* got 2 and 1"),
        (([0.1], [0.2]), ValidationError, r"needs at least 2 folds, got 1"),
        (([[0.1, 0.2]], [[0.1, 0.2]]), ValidationError,
         r"errors_a must be one-dimensional \(one value per fold\), got shape \(1, 2\)"),
        (([0.1, np.nan], [0.1, 0.2]), ValidationError, r"errors_a must be finite"),
        (([0.1, 0.2], ["a", "b"]), InputTypeError, r"errors_b must be numbers, got an array"),
        (([0.1, 0.2], [0.1, 0.3], 1.2), ValidationError, r"confidence \(1.2\) must lie"),
        (([0.1, 0.2], [[0.1], [0.2, 0.3]]), ValidationError,
         r"errors_b must be a rectangular array"),
    ],
)
def test_paired_refusals(args: tuple, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        paired_t_test(*args)
    with pytest.raises(CausalCostError):
        paired_t_test(*args)


# ------------------------------------------------------------------ 5x2cv t-test
def test_hand_worked_five_by_two() -> None:
    # Dietterich (1998) eq.: t = p_1^(1) / sqrt(sum s_i^2 / 5), s_i^2 = sum_j (p_i^(j) - pbar_i)^2.
    # Rows 1-4 have s_i^2 = 2 * 0.01^2 = 0.0002, row 5 has 0; mean 0.00016; t = 0.02 /
    # sqrt(0.00016) = 1.58114 on 5 dof.
    diffs = [[0.02, 0.04], [0.01, 0.03], [0.03, 0.01], [0.00, 0.02], [0.02, 0.02]]
    res = five_by_two_cv_t_test(diffs)
    assert isinstance(res, FiveByTwoCVTest)
    assert res.variances == pytest.approx((2e-4, 2e-4, 2e-4, 2e-4, 0.0), abs=1e-15)
    assert res.statistic == pytest.approx(0.02 / math.sqrt(0.00016), rel=1e-9)
    assert res.p_value == pytest.approx(2 * stats.t.sf(res.statistic, 5), rel=1e-12)
    assert (res.dof, res.numerator, res.mean_difference) == (5, 0.02, pytest.approx(0.02))
    assert not res.significant() and res.significant(0.2)


def test_equal_rows_give_a_closed_form() -> None:
    # every row (0.1, 0.3): s_i^2 = 0.02, t = 0.1 / sqrt(0.02) = 1 / sqrt(2)
    res = five_by_two_cv_t_test(np.tile([0.1, 0.3], (5, 1)))
    assert res.statistic == pytest.approx(1 / math.sqrt(2), rel=1e-12)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(-1, 1, allow_nan=False), min_size=10, max_size=10))
def test_five_by_two_symmetries(values: list[float]) -> None:
    p = np.array(values).reshape(5, 2)
    res = five_by_two_cv_t_test(p)
    flipped = five_by_two_cv_t_test(-p)  # swapping A and B
    assert flipped.statistic == -res.statistic and flipped.p_value == res.p_value
    assert 0.0 <= res.p_value <= 1.0
    # only p_1^(1) is the numerator: the other nine enter through the variances alone
    assert res.numerator == p[0, 0]
    assert res.mean_difference == pytest.approx(float(p.mean()), abs=1e-12)


def test_five_by_two_degenerate_and_result_object() -> None:
    zero = five_by_two_cv_t_test(np.zeros((5, 2)))
    assert (zero.statistic, zero.p_value) == (0.0, 1.0)
    constant = five_by_two_cv_t_test(np.full((5, 2), -0.1))
    assert (constant.statistic, constant.p_value) == (-math.inf, 0.0)
    frame = constant.to_frame()
    assert len(frame) == 1 and frame.loc[0, "dof"] == 5 and frame.loc[0, "significant"]
    assert repr(constant).startswith("FiveByTwoCVTest(t = -inf on 5 dof, p = 0;")


@pytest.mark.parametrize(
    ("value", "error", "message"),
    [
        (np.zeros((2, 5)), ValidationError,
         r"differences must have shape \(5, 2\) .* got \(2, 5\)"),
        (np.zeros(10), ValidationError, r"got \(10,\)"),
        (np.full((5, 2), np.inf), ValidationError, r"differences must be finite"),
        ("0.1", InputTypeError, r"differences must be numbers, got str"),
    ],
)
def test_five_by_two_refusals(value: object, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        five_by_two_cv_t_test(value)


# ------------------------------------------------------------------ the fold generator
class Constant:
    """Predicts one label whatever the input; records the labels it was trained on."""

    def __init__(self, label: int) -> None:
        self.label = label
        self.trained_on: list[np.ndarray] = []

    def fit(self, X: object, y: np.ndarray) -> Constant:
        self.trained_on.append(np.asarray(y))
        return self

    def predict(self, X: object) -> np.ndarray:
        return np.full(len(X), self.label)


def test_stratified_halves_give_known_errors() -> None:
    # 30 zeros, 10 ones: every stratified half holds 15 zeros and 5 ones, so "always 0"
    # errs at 5/20 and "always 1" at 15/20 on each half: every difference is -0.5 exactly.
    y = np.array([0] * 30 + [1] * 10)
    X = np.zeros((40, 1))
    d = five_by_two_cv_differences(Constant(0), Constant(1), X, y, random_state=1)
    np.testing.assert_array_equal(d, np.full((5, 2), -0.5))


def test_the_callers_estimator_is_untouched_and_data_frames_work() -> None:
    y = np.array([0] * 13 + [1] * 8 + [2] * 5)  # odd class sizes
    spy = Constant(0)
    five_by_two_cv_differences(spy, Constant(1), pd.DataFrame({"x": range(26)}), y,
                               random_state=0)
    assert spy.trained_on == []  # fits happen on deep copies


def test_stratification_through_a_recording_estimator(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[np.ndarray] = []
    monkeypatch.setattr(Constant, "fit", lambda self, X, y: seen.append(np.asarray(y)) or self)
    y = np.array([0] * 13 + [1] * 8 + [2] * 5)
    five_by_two_cv_differences(Constant(0), Constant(1), np.zeros((26, 2)), y, random_state=3)
    assert len(seen) == 20  # 5 replications x 2 folds x 2 estimators
    for labels in seen:
        assert len(labels) == 13
        for cls, size in ((0, 13), (1, 8), (2, 5)):
            assert abs(np.sum(labels == cls) - size / 2) <= 0.5


def test_sklearn_estimators_and_reproducibility() -> None:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 2))
    y = (X[:, 0] + 0.3 * rng.normal(size=200) > 0).astype(int)
    args = (DummyClassifier(), LogisticRegression(), X, y)
    d = five_by_two_cv_differences(*args, random_state=7)
    np.testing.assert_array_equal(d, five_by_two_cv_differences(*args, random_state=7))
    assert d.shape == (5, 2) and np.all(d > 0.2)  # the majority vote errs far more
    assert five_by_two_cv_t_test(d).significant(0.01)


@pytest.mark.parametrize(
    ("args", "error", "message"),
    [
        ((object(), Constant(0), np.zeros((4, 1)), [0, 1, 0, 1]), InputTypeError,
         r"estimator_a must have fit\(X, y\) and predict\(X\) methods, got object"),
        ((Constant(0), Constant(1), np.zeros((3, 1)), [0, 1, 0, 1]), ValidationError,
         r"X and y must have the same length, got 3 and 4"),
        ((Constant(0), Constant(1), np.zeros((1, 1)), [0]), ValidationError,
         r"y must be one-dimensional with at least 2 labels, got shape \(1,\)"),
    ],
)
def test_fold_generator_refusals(args: tuple, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        five_by_two_cv_differences(*args)
