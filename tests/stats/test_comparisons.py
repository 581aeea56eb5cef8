"""Difference of two error rates and McNemar's test (causalcost.stats.comparisons).

Expected values come from the lecture notes' worked examples (seeds 001 and 004), from
statsmodels' two-sample Wald interval and McNemar test, and from scipy's binomial test.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy import stats
from statsmodels.stats import proportion as sm_proportion
from statsmodels.stats.contingency_tables import mcnemar

from causalcost.errors import CausalCostError, InputTypeError, ValidationError
from causalcost.stats.comparisons import (
    EXACT_BELOW,
    ErrorDifference,
    McNemarResult,
    error_difference,
    mcnemar_from_counts,
    mcnemar_test,
)

rates = st.floats(0.0, 1.0, allow_nan=False)
sizes = st.integers(1, 100_000)


# ------------------------------------------------------------------ the notes' examples
@pytest.mark.parametrize("quantile", ["exact", "notes"])
def test_notes_001_worked_example(quantile: str) -> None:
    # lecture notes 001, "Un esempio": M1 n1 = 30, e1 = 0.15; M2 n2 = 5000, e2 = 0.25;
    # d = |e2 - e1| = 0.1; sigma_d^2 = 0.0043 (printed as "sigma_d"); at 95 %
    # d_t = 0.100 +- 1.96 sqrt(0.0043) = 0.100 +- 0.128: the interval contains 0, "la
    # differenza non è significativa".
    res = error_difference(0.25, 5000, 0.15, 30, quantile=quantile)
    assert round(res.difference, 3) == 0.100
    assert round(res.margin, 3) == 0.128
    assert round(res.standard_error**2, 4) == 0.0043
    assert res.low < 0 < res.high and not res.significant


def test_sign_follows_the_notes_definition_d_equals_e1_minus_e2() -> None:
    # lecture notes 001 "Misura: d = e1 - e2"; notes 004: "d > 0 implica que erro de g1 é
    # maior que erro de g2". The 001 example reports |d|: in argument order it is -0.100.
    forward = error_difference(0.15, 30, 0.25, 5000)
    backward = error_difference(0.25, 5000, 0.15, 30)
    assert forward.difference == pytest.approx(-0.1, abs=1e-15)
    assert backward.difference == pytest.approx(0.1, abs=1e-15)
    assert forward.probability_first_higher < 0.5 < backward.probability_first_higher


def test_notes_004_probability_that_error_1_is_higher() -> None:
    # lecture notes 004, "EXEMPLO": Erro_T1(g1) = 0.3, Erro_T2(g2) = 0.2, d = 0.1; the notes
    # find 1.64 sigma ~ 0.1 and conclude "com 95% de confiança" that error 1 is higher.
    # The notes omit n1 and n2 and print "sigma^2 ~ 0.61"; their own 1.64 x sigma ~ 0.1
    # needs sigma ~ 0.061, which n1 = n2 = 100 gives (our reconstruction, not the notes').
    res = error_difference(0.3, 100, 0.2, 100)
    assert round(res.standard_error, 3) == 0.061
    assert round(res.difference / res.standard_error, 2) == 1.64
    assert round(res.probability_first_higher, 2) == 0.95


# ------------------------------------------------------------------ against statsmodels
@pytest.mark.parametrize(("c1", "n1", "c2", "n2"),
                         [(12, 40, 30, 200), (3, 30, 9, 30), (150, 1000, 120, 1000),
                          (1, 50, 2, 80)])
@pytest.mark.parametrize("confidence", [0.8, 0.95, 0.99])
def test_matches_statsmodels_wald_difference(
    c1: int, n1: int, c2: int, n2: int, confidence: float
) -> None:
    res = error_difference(c1 / n1, n1, c2 / n2, n2, confidence)
    low, high = sm_proportion.confint_proportions_2indep(
        c1, n1, c2, n2, method="wald", compare="diff", alpha=1 - confidence)
    assert (res.low, res.high) == pytest.approx((low, high), rel=1e-12, abs=1e-15)
    test = sm_proportion.test_proportions_2indep(c1, n1, c2, n2, method="wald",
                                                 compare="diff")
    assert res.p_value == pytest.approx(test.pvalue, rel=1e-9)
    assert res.difference / res.standard_error == pytest.approx(test.statistic, rel=1e-12)


# ------------------------------------------------------------------ properties
@settings(max_examples=300, deadline=None)
@given(e1=rates, n1=sizes, e2=rates, n2=sizes, confidence=st.floats(0.5, 0.999))
def test_swapping_the_models_mirrors_the_result(
    e1: float, n1: int, e2: float, n2: int, confidence: float
) -> None:
    ab = error_difference(e1, n1, e2, n2, confidence)
    ba = error_difference(e2, n2, e1, n1, confidence)
    assert ba.difference == -ab.difference
    assert ba.margin == ab.margin and ba.p_value == ab.p_value
    assert ba.significant == ab.significant
    assert ab.low <= ab.difference <= ab.high
    assert ab.probability_first_higher + ba.probability_first_higher == pytest.approx(1.0)


@settings(max_examples=300, deadline=None)
@given(e1=rates, n1=sizes, e2=rates, n2=sizes, confidence=st.floats(0.5, 0.999))
def test_interval_and_p_value_agree(
    e1: float, n1: int, e2: float, n2: int, confidence: float
) -> None:
    res = error_difference(e1, n1, e2, n2, confidence)
    assume(abs(res.p_value - (1 - confidence)) > 1e-9)  # away from the boundary
    assert res.significant == (res.p_value < 1 - confidence)
    if res.difference > 0 and res.standard_error > 0:  # one-sided = half the two-sided
        assert res.probability_first_higher == pytest.approx(1 - res.p_value / 2)


def test_zero_standard_error() -> None:
    same = error_difference(0.0, 10, 0.0, 20)
    assert (same.low, same.high, same.p_value, same.probability_first_higher) == (
        0.0, 0.0, 1.0, 0.5)
    assert not same.significant
    apart = error_difference(1.0, 10, 0.0, 20)
    assert (apart.low, apart.high, apart.p_value, apart.probability_first_higher) == (
        1.0, 1.0, 0.0, 1.0)
    assert apart.significant


def test_result_object() -> None:
    res = error_difference(0.15, 30, 0.25, 5000)
    assert isinstance(res, ErrorDifference)
    with pytest.raises(AttributeError):
        res.low = 0.0  # type: ignore[misc]
    frame = res.to_frame()
    assert isinstance(frame, pd.DataFrame) and len(frame) == 1
    assert frame.loc[0, "difference"] == res.difference
    assert not frame.loc[0, "significant"]
    assert {"low", "high", "margin", "p_value", "probability_first_higher", "e1", "n2"} <= set(
        frame.columns)
    assert res.to_dict()["z"] == pytest.approx(1.959964, abs=1e-6)
    assert "e1 - e2 = -0.1 +- 0.1283 at 95%" in repr(res) and "not significant" in repr(res)
    assert error_difference(0.15, 30, 0.25, 5000, 0.95, quantile="notes").z == 1.96


@pytest.mark.parametrize(
    ("args", "kwargs", "error", "message"),
    [
        ((1.5, 30, 0.2, 30), {}, ValidationError, r"e1 \(1.5\) must be an error rate in \[0, 1\]"),
        ((0.1, 30, float("nan"), 30), {}, ValidationError, r"e2 \(nan\) must be an error rate"),
        (("0.1", 30, 0.2, 30), {}, InputTypeError, r"e1 must be an error rate .* str '0.1'"),
        ((0.1, 0, 0.2, 30), {}, ValidationError, r"n1 must be a single test-set size of at "
                                                 r"least 1, got 0"),
        ((0.1, 30, 0.2, 2.5), {}, ValidationError, r"n2 must hold whole numbers, got 2.5"),
        ((0.1, [30, 40], 0.2, 30), {}, ValidationError, r"n1 must be a single test-set size"),
        ((0.1, 30, 0.2, 30, 0.0), {}, ValidationError, r"confidence \(0.0\) must lie strictly"),
        ((0.1, 30, 0.2, 30), {"quantile": "table"}, ValidationError,
         r"quantile \('table'\) must be one of 'exact', 'notes'"),
        ((0.1, 30, 0.2, 30, 0.97), {"quantile": "notes"}, ValidationError,
         r"confidence \(0.97\) is not in the notes' z_N table"),
    ],
)
def test_error_difference_refusals(args: tuple, kwargs: dict, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        error_difference(*args, **kwargs)


# ------------------------------------------------------------------ McNemar
def test_counts_from_predictions_with_string_labels() -> None:
    y = np.array(["cat", "dog", "dog", "cat", "cat", "dog"])
    a = np.array(["cat", "dog", "cat", "cat", "dog", "dog"])  # right on 0, 1, 3, 5
    b = np.array(["dog", "dog", "dog", "dog", "cat", "cat"])  # right on 1, 2, 4
    res = mcnemar_test(y, a, b)
    # A right & B wrong: 0, 3, 5 -> b = 3; A wrong & B right: 2, 4 -> c = 2
    assert (res.b, res.c, res.n, res.method) == (3, 2, 6, "exact")
    assert res.p_value == pytest.approx(1.0)
    assert res.favours == "a"


def test_agresti_prime_minister_example() -> None:
    # Agresti, An Introduction to Categorical Data Analysis: approval of the Prime Minister
    # in two surveys, table (794, 150; 86, 570); McNemar z = (150 - 86) / sqrt(236) = 4.17,
    # z^2 = 17.36, without continuity correction.
    res = mcnemar_from_counts(150, 86, correction=False)
    assert res.method == "chi-square"
    assert round(res.statistic, 2) == 17.36
    assert round(math.sqrt(res.statistic), 2) == 4.17
    assert res.p_value == pytest.approx(stats.chi2.sf(4096 / 236, 1), rel=1e-12)
    assert res.significant() and res.significant(0.001) and res.favours == "a"


@settings(max_examples=200, deadline=None)
@given(b=st.integers(0, 80), c=st.integers(0, 80), exact=st.booleans(),
       correction=st.booleans())
def test_matches_statsmodels_mcnemar(b: int, c: int, exact: bool, correction: bool) -> None:
    assume(b + c > 0)
    ours = mcnemar_from_counts(b, c, exact=exact, correction=correction)
    theirs = mcnemar([[7, b], [c, 3]], exact=exact, correction=correction)
    assert ours.statistic == pytest.approx(theirs.statistic, rel=1e-12)
    assert ours.p_value == pytest.approx(theirs.pvalue, rel=1e-12)


@pytest.mark.parametrize(("b", "c"), [(0, 7), (3, 9), (12, 12), (1, 23), (30, 10)])
def test_exact_test_is_scipy_binomial_test(b: int, c: int) -> None:
    res = mcnemar_from_counts(b, c, exact=True)
    assert res.statistic == min(b, c)
    assert res.p_value == pytest.approx(stats.binomtest(min(b, c), b + c, 0.5).pvalue,
                                        rel=1e-12)


def test_default_switches_to_chi_square_at_25_discordant() -> None:
    assert EXACT_BELOW == 25
    assert mcnemar_from_counts(20, 4).method == "exact"
    assert mcnemar_from_counts(20, 5).method == "chi-square, continuity corrected"
    corrected = mcnemar_from_counts(20, 5)
    assert corrected.statistic == pytest.approx((15 - 1) ** 2 / 25, rel=1e-12)
    assert mcnemar_from_counts(20, 5, correction=False).statistic == pytest.approx(9.0)
    assert mcnemar_from_counts(20, 5, exact=True).method == "exact"
    assert mcnemar_from_counts(2, 1, exact=False).method.startswith("chi-square")


@pytest.mark.parametrize("exact", [None, True, False])
def test_no_discordant_instance_is_no_evidence(exact: bool | None) -> None:
    res = mcnemar_test([1, 0, 1], [1, 0, 0], [1, 0, 0], exact=exact)
    assert (res.b, res.c, res.statistic, res.p_value) == (0, 0, 0.0, 1.0)
    assert res.favours is None and not res.significant()


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.booleans(), st.booleans()), min_size=1,
                max_size=60))
def test_predictions_and_counts_agree(rows: list[tuple[bool, bool, bool]]) -> None:
    y, a, b = (np.array(col, dtype=int) for col in zip(*rows))
    res = mcnemar_test(y, a, b)
    right_a, right_b = a == y, b == y
    assert res.b == int(np.sum(right_a & ~right_b))
    assert res.c == int(np.sum(~right_a & right_b))
    assert mcnemar_from_counts(res.b, res.c) == McNemarResult(
        res.statistic, res.p_value, res.b, res.c, res.method, None)


def test_mcnemar_result_object() -> None:
    res = mcnemar_from_counts(3, 12)
    assert res.favours == "b" and res.n is None
    assert res.significant(0.05) == (res.p_value < 0.05)
    frame = res.to_frame()
    assert len(frame) == 1 and frame.loc[0, "b"] == 3 and frame.loc[0, "favours"] == "b"
    assert repr(res).startswith("McNemarResult(exact: statistic = 3, p = 0.03516; b=3")
    with pytest.raises(ValidationError, match=r"alpha \(1.5\) must lie strictly between"):
        res.significant(1.5)


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: mcnemar_test([1, 0], [1], [0, 0]), ValidationError,
         r"y_true, pred_a and pred_b must have the same length, got 2, 1 and 2"),
        (lambda: mcnemar_test([[1, 0]], [[1, 0]], [[1, 0]]), ValidationError,
         r"y_true must be one-dimensional, got shape \(1, 2\)"),
        (lambda: mcnemar_test([], [], []), ValidationError, r"y_true is empty"),
        (lambda: mcnemar_test([1.0, np.nan], [1, 0], [1, 0]), ValidationError,
         r"y_true holds NaN"),
        (lambda: mcnemar_test([1], [1], [0], exact="yes"), InputTypeError,
         r"exact must be True, False or None, got 'yes'"),
        (lambda: mcnemar_from_counts(3, 4, correction=1), InputTypeError,
         r"correction must be True or False, got 1"),
        (lambda: mcnemar_from_counts(-1, 4), ValidationError, r"b must lie between 0"),
        (lambda: mcnemar_from_counts(3, 4.5), ValidationError, r"c must hold whole numbers"),
        (lambda: mcnemar_from_counts([3, 4], 4), ValidationError,
         r"b must be a single count, got \[3, 4\]"),
    ],
)
def test_mcnemar_refusals(call, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        call()
    with pytest.raises(CausalCostError):
        call()
